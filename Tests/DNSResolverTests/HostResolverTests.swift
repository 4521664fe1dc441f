import DNSResolver
import Foundation
import HTTPDNSCore
import Testing

@Suite("HostResolver")
struct HostResolverTests {
    @Test func configurationDefaults() {
        let configuration = HostResolver.Configuration()
        #expect(configuration.endpoints == DoHEndpoint.wellKnown)
        #expect(configuration.families == .both)
        #expect(configuration.requestTimeout == 5)
        #expect(configuration.fallbackToSystemResolver)
        #expect(configuration.staticEntries.isEmpty)
        #expect(configuration.minimumTTL == 0)
        #expect(configuration.maximumTTL == 86_400)
        #expect(configuration.negativeCacheTTLCap == 300)
        #expect(configuration.maxResponseBytes == 65_535)
        #expect(!HostResolver.Configuration.strict.fallbackToSystemResolver)
    }

    @Test func theConfiguredTimeoutReachesTheTransport() async throws {
        let harness = try ResolverHarness { $0.requestTimeout = 2.5 }
        _ = try await harness.resolve("a.test")
        #expect(harness.transport.requests.allSatisfy { $0.timeout == 2.5 })
    }

    @Test func anIPLiteralIsReturnedWithoutAnyQuery() async throws {
        let harness = try ResolverHarness()
        let v4 = try await harness.resolve("192.0.2.80")
        let v6 = try await harness.resolve("[2001:DB8::80]")
        #expect(v4 == HostResolution(host: "192.0.2.80", addresses: [IPAddress("192.0.2.80")!], ttl: nil, source: .literal))
        #expect(v6.addresses == [IPAddress("2001:db8::80")!])
        #expect(v6.source == .literal)
        #expect(harness.queries == 0)
        #expect(harness.system.lookups.isEmpty)
    }

    @Test func anInvalidNameIsRejectedWithoutAnyQuery() async throws {
        let harness = try ResolverHarness()
        await #expect(throws: ResolutionError.invalidHostName("a..test")) { try await harness.resolve("a..test") }
        await #expect(throws: ResolutionError.invalidHostName("")) { try await harness.resolve("") }
        #expect(harness.queries == 0)
    }

    @Test func aNameDNSCannotCarryIsInvalidAndNotSentAnywhere() async throws {
        let harness = try ResolverHarness()
        await #expect(throws: ResolutionError.invalidHostName("a b.test")) { try await harness.resolve("a b.test") }
        await #expect(throws: ResolutionError.invalidHostName("xn--zz-.test")) { try await harness.resolve("xn--zz-.test") }
        #expect(harness.queries == 0)
        #expect(harness.system.lookups.isEmpty)
    }

    @Test func aStaticEntryWinsOverDoH() async throws {
        let harness = try ResolverHarness {
            $0.staticEntries = [StaticHostResolver.Entry(host: "A.test", port: 443, addresses: [IPAddress("203.0.113.5")!])]
        }
        let resolution = try await harness.resolve("a.test.")
        #expect(resolution == HostResolution(host: "a.test", addresses: [IPAddress("203.0.113.5")!], ttl: nil, source: .staticMapping))
        #expect(harness.queries == 0)
    }

    @Test func aStaticEntryAppliesOnlyToItsPort() async throws {
        let harness = try ResolverHarness {
            $0.staticEntries = [try! StaticHostResolver.Entry(parsing: "a.test:8443:203.0.113.5")]
        }
        #expect(try await harness.resolve("a.test", port: 8443).source == .staticMapping)
        #expect(try await harness.resolve("a.test", port: 443).source == .doh(endpoint: ResolverHarness.first.url))
    }

    @Test func theConfiguredFamiliesDecideWhichRecordsAreAsked() async throws {
        let harness = try ResolverHarness { $0.families = .ipv6 }
        let resolution = try await harness.resolve("a.test")
        #expect(resolution.addresses == [IPAddress("2001:db8::1")!])
        #expect(harness.transport.requests.compactMap { $0.question?.type } == [DNSFixture.typeAAAA])
    }

    @Test func theRequestedNameIsSentNormalized() async throws {
        let harness = try ResolverHarness()
        _ = try await harness.resolve("A.TEST.")
        #expect(Set(harness.transport.requests.compactMap { $0.question?.name }) == ["a.test"])
    }
}
