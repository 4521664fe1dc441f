@testable import DNSResolver
import Foundation
import HTTPDNSCore
import Synchronization
import Testing

/// Failover health, racing, bootstrap rotation, stale reuse, refresh-ahead, pre-resolution, LRU, bypass,
/// IDNA and observation, with fakes and a manual clock.
@Suite("HostResolver policy")
struct HostResolverPolicyTests {
    static let failing = ResolverHarness.transport(failing: [ResolverHarness.first.url.absoluteString]) { _ in
        DoHHTTPResponse(status: 503, contentType: "text/plain", body: Data())
    }

    // MARK: Health and failover

    @Test func aProviderFailingNTimesInARowIsSkippedForTheBackOffThenProbed() async throws {
        let events = EventRecorder()
        let harness = try ResolverHarness(transport: Self.failing) {
            $0.failureThreshold = 2
            $0.failureBackoff = 60
            $0.families = .ipv4
            $0.observer = events
        }
        for name in ["a.test", "v4only.test"] {
            _ = try await harness.resolve(name)
            harness.resolver.flush()
        }
        #expect(harness.resolver.providerHealth()[0].consecutiveFailures == 2)
        #expect(harness.resolver.providerHealth()[0].skippedUntil != nil)
        let before = harness.queries
        _ = try await harness.resolve("a.test")
        #expect(harness.queries == before + 1, "only the second endpoint was asked")
        #expect(events.events.contains("skipped a.test one.test 2"))
        harness.resolver.flush()
        harness.clock.advance(by: 60)
        _ = try await harness.resolve("a.test")
        #expect(harness.queries == before + 3, "after the back-off the first endpoint is probed again")
    }

    @Test func whenEveryProviderIsInBackOffTheyAreStillTried() async throws {
        let harness = try ResolverHarness(
            transport: ResolverHarness.transport(failing: [ResolverHarness.first.url.absoluteString, ResolverHarness.second.url.absoluteString]) { _ in
                throw TransportFailure(description: "connection refused")
            }
        ) {
            $0.failureThreshold = 1
            $0.fallbackToSystemResolver = false
            $0.families = .ipv4
        }
        await #expect(throws: ResolutionError.self) { try await harness.resolve("a.test") }
        await #expect(throws: ResolutionError.self) { try await harness.resolve("a.test") }
        #expect(harness.queries == 4)
    }

    @Test func aSuccessResetsTheFailureCount() async throws {
        let flaky = FlakyFlag()
        let transport = FakeDoHTransport { request in
            if request.endpoint == ResolverHarness.first.url.absoluteString, flaky.fail { throw TransportFailure(description: "reset") }
            return ResolverHarness.zone.respond(to: request.query)
        }
        let harness = try ResolverHarness(transport: transport) { $0.families = .ipv4 }
        _ = try await harness.resolve("a.test")
        #expect(harness.resolver.providerHealth()[0].consecutiveFailures == 1)
        flaky.fail = false
        harness.resolver.flush()
        _ = try await harness.resolve("a.test")
        #expect(harness.resolver.providerHealth()[0].consecutiveFailures == 0)
    }

    @Test func bootstrapAddressesRotateAfterAFailure() async throws {
        var first = ResolverHarness.first
        first.bootstrapAddresses = ["192.0.2.101", "192.0.2.111"].map { IPAddress($0)! }
        let transport = ResolverHarness.transport(failing: [first.url.absoluteString]) { _ in throw TransportFailure(description: "timeout") }
        let harness = try ResolverHarness(transport: transport) {
            $0.endpoints = [first, ResolverHarness.second]
            $0.families = .ipv4
        }
        _ = try await harness.resolve("a.test")
        harness.resolver.flush()
        _ = try await harness.resolve("a.test")
        let tried = harness.transport.requests.filter { $0.endpoint == first.url.absoluteString }.map { $0.connectTo.first?.description }
        #expect(tried == ["192.0.2.101", "192.0.2.111"])
    }

    @Test func racingTakesTheFirstAnswerAndCancelsTheSlowProvider() async throws {
        let transport = FakeDoHTransport { request in
            if request.endpoint == ResolverHarness.first.url.absoluteString {
                try await Task.sleep(for: .seconds(60)) // cancelled by the race, never waited out
            }
            return ResolverHarness.zone.respond(to: request.query)
        }
        let harness = try ResolverHarness(transport: transport) { $0.racesFirstTwoProviders = true }
        let started = ContinuousClock.now
        let resolution = try await harness.resolve("a.test")
        #expect(resolution.source == .doh(endpoint: ResolverHarness.second.url))
        #expect(ContinuousClock.now - started < .seconds(30), "the slow provider sleeps 60 s unless cancelled")
        // Losing a race is not failing: the slow provider is not counted toward being skipped.
        for name in ["b.test", "c.test", "d.test"] { _ = try? await harness.resolve(name) }
        #expect(harness.resolver.providerHealth().map(\.consecutiveFailures) == [0, 0])
    }

    @Test func aProviderAnswering429FailsOverToTheNextNeverNXDOMAIN() async throws {
        let harness = try ResolverHarness(
            transport: ResolverHarness.transport(failing: [ResolverHarness.first.url.absoluteString]) { _ in
                DoHHTTPResponse(status: 429, contentType: "text/plain", body: Data("slow down".utf8))
            }
        ) { $0.fallbackToSystemResolver = false }
        let resolution = try await harness.resolve("a.test")
        #expect(resolution.source == .doh(endpoint: ResolverHarness.second.url))
        #expect(resolution.provider == "doh")
    }

    // MARK: Cache policy

    @Test func aStaleAnswerIsServedAtOnceWhileABackgroundRefreshRuns() async throws {
        let events = EventRecorder()
        let harness = try ResolverHarness {
            $0.maximumStaleness = 600; $0.observer = events
        }
        _ = try await harness.resolve("a.test")
        harness.clock.advance(by: 310)
        let stale = try await harness.resolve("a.test")
        #expect(stale.isStale)
        #expect(stale.source == .cache)
        #expect(stale.ttl == 0)
        #expect(events.events.contains("stale a.test 10"))
        await harness.resolver.waitForRefresh(host: "a.test")
        #expect(harness.queries == 4)
        let fresh = try await harness.resolve("a.test")
        #expect(!fresh.isStale)
        #expect(fresh.ttl == 300)
    }

    @Test func anAnswerStalerThanTheCapIsNotServed() async throws {
        let harness = try ResolverHarness { $0.maximumStaleness = 600 }
        _ = try await harness.resolve("a.test")
        harness.clock.advance(by: 901)
        let resolution = try await harness.resolve("a.test")
        #expect(!resolution.isStale)
        #expect(resolution.source == .doh(endpoint: ResolverHarness.first.url))
    }

    @Test func withoutStaleReuseAnExpiredAnswerIsRequeriedInline() async throws {
        let harness = try ResolverHarness()
        _ = try await harness.resolve("a.test")
        harness.clock.advance(by: 301)
        #expect(try await harness.resolve("a.test").source == .doh(endpoint: ResolverHarness.first.url))
    }

    @Test func anAnswerUsedShortlyBeforeExpiryIsRefreshedAhead() async throws {
        let events = EventRecorder()
        let harness = try ResolverHarness {
            $0.refreshAheadWindow = 30; $0.observer = events
        }
        _ = try await harness.resolve("a.test")
        harness.clock.advance(by: 200)
        #expect(try await harness.resolve("a.test").source == .cache)
        #expect(harness.queries == 2, "far from expiry: no refresh")
        harness.clock.advance(by: 80)
        let used = try await harness.resolve("a.test")
        #expect(used.source == .cache)
        #expect(used.ttl == 20)
        await harness.resolver.waitForRefresh(host: "a.test")
        #expect(harness.queries == 4)
        #expect(harness.resolver.cachedResolution(host: "a.test")?.ttl == 300)
        #expect(events.events.contains("refresh a.test refresh-ahead"))
    }

    @Test func aZeroTTLAnswerIsNotCachedEvenWithAMinimumTTL() async throws {
        let transport = FakeDoHTransport(zone: FakeZone(hosts: ["zero.test": .init(ipv4: ["192.0.2.9"], ttl: 0)]))
        let harness = try ResolverHarness(transport: transport) {
            $0.minimumTTL = 60; $0.families = .ipv4
        }
        #expect(try await harness.resolve("zero.test").ttl == 0)
        _ = try await harness.resolve("zero.test")
        #expect(harness.queries == 2)
    }

    @Test func theLeastRecentlyUsedEntryIsEvictedWhenFull() async throws {
        let harness = try ResolverHarness {
            $0.cacheCapacity = 2; $0.families = .ipv4
        }
        _ = try await harness.resolve("a.test")
        _ = try await harness.resolve("v4only.test")
        _ = try await harness.resolve("a.test") // a.test is now the most recently used
        await #expect(throws: ResolutionError.self) { try await harness.resolve("nodata.test") }
        #expect(harness.resolver.cachedResolution(host: "a.test") != nil)
        #expect(harness.resolver.cachedResolution(host: "v4only.test") == nil)
    }

    @Test func preResolveUsesTheBatchAPIOfTheFirstProvider() async throws {
        let transport = FakeDoHTransport { request in
            #expect(request.url.path == "/7/resolve")
            return DoHHTTPResponse(
                status: 200, contentType: "application/json",
                body: Data(#"{"dns":[{"host":"a.test","ips":["192.0.2.1"],"type":1,"ttl":60},{"host":"b.test","ips":["192.0.2.2"],"type":1,"ttl":60}]}"#.utf8))
        }
        let harness = try ResolverHarness(transport: transport) {
            $0.providers = [AlibabaHTTPDNSEndpoint(url: URL(string: "https://ali.test")!, accountID: "7")]
            $0.families = .ipv4
        }
        let cached = await harness.resolver.preResolve(["a.test", "B.test."])
        #expect(Set(cached) == ["a.test", "b.test"])
        #expect(harness.queries == 1)
        #expect(try await harness.resolve("b.test").addresses == [IPAddress("192.0.2.2")!])
        #expect(harness.queries == 1)
    }

    // MARK: Bypass, names, observation

    @Test func localhostAndTheBypassListGoToTheSystemResolver() async throws {
        let events = EventRecorder()
        let harness = try ResolverHarness {
            $0.bypassList = ["intranet.test", ".corp.test"]; $0.observer = events
        }
        for name in ["localhost", "app.localhost", "intranet.test", "corp.test", "git.corp.test"] {
            let resolution = try await harness.resolve(name)
            #expect(resolution.source == .system)
            #expect(resolution.provider == "system")
        }
        await #expect(throws: ResolutionError.self) { try await harness.resolve("notcorp.test.") }
        #expect(harness.queries > 0, "a name that only ends like a suffix is not bypassed")
        #expect(harness.system.lookups.prefix(5) == ["localhost", "app.localhost", "intranet.test", "corp.test", "git.corp.test"])
        #expect(events.events.contains("bypass localhost"))
    }

    @Test func unicodeNamesAreQueriedAndCachedAsALabels() async throws {
        let transport = FakeDoHTransport(zone: FakeZone(hosts: ["xn--bcher-kva.test": .init(ipv4: ["192.0.2.44"], ttl: 300)]))
        let harness = try ResolverHarness(transport: transport) { $0.families = .ipv4 }
        let resolution = try await harness.resolve("Bücher.TEST.")
        #expect(resolution.host == "xn--bcher-kva.test")
        #expect(harness.transport.requests.first?.question?.name == "xn--bcher-kva.test")
        #expect(try await harness.resolve("xn--bcher-kva.test").source == .cache)
    }

    @Test func observerSeesMissProviderAndHit() async throws {
        let events = EventRecorder()
        let harness = try ResolverHarness(transport: Self.failing) {
            $0.observer = events; $0.families = .ipv4
        }
        _ = try await harness.resolve("a.test")
        _ = try await harness.resolve("a.test")
        #expect(events.events == ["miss a.test", "failed a.test one.test", "answer a.test doh two.test", "hit a.test"])
    }

    @Test func fallbackIsObserved() async throws {
        let events = EventRecorder()
        let harness = try ResolverHarness(
            transport: ResolverHarness.transport(failing: [ResolverHarness.first.url.absoluteString, ResolverHarness.second.url.absoluteString]) { _ in
                throw TransportFailure(description: "down")
            }
        ) {
            $0.observer = events; $0.families = .ipv4
        }
        #expect(try await harness.resolve("a.test").source == .system)
        #expect(events.events.last == "fallback a.test")
    }
}

/// A switch a fake transport reads.
final class FlakyFlag: Sendable {
    private let flag = Atomic<Bool>(true)
    var fail: Bool {
        get { flag.load(ordering: .relaxed) }
        set { flag.store(newValue, ordering: .relaxed) }
    }
}

@Suite("Address family policy")
struct AddressFamilyPolicyTests {
    @Test func autoAsksOnlyForTheFamiliesWithARoute() async throws {
        // fe80::1 without a scope has no route (EINVAL / ENETUNREACH), 127.0.0.1 always has one.
        let probe = RouteProbe(ipv4Target: IPAddress("127.0.0.1")!, ipv6Target: IPAddress("fe80::1")!)
        #expect(probe.families() == .ipv4)
        let harness = try ResolverHarness {
            $0.families = .auto; $0.routeProbe = probe
        }
        let resolution = try await harness.resolve("a.test")
        #expect(resolution.addresses == [IPAddress("192.0.2.1")!])
        #expect(harness.transport.requests.count == 1, "only A was asked")
        #expect(harness.resolver.cachedResolution(host: "a.test", families: .ipv4) != nil)
    }

    @Test func autoWithRoutesForBothAsksForBoth() async throws {
        let probe = RouteProbe(ipv4Target: IPAddress("127.0.0.1")!, ipv6Target: IPAddress("127.0.0.1")!)
        #expect(probe.families() == .both)
    }
}
