import DNSResolver
import Foundation
import HTTPDNSCore
import Synchronization
import Testing
import TestSupport

/// The synchronous cache-hit path and the sharded cache behind it: shortcuts taken for speed must
/// not change which names are literals, which are bypassed, or which entry is evicted.
@Suite("HostResolver hit path")
struct HostResolverHitPathTests {
    static let names = (0..<40).map { "host\($0).test" }
    static let zone = FakeZone(
        hosts: Dictionary(
            uniqueKeysWithValues: names.enumerated().map { index, name in
                (name, FakeZone.Host(ipv4: ["192.0.2.\(index + 1)"], ttl: 300))
            } + [("cafe.de", FakeZone.Host(ipv4: ["192.0.2.200"], ttl: 300))]))

    @Test func aNameOfHexDigitsAndDotsIsResolvedNotTakenForALiteral() async throws {
        let harness = try ResolverHarness(transport: FakeDoHTransport(zone: Self.zone)) { $0.families = .ipv4 }
        let resolution = try await harness.resolve("CAFE.de")
        #expect(resolution.source == .doh(endpoint: ResolverHarness.first.url))
        #expect(resolution.addresses == [IPAddress("192.0.2.200")!])
        #expect(try await harness.resolve("cafe.de").source == .cache)
    }

    @Test func ipv4MappedAndCompressedIPv6LiteralsAreStillLiterals() async throws {
        let harness = try ResolverHarness()
        for literal in ["::ffff:192.0.2.1", "fe80::1", "[::1]", "10.0.0.1"] {
            #expect(try await harness.resolve(literal).source == .literal, "\(literal)")
        }
        #expect(harness.queries == 0)
    }

    @Test func wildcardAndMixedCaseBypassEntriesMatchByteForByte() async throws {
        let harness = try ResolverHarness { $0.bypassList = ["*.Wild.TEST", "Exact.Test"] }
        #expect(harness.resolver.bypasses("wild.test"))
        #expect(harness.resolver.bypasses("a.b.wild.test"))
        #expect(harness.resolver.bypasses("exact.test"))
        #expect(harness.resolver.bypasses("localhost"))
        #expect(harness.resolver.bypasses("a.localhost"))
        #expect(!harness.resolver.bypasses("notwild.test"))
        #expect(!harness.resolver.bypasses("sub.exact.test"))
        #expect(!harness.resolver.bypasses("localhost.test"))
        #expect(!harness.resolver.bypasses("host"))
    }

    @Test func resolveImmediatelyAnswersWhatIsKnownAndAsksNothing() async throws {
        let harness = try ResolverHarness(transport: FakeDoHTransport(zone: Self.zone)) { $0.families = .ipv4 }
        #expect(try harness.resolver.resolveImmediately(host: "host1.test", port: 443) == nil)
        #expect(harness.queries == 0)
        #expect(try harness.resolver.resolveImmediately(host: "10.0.0.1", port: 443)?.source == .literal)
        _ = try await harness.resolve("host1.test")
        let known = try #require(try harness.resolver.resolveImmediately(host: "HOST1.test.", port: 443))
        #expect(known.source == .cache)
        #expect(known.addresses == [IPAddress("192.0.2.2")!])
        #expect(harness.queries == 1)
        #expect(throws: ResolutionError.self) { try harness.resolver.resolveImmediately(host: "bad..name", port: 443) }
    }

    @Test func evictionIsLeastRecentlyUsedAcrossTheWholeCache() async throws {
        let harness = try ResolverHarness(transport: FakeDoHTransport(zone: Self.zone)) {
            $0.cacheCapacity = 30; $0.families = .ipv4
        }
        for name in Self.names.prefix(30) { _ = try await harness.resolve(name) }
        // Every name but host7 is used again, so host7 is the least recently used whatever its shard.
        for name in Self.names.prefix(30) where name != "host7.test" { _ = try await harness.resolve(name) }
        _ = try await harness.resolve("host30.test")
        #expect(harness.resolver.cachedCount == 30)
        #expect(harness.resolver.cachedResolution(host: "host7.test") == nil)
        for name in Self.names.prefix(31) where name != "host7.test" {
            #expect(harness.resolver.cachedResolution(host: name) != nil, "\(name)")
        }
    }

    @Test func concurrentHitsAllComeFromTheCache() async throws {
        let harness = try ResolverHarness(transport: FakeDoHTransport(zone: Self.zone)) { $0.families = .ipv4 }
        for name in Self.names { _ = try await harness.resolve(name) }
        let queries = harness.queries
        let resolver = harness.resolver
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
                group.addTask {
                    for round in 0..<200 {
                        let index = (task * 7 + round) % Self.names.count
                        let resolution = try await resolver.resolve(host: Self.names[index], port: 443)
                        #expect(resolution.source == .cache)
                        #expect(resolution.addresses == [IPAddress("192.0.2.\(index + 1)")!])
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(harness.queries == queries)
        #expect(resolver.cachedCount == Self.names.count)
    }

    @Test func flushEmptiesEveryShard() async throws {
        let harness = try ResolverHarness(transport: FakeDoHTransport(zone: Self.zone)) { $0.families = .ipv4 }
        for name in Self.names { _ = try await harness.resolve(name) }
        #expect(harness.resolver.cachedCount == Self.names.count)
        harness.resolver.flush(host: "host3.test")
        #expect(harness.resolver.cachedCount == Self.names.count - 1)
        harness.resolver.flush()
        #expect(harness.resolver.cachedCount == 0)
        #expect(Self.names.allSatisfy { harness.resolver.cachedResolution(host: $0) == nil })
    }

    @Test func aHitOnTheSystemClockReportsTheLatencyMeasured() async throws {
        // The default clock is read directly on the hit path rather than through the protocol.
        let resolver = try HostResolver(
            configuration: .init(endpoints: [ResolverHarness.first], families: .ipv4),
            transport: FakeDoHTransport(zone: Self.zone), systemResolver: FakeSystemResolver(addresses: []))
        _ = try await resolver.resolve(host: "host1.test", port: 443)
        let hit = try await resolver.resolve(host: "host1.test", port: 443)
        #expect(hit.source == .cache)
        #expect(hit.provider == "doh")
        // Measured on the system clock: a hit takes microseconds, and the TTL has barely moved
        // (bounds with room for a loaded machine, scaled under the sanitizers, where this test took 30 s).
        let latency = try #require(hit.latency)
        #expect(latency >= 0 && latency < TestTimeScale.scaled(5))
        let ttl = try #require(hit.ttl)
        #expect(ttl > 300 - TestTimeScale.scaled(10) && ttl <= 300)
    }

    @Test func theObserverSeesTheHitThatIsReturned() async throws {
        let observer = ResolutionRecorder()
        let harness = try ResolverHarness(transport: FakeDoHTransport(zone: Self.zone)) {
            $0.families = .ipv4
            $0.observer = observer
            $0.maximumStaleness = 60
        }
        _ = try await harness.resolve("host2.test")
        harness.clock.advance(by: 100)
        let fresh = try await harness.resolve("host2.test")
        #expect(fresh.ttl == 200)
        #expect(fresh.latency == 0)
        harness.clock.advance(by: 210)
        let stale = try await harness.resolve("host2.test")
        #expect(stale.isStale && stale.ttl == 0)
        let seen = observer.resolutions
        #expect(seen.count == 2)
        for (returned, observed) in zip([fresh, stale], seen) {
            #expect(observed == returned)
            #expect(observed.provider == returned.provider && observed.latency == returned.latency)
        }
    }
}

/// Keeps the resolutions of cache hits and stale answers, in order.
private final class ResolutionRecorder: ResolverObserver {
    private let log = LockedValue<[HostResolution]>([])
    var resolutions: [HostResolution] { log.withLock { $0 } }
    func cacheHit(host: String, resolution: HostResolution) { log.withLock { $0.append(resolution) } }
    func staleAnswerServed(host: String, resolution: HostResolution, expiredFor: TimeInterval) { log.withLock { $0.append(resolution) } }
}
