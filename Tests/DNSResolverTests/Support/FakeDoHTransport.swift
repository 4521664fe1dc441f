import DNSResolver
import Foundation
import HTTPDNSCore
import Synchronization

/// A `DoHTransport` that records every request and answers with a handler, usually from a `FakeZone`.
final class FakeDoHTransport: DoHTransport {
    struct Request: Sendable {
        var url: URL
        var method: String
        var headers: [(String, String)]
        var body: Data?
        var connectTo: [IPAddress]
        var timeout: TimeInterval
        var maxResponseBytes: Int

        /// The DNS query: the POST body, or the GET `dns` parameter decoded.
        var query: [UInt8] {
            if let body { return Array(body) }
            let item = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "dns" }
            return item?.value.flatMap(DNSFixture.decodeBase64URL) ?? []
        }

        var question: DNSFixture.Question? { DNSFixture.question(of: query) }

        /// The endpoint URL without the GET query.
        var endpoint: String {
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
            components.query = nil
            return components.string!
        }

        func header(_ name: String) -> String? {
            headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
        }
    }

    typealias Handler = @Sendable (Request) async throws -> DoHHTTPResponse

    private let handler: Handler
    private let log = LockedValue<[Request]>([])

    init(_ handler: @escaping Handler) {
        self.handler = handler
    }

    /// Answers every endpoint from one zone.
    convenience init(zone: FakeZone) {
        self.init { request in zone.respond(to: request.query) }
    }

    var requests: [Request] { log.withLock { $0 } }

    func send(
        url: URL, method: String, headers: [(String, String)], body: Data?,
        connectTo: [IPAddress], timeout: TimeInterval, maxResponseBytes: Int
    ) async throws -> DoHHTTPResponse {
        let request = Request(
            url: url, method: method, headers: headers, body: body,
            connectTo: connectTo, timeout: timeout, maxResponseBytes: maxResponseBytes)
        log.withLock { $0.append(request) }
        return try await handler(request)
    }
}

/// A DoH server's view of a few names, answering as a recursive resolver would.
struct FakeZone: Sendable {
    struct Host: Sendable {
        var ipv4: [String] = []
        var ipv6: [String] = []
        var ttl: UInt32 = 300
    }

    var hosts: [String: Host]
    /// The SOA MINIMUM sent with NXDOMAIN and NODATA; `nil` sends no SOA.
    var negativeTTL: UInt32? = 60

    func respond(to query: [UInt8]) -> DoHHTTPResponse {
        let question = DNSFixture.question(of: query)!
        let soa = negativeTTL.map { [DNSFixture.Record.soa("test", ttl: 3600, minimum: $0)] } ?? []
        guard let host = hosts[question.name] else {
            return .dns(DNSFixture.response(to: query, code: .nameError, authorities: soa))
        }
        let answers: [DNSFixture.Record] =
            question.type == DNSFixture.typeA
            ? host.ipv4.map { .a(question.name, $0, ttl: host.ttl) }
            : host.ipv6.map { .aaaa(question.name, $0, ttl: host.ttl) }
        return .dns(DNSFixture.response(to: query, answers: answers, authorities: answers.isEmpty ? soa : []))
    }
}

extension DoHHTTPResponse {
    /// A 200 `application/dns-message` response.
    static func dns(_ body: Data) -> DoHHTTPResponse {
        DoHHTTPResponse(status: 200, contentType: "application/dns-message", body: body)
    }
}

/// A stand-in for the system resolver that records the names asked.
final class FakeSystemResolver: HostResolving {
    private let result: @Sendable (String) throws -> [IPAddress]
    private let log = LockedValue<[String]>([])

    init(_ result: @escaping @Sendable (String) throws -> [IPAddress]) {
        self.result = result
    }

    convenience init(addresses: [String]) {
        self.init { _ in addresses.map { IPAddress($0)! } }
    }

    var lookups: [String] { log.withLock { $0 } }

    func resolve(host: String, port: Int) async throws -> HostResolution {
        log.withLock { $0.append(host) }
        return HostResolution(host: host, addresses: try result(host), ttl: nil, source: .system)
    }
}

struct TransportFailure: Error, CustomStringConvertible {
    var description: String
}
