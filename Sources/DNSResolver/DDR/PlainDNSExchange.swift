import Dispatch
import DNSWire
import Foundation
import HTTPDNSCore
#if canImport(Glibc)
    import Glibc
#endif

/// One query to an unencrypted resolver (RFC 1035 §4.2): over UDP, then again over TCP when the
/// answer comes back truncated (TC). The response must carry the query's random ID and question
/// (RFC 5452 §9.1), else it is ignored and the wait goes on. Blocking sockets with poll(2) on a
/// Dispatch queue, never on the cooperative pool.
///
/// Nothing protects such an exchange from an attacker on the path: DDR uses it only to learn where
/// the encrypted resolver is, and trusts that only after TLS verification (RFC 9462 §4.2).
enum PlainDNSExchange {
    private static let queue = DispatchQueue(label: "httpdns.plain-dns", attributes: .concurrent)

    /// Why an exchange failed.
    enum Failure: Error, CustomStringConvertible {
        case timedOut
        case socket(String)
        case malformed(String)

        var description: String {
            switch self {
            case .timedOut: "no answer in time"
            case .socket(let reason): reason
            case .malformed(let reason): "malformed answer: \(reason)"
            }
        }
    }

    /// Asks `server` for `name`'s `type` records (RD set, EDNS).
    /// - Parameter timeout: Seconds for the whole exchange, TCP retry included.
    static func query(_ name: String, type: DNSRecordType, server: PlainDNSServer, timeout: TimeInterval) async throws -> DNSMessage {
        let id = UInt16.random(in: 0...UInt16.max)
        let message = try DNSMessage.query(name: name, type: type, id: id, paddingBlockSize: nil)
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try exchange(message, id: id, name: name, type: type, server: server, timeout: timeout) })
            }
        }
    }

    private static func exchange(
        _ query: [UInt8], id: UInt16, name: String, type: DNSRecordType, server: PlainDNSServer, timeout: TimeInterval
    ) throws -> DNSMessage {
        let deadline = now() + timeout
        let udp = try receive(query, id: id, name: name, type: type, server: server, deadline: deadline, stream: false)
        guard udp.isTruncated else { return udp }
        return try receive(query, id: id, name: name, type: type, server: server, deadline: deadline, stream: true)
    }

    private static func sameName(_ a: String, _ b: String) -> Bool {
        func plain(_ name: String) -> String { (name.hasSuffix(".") ? String(name.dropLast()) : name).lowercased() }
        return plain(a) == plain(b)
    }

    private static func now() -> TimeInterval { TimeInterval(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    private static func receive(
        _ query: [UInt8], id: UInt16, name: String, type: DNSRecordType, server: PlainDNSServer, deadline: TimeInterval, stream: Bool
    ) throws -> DNSMessage {
        let kind = stream ? Int32(SOCK_STREAM.rawValue) : Int32(SOCK_DGRAM.rawValue)
        let fd = socket(server.address.socketFamily, kind | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure.socket("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        try connect(fd, to: server, deadline: deadline)
        let framed = stream ? [UInt8(query.count >> 8), UInt8(query.count & 0xFF)] + query : query
        guard framed.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == framed.count else {
            throw Failure.socket("send to \(server): \(String(cString: strerror(errno)))")
        }
        var buffer = [UInt8](repeating: 0, count: 65_537)
        var received: [UInt8] = []
        while true {
            try wait(fd, deadline: deadline)
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else {
                if count < 0, errno == EINTR { continue }
                throw Failure.socket(count == 0 ? "\(server) closed the connection" : "receive from \(server): \(String(cString: strerror(errno)))")
            }
            let message: [UInt8]
            if stream {
                received += buffer[..<count]
                guard received.count >= 2 else { continue }
                let length = Int(received[0]) << 8 | Int(received[1])
                guard received.count >= 2 + length else { continue }
                message = Array(received[2..<(2 + length)])
            } else {
                message = Array(buffer[..<count])
            }
            let response: DNSMessage
            do {
                response = try DNSMessage(parsing: message)
            } catch {
                // Over UDP anyone can send garbage: only an answer to this query counts.
                if stream { throw Failure.malformed("\(error)") }
                continue
            }
            if response.id == id, response.isResponse, response.questions.first.map({ $0.type == type && sameName($0.name, name) }) == true {
                return response
            }
            if stream { throw Failure.malformed("the answer is not for the question asked") }
        }
    }

    private static func connect(_ fd: Int32, to server: PlainDNSServer, deadline: TimeInterval) throws {
        // Non-blocking only for the connect, so a black-holed TCP server is bounded by the deadline.
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        let result = server.address.withSocketAddress(port: server.port) { Glibc.connect(fd, $0, $1) }
        if result != 0 {
            guard errno == EINPROGRESS else { throw Failure.socket("connect to \(server): \(String(cString: strerror(errno)))") }
            var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let wait = Int32(max(0, ((deadline - now()) * 1000).rounded(.up)))
            guard poll(&entry, 1, wait) > 0 else { throw Failure.timedOut }
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size)
            guard error == 0 else { throw Failure.socket("connect to \(server): \(String(cString: strerror(error)))") }
        }
        _ = fcntl(fd, F_SETFL, flags)
    }

    private static func wait(_ fd: Int32, deadline: TimeInterval) throws {
        while true {
            let remaining = deadline - now()
            guard remaining > 0 else { throw Failure.timedOut }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32((remaining * 1000).rounded(.up)))
            if ready > 0 { return }
            if ready < 0, errno != EINTR { throw Failure.socket("poll: \(String(cString: strerror(errno)))") }
        }
    }
}
