import Foundation
import HTTPDNSCore
#if canImport(Glibc)
    import Glibc
#endif

/// TCP-connect probing of a host's addresses: the vendors' "IP ranking" data source (Alibaba's
/// `setIPRankingList`, host → port), measured here on plain non-blocking sockets and fed to an
/// `AddressRanking`. Every address is tried at once; each socket is closed as soon as its connect
/// ends, so a probe sends a SYN and, to a listening port, completes a handshake and closes: no TLS,
/// no request.
public enum ConnectProbe {
    /// The longest a background probe waits for a connect, in seconds.
    public static let longestTimeout: TimeInterval = 5

    /// A probe's limit for a connect limit of `limit` seconds (nil: none): at most `longestTimeout`.
    public static func timeout(forConnectLimit limit: Double?) -> TimeInterval { min(limit ?? longestTimeout, longestTimeout) }

    /// How probing one address went.
    public struct Result: Sendable, Hashable {
        public var address: IPAddress
        public var port: Int
        /// Seconds to connect; nil when it was refused, unreachable or not done within the time limit.
        public var connectTime: TimeInterval?
    }

    /// Connects to every address in `addresses` on `port` at once, on a thread of its own, and
    /// reports each outcome to `ranking` (connected, or failed for a refusal and a time-out alike).
    /// - Parameters:
    ///   - timeout: Seconds each connect may take (the probe ends after at most that long).
    /// - Returns: One result per distinct address, in `addresses`' order.
    public static func probe(_ addresses: [IPAddress], port: Int, timeout: TimeInterval, reportingTo ranking: AddressRanking?) async -> [Result] {
        var unique: [IPAddress] = []
        for address in addresses where !unique.contains(address) { unique.append(address) }
        let list = unique
        let results = await withCheckedContinuation { (continuation: CheckedContinuation<[Result], Never>) in
            let thread = Thread { continuation.resume(returning: measureBlocking(list, port: port, timeout: timeout)) }
            thread.name = "httpdns.connect-probe"
            thread.start()
        }
        for result in results {
            ranking?.report(result.connectTime.map { .connected($0) } ?? .failed, address: result.address, port: port)
        }
        return results
    }

    /// `probe`'s measurement, blocking the calling thread for at most `timeout` seconds.
    static func measureBlocking(_ addresses: [IPAddress], port: Int, timeout: TimeInterval) -> [Result] {
        let begin = HappyEyeballs.now()
        var times = [TimeInterval?](repeating: nil, count: addresses.count)
        var pending: [(index: Int, fd: Int32)] = []
        defer { for attempt in pending { close(attempt.fd) } }
        for (index, address) in addresses.enumerated() {
            switch HappyEyeballs.start(address, port: port) {
            case .connected(let fd):
                times[index] = HappyEyeballs.now() - begin
                close(fd)
            case .inProgress(let fd):
                pending.append((index, fd))
            case .failed:
                break
            }
        }
        let deadline = begin + timeout
        while !pending.isEmpty {
            let wait = deadline - HappyEyeballs.now()
            guard wait > 0 else { break }
            var polls = pending.map { pollfd(fd: $0.fd, events: Int16(POLLOUT), revents: 0) }
            guard poll(&polls, nfds_t(polls.count), Int32((wait * 1000).rounded(.up))) > 0 else { continue }
            let end = HappyEyeballs.now()
            var done: [Int] = []
            for (position, entry) in polls.enumerated() where entry.revents != 0 {
                let attempt = pending[position]
                if HappyEyeballs.connectionSucceeded(attempt.fd) { times[attempt.index] = end - begin }
                close(attempt.fd)
                done.append(position)
            }
            for position in done.reversed() { pending.remove(at: position) }
        }
        return addresses.enumerated().map { Result(address: $0.element, port: port, connectTime: times[$0.offset]) }
    }
}
