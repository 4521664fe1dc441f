import DNSResolver
import Foundation
import HTTPDNSCore
import Testing

@Suite("HostResolver failover")
struct HostResolverFailoverTests {
    static let first = ResolverHarness.first.url.absoluteString
    static let second = ResolverHarness.second.url.absoluteString

    static let faults: [(String, @Sendable (FakeDoHTransport.Request) throws -> DoHHTTPResponse)] = [
        ("HTTP 500", { _ in DoHHTTPResponse(status: 500, contentType: "text/html", body: Data()) }),
        (
            "wrong content type",
            { request in
                DoHHTTPResponse(status: 200, contentType: "application/json", body: ResolverHarness.zone.respond(to: request.query).body)
            }
        ),
        ("garbage body", { _ in .dns(Data("not dns".utf8)) }),
        ("SERVFAIL", { request in .dns(DNSFixture.response(to: request.query, code: .serverFailure)) }),
        ("transport error", { _ in throw TransportFailure(description: "TLS handshake failed") })
    ]

    @Test(arguments: 0..<faults.count)
    func aFailingEndpointFailsOverToTheNext(fault index: Int) async throws {
        let harness = try ResolverHarness(transport: ResolverHarness.transport(failing: [Self.first], fault: Self.faults[index].1))
        let resolution = try await harness.resolve("a.test")
        #expect(resolution.addresses == [IPAddress("2001:db8::1")!, IPAddress("192.0.2.1")!], "\(Self.faults[index].0)")
        #expect(resolution.source == .doh(endpoint: ResolverHarness.second.url))
        #expect(harness.system.lookups.isEmpty)
    }

    @Test func endpointsAreTriedInOrder() async throws {
        let harness = try ResolverHarness(
            transport: ResolverHarness.transport(failing: [Self.first]) { _ in
                DoHHTTPResponse(status: 503, contentType: nil, body: Data())
            })
        _ = try await harness.resolve("a.test")
        let order = harness.transport.requests.map(\.endpoint)
        #expect(order == [Self.first, Self.first, Self.second, Self.second])
    }

    @Test func everyEndpointFailingFallsBackToTheSystemResolver() async throws {
        let harness = try ResolverHarness(
            transport: ResolverHarness.transport(failing: [Self.first, Self.second]) { _ in
                DoHHTTPResponse(status: 500, contentType: nil, body: Data())
            })
        let resolution = try await harness.resolve("a.test")
        #expect(resolution.source == .system)
        #expect(resolution.addresses.map(\.description) == ResolverHarness.systemAddresses)
        #expect(harness.system.lookups == ["a.test"])
    }

    @Test func withoutFallbackEveryEndpointsFailureIsListed() async throws {
        let harness = try ResolverHarness(
            transport: ResolverHarness.transport(failing: [Self.first, Self.second]) { request in
                if request.endpoint == Self.first { throw TransportFailure(description: "connection timed out") }
                return DoHHTTPResponse(status: 500, contentType: nil, body: Data())
            },
            configure: { $0.fallbackToSystemResolver = false })
        await #expect(
            throws: ResolutionError.resolverUnavailable(
                host: "a.test",
                reasons: [
                    "https://one.test/dns-query: connection timed out",
                    "https://two.test:8443/dns-query: HTTP 500"
                ])
        ) {
            try await harness.resolve("a.test")
        }
        #expect(harness.system.lookups.isEmpty)
    }

    @Test func aFailingSystemResolverAddsItsReasonAfterTheEndpoints() async throws {
        let system = FakeSystemResolver { host in
            throw ResolutionError.resolverUnavailable(host: host, reasons: ["getaddrinfo: Temporary failure in name resolution"])
        }
        let harness = try ResolverHarness(
            transport: ResolverHarness.transport(failing: [Self.first, Self.second]) { _ in
                DoHHTTPResponse(status: 500, contentType: nil, body: Data())
            },
            system: system)
        await #expect(
            throws: ResolutionError.resolverUnavailable(
                host: "a.test",
                reasons: [
                    "https://one.test/dns-query: HTTP 500",
                    "https://two.test:8443/dns-query: HTTP 500",
                    "system resolver: getaddrinfo: Temporary failure in name resolution"
                ])
        ) {
            try await harness.resolve("a.test")
        }
    }

    @Test func nxdomainIsFinalWithoutFailoverOrFallback() async throws {
        let harness = try ResolverHarness()
        await #expect(throws: ResolutionError.nameNotFound(host: "missing.test", negativeTTL: 60)) {
            try await harness.resolve("missing.test")
        }
        #expect(Set(harness.transport.requests.map(\.endpoint)) == [Self.first])
        #expect(harness.system.lookups.isEmpty)
    }

    @Test func noDataIsNoAddressesWithoutFallback() async throws {
        let harness = try ResolverHarness()
        await #expect(throws: ResolutionError.noAddresses(host: "nodata.test", negativeTTL: 60)) {
            try await harness.resolve("nodata.test")
        }
        #expect(harness.system.lookups.isEmpty)
    }

    @Test func systemAnswersAreFilteredToTheConfiguredFamilies() async throws {
        let harness = try ResolverHarness(
            transport: ResolverHarness.transport(failing: [Self.first, Self.second]) { _ in
                throw TransportFailure(description: "unreachable")
            },
            configure: { $0.families = .ipv4 })
        let resolution = try await harness.resolve("a.test")
        #expect(resolution.addresses == [IPAddress("198.51.100.7")!])
    }

    @Test func systemAnswersAreNotCached() async throws {
        let harness = try ResolverHarness(
            transport: ResolverHarness.transport(failing: [Self.first, Self.second]) { _ in
                throw TransportFailure(description: "unreachable")
            })
        _ = try await harness.resolve("a.test")
        _ = try await harness.resolve("a.test")
        #expect(harness.system.lookups.count == 2)
        #expect(harness.resolver.cachedResolution(host: "a.test") == nil)
    }

    @Test func noEndpointsGoesStraightToTheSystemResolver() async throws {
        let harness = try ResolverHarness { $0.endpoints = [] }
        let resolution = try await harness.resolve("a.test")
        #expect(resolution.source == .system)
        #expect(harness.queries == 0)
    }
}
