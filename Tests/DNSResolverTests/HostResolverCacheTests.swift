import DNSResolver
import Foundation
import HTTPDNSCore
import Testing

@Suite("HostResolver cache")
struct HostResolverCacheTests {
    /// A transport answering `ttl.test` with the given TTL.
    static func zone(ttl: UInt32) -> FakeDoHTransport {
        FakeDoHTransport(zone: FakeZone(hosts: ["ttl.test": .init(ipv4: ["192.0.2.7"], ipv6: ["2001:db8::7"], ttl: ttl)]))
    }

    @Test func aRepeatLookupWithinTheTTLIsServedFromTheCache() async throws {
        let harness = try ResolverHarness()
        let first = try await harness.resolve("a.test")
        harness.clock.advance(by: 100)
        let second = try await harness.resolve("a.test")
        #expect(first.source == .doh(endpoint: ResolverHarness.first.url))
        #expect(first.ttl == 300)
        #expect(second.source == .cache)
        #expect(second.ttl == 200)
        #expect(second.addresses == first.addresses)
        #expect(harness.queries == 2, "one A and one AAAA query in all")
    }

    @Test func anEntryIsRequeriedOnceItsTTLHasPassed() async throws {
        let harness = try ResolverHarness()
        _ = try await harness.resolve("a.test")
        harness.clock.advance(by: 300)
        let again = try await harness.resolve("a.test")
        #expect(again.source == .doh(endpoint: ResolverHarness.first.url))
        #expect(harness.queries == 4)
    }

    @Test func aLongTTLIsClampedToTheMaximum() async throws {
        let harness = try ResolverHarness(transport: Self.zone(ttl: 604_800)) { $0.maximumTTL = 3_600 }
        let resolution = try await harness.resolve("ttl.test")
        #expect(resolution.ttl == 3_600)
        harness.clock.advance(by: 3_599)
        #expect(try await harness.resolve("ttl.test").source == .cache)
        harness.clock.advance(by: 1)
        #expect(try await harness.resolve("ttl.test").source == .doh(endpoint: ResolverHarness.first.url))
    }

    @Test func theDefaultMaximumTTLIsOneDay() async throws {
        let harness = try ResolverHarness(transport: Self.zone(ttl: 604_800))
        #expect(try await harness.resolve("ttl.test").ttl == 86_400)
    }

    @Test func aShortTTLIsRaisedToTheMinimum() async throws {
        let harness = try ResolverHarness(transport: Self.zone(ttl: 5)) { $0.minimumTTL = 60 }
        #expect(try await harness.resolve("ttl.test").ttl == 60)
        harness.clock.advance(by: 59)
        #expect(try await harness.resolve("ttl.test").source == .cache)
        #expect(harness.queries == 2)
    }

    @Test func aZeroTTLAnswerIsUsedButNotCached() async throws {
        let harness = try ResolverHarness(transport: Self.zone(ttl: 0))
        let first = try await harness.resolve("ttl.test")
        let second = try await harness.resolve("ttl.test")
        #expect(first.ttl == 0)
        #expect(first.addresses == [IPAddress("2001:db8::7")!, IPAddress("192.0.2.7")!])
        #expect(second.source == .doh(endpoint: ResolverHarness.first.url))
        #expect(harness.queries == 4)
        #expect(harness.resolver.cachedResolution(host: "ttl.test") == nil)
    }

    @Test func nxdomainIsCachedAndRethrownWithTheRemainingTTL() async throws {
        let events = EventRecorder()
        let harness = try ResolverHarness { $0.observer = events }
        await #expect(throws: ResolutionError.nameNotFound(host: "missing.test", negativeTTL: 60)) {
            try await harness.resolve("missing.test")
        }
        harness.clock.advance(by: 45)
        await #expect(throws: ResolutionError.nameNotFound(host: "missing.test", negativeTTL: 15)) {
            try await harness.resolve("missing.test")
        }
        #expect(harness.queries == 2)
        #expect(
            events.events.filter { $0.hasSuffix(" missing.test") && !$0.hasPrefix("answer") }
                == ["miss missing.test", "negative hit missing.test"], "the cached NXDOMAIN is reported as a hit")
        harness.clock.advance(by: 15)
        await #expect(throws: ResolutionError.nameNotFound(host: "missing.test", negativeTTL: 60)) {
            try await harness.resolve("missing.test")
        }
        #expect(harness.queries == 4)
    }

    @Test func noDataIsCachedNegatively() async throws {
        let harness = try ResolverHarness()
        await #expect(throws: ResolutionError.noAddresses(host: "nodata.test", negativeTTL: 60)) {
            try await harness.resolve("nodata.test")
        }
        harness.clock.advance(by: 10)
        await #expect(throws: ResolutionError.noAddresses(host: "nodata.test", negativeTTL: 50)) {
            try await harness.resolve("nodata.test")
        }
        #expect(harness.queries == 2)
    }

    @Test func theNegativeTTLIsCapped() async throws {
        var zone = ResolverHarness.zone
        zone.negativeTTL = 86_400
        let harness = try ResolverHarness(transport: FakeDoHTransport(zone: zone)) { $0.negativeCacheTTLCap = 30 }
        await #expect(throws: ResolutionError.nameNotFound(host: "missing.test", negativeTTL: 30)) {
            try await harness.resolve("missing.test")
        }
        harness.clock.advance(by: 30)
        _ = try? await harness.resolve("missing.test")
        #expect(harness.queries == 4)
    }

    @Test func aNegativeAnswerWithoutSOAIsNotCached() async throws {
        var zone = ResolverHarness.zone
        zone.negativeTTL = nil
        let harness = try ResolverHarness(transport: FakeDoHTransport(zone: zone))
        _ = try? await harness.resolve("missing.test")
        await #expect(throws: ResolutionError.nameNotFound(host: "missing.test", negativeTTL: nil)) {
            try await harness.resolve("missing.test")
        }
        #expect(harness.queries == 4)
    }

    @Test func namesDifferingInCaseAndTrailingDotShareAnEntry() async throws {
        let harness = try ResolverHarness()
        let first = try await harness.resolve("A.Test.")
        let second = try await harness.resolve("a.test")
        #expect(first.host == "a.test")
        #expect(second.source == .cache)
        #expect(harness.queries == 2)
    }

    @Test func familySelectionsAreCachedSeparately() async throws {
        let harness = try ResolverHarness()
        _ = try await harness.resolver.resolve(host: "a.test", port: 443, families: .ipv4)
        let both = try await harness.resolver.resolve(host: "a.test", port: 443, families: .both)
        #expect(both.source == .doh(endpoint: ResolverHarness.first.url))
        #expect(both.addresses.count == 2)
        #expect(harness.queries == 3)
    }

    @Test func cachedResolutionShowsTheEntryWithoutQuerying() async throws {
        let harness = try ResolverHarness()
        #expect(harness.resolver.cachedResolution(host: "a.test") == nil)
        _ = try await harness.resolve("a.test")
        harness.clock.advance(by: 1)
        let cached = try #require(harness.resolver.cachedResolution(host: "A.TEST"))
        #expect(
            cached
                == HostResolution(
                    host: "a.test", addresses: [IPAddress("2001:db8::1")!, IPAddress("192.0.2.1")!], ttl: 299, source: .cache))
        #expect(harness.queries == 2)
    }

    @Test func flushForgetsEverything() async throws {
        let harness = try ResolverHarness()
        _ = try await harness.resolve("a.test")
        _ = try await harness.resolve("v4only.test")
        harness.resolver.flush()
        #expect(harness.resolver.cachedResolution(host: "a.test") == nil)
        #expect(harness.resolver.cachedResolution(host: "v4only.test") == nil)
    }

    @Test func flushingOneHostKeepsTheOthers() async throws {
        let harness = try ResolverHarness()
        _ = try await harness.resolve("a.test")
        _ = try await harness.resolve("v4only.test")
        harness.resolver.flush(host: "A.test.")
        #expect(harness.resolver.cachedResolution(host: "a.test") == nil)
        #expect(harness.resolver.cachedResolution(host: "v4only.test") != nil)
    }
}
