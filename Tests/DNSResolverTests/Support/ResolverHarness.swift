import DNSResolver
import Foundation
import HTTPDNSCore

/// A `HostResolver` wired to fakes: two DoH endpoints, a fake system resolver and a manual clock.
struct ResolverHarness {
    static let first = DoHEndpoint(url: URL(string: "https://one.test/dns-query")!, bootstrapAddresses: [IPAddress("192.0.2.101")!])
    static let second = DoHEndpoint(url: URL(string: "https://two.test:8443/dns-query")!, bootstrapAddresses: [IPAddress("192.0.2.102")!])
    static let zone = FakeZone(hosts: [
        "a.test": .init(ipv4: ["192.0.2.1"], ipv6: ["2001:db8::1"], ttl: 300),
        "v4only.test": .init(ipv4: ["192.0.2.4"], ttl: 300),
        "nodata.test": .init()
    ])
    static let systemAddresses = ["198.51.100.7", "2001:db8:ffff::7"]

    let transport: FakeDoHTransport
    let system: FakeSystemResolver
    let clock = ManualClock()
    let resolver: HostResolver

    init(
        transport: FakeDoHTransport = FakeDoHTransport(zone: ResolverHarness.zone),
        system: FakeSystemResolver = FakeSystemResolver(addresses: ResolverHarness.systemAddresses),
        configure: (inout HostResolver.Configuration) -> Void = { _ in }
    ) throws(InvalidDurationError) {
        var configuration = HostResolver.Configuration(endpoints: [Self.first, Self.second])
        // The suites count queries and drive a manual clock: HTTPS records only where a test asks.
        configuration.asksForServiceBindings = false
        configure(&configuration)
        self.transport = transport
        self.system = system
        self.resolver = try HostResolver(configuration: configuration, transport: transport, systemResolver: system, clock: clock)
    }

    /// A transport where `failing` endpoints answer with `fault`, and the others from `zone`.
    static func transport(
        failing: Set<String>, zone: FakeZone = ResolverHarness.zone,
        fault: @escaping @Sendable (FakeDoHTransport.Request) throws -> DoHHTTPResponse
    ) -> FakeDoHTransport {
        FakeDoHTransport { request in
            failing.contains(request.endpoint) ? try fault(request) : zone.respond(to: request.query)
        }
    }

    func resolve(_ host: String, port: Int = 443) async throws -> HostResolution {
        try await resolver.resolve(host: host, port: port)
    }

    /// The number of DoH requests sent so far.
    var queries: Int { transport.requests.count }
}
