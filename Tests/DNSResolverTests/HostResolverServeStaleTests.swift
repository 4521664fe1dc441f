@testable import DNSResolver
import Foundation
import HTTPDNSCore
import Synchronization
import Testing

/// RFC 8767 serve-stale, on the manual clock: no test sleeps for a timer or an expiry.
@Suite("HostResolver serve-stale (RFC 8767)")
struct HostResolverServeStaleTests {
    /// A harness with a.test cached and then expired by 10 s, the transport now in `mode`.
    static func expired(
        _ mode: TransportMode, events: EventRecorder = EventRecorder(),
        settings: HostResolver.Configuration.ServeStale = .rfc8767
    ) async throws -> (ResolverHarness, LockedValue<TransportMode>) {
        let switchable = LockedValue(TransportMode.answer)
        let harness = try ResolverHarness.switchable(switchable) {
            $0.serveStale = settings
            $0.observer = events
        }
        _ = try await harness.resolve("a.test")
        harness.clock.advance(by: 310)
        switchable.withLock { $0 = mode }
        return (harness, switchable)
    }

    @Test("a lookup still unanswered when the client response timer (1.8 s) fires gets the stale answer with the stale TTL (30 s); the lookup goes on and refreshes the cache")
    func theClientResponseTimerServesStale() async throws {
        let gate = Gate()
        let events = EventRecorder()
        let (harness, _) = try await Self.expired(.hold(gate), events: events)
        let lookup = Task { try await harness.resolve("a.test") }
        await harness.clock.waitForSleepers()
        harness.clock.advance(by: 1.7)
        #expect(harness.clock.sleepers == 1, "not before 1.8 s")
        harness.clock.advance(by: 0.1)
        let resolution = try await lookup.value
        #expect(resolution.isStale)
        #expect(resolution.ttl == 30)
        #expect(resolution.source == .cache)
        #expect(resolution.addresses == [IPAddress("192.0.2.1")!])
        #expect(events.events.contains("stale a.test 10"), "\(events.events)")
        #expect(harness.resolver.isRefreshing(host: "a.test"), "the lookup goes on")
        gate.open()
        #expect(await eventually { harness.resolver.cachedResolution(host: "a.test", families: .ipv4) != nil })
    }

    @Test("the observer is told why each stale answer was served")
    func staleAnswersAreReportedWithTheirReason() async throws {
        final class Reasons: ResolverObserver {
            let seen = Recorder<String>()
            func staleAnswerServed(host: String, resolution: HostResolution, expiredFor: TimeInterval, reason: StaleAnswerReason) {
                seen.append("\(host) \(reason.rawValue) \(Int(expiredFor))")
            }
        }
        let reasons = Reasons()
        let switchable = LockedValue(TransportMode.answer)
        let harness = try ResolverHarness.switchable(switchable) {
            $0.serveStale = .rfc8767; $0.observer = reasons
        }
        _ = try await harness.resolve("a.test")
        harness.clock.advance(by: 305)
        switchable.withLock { $0 = .fail }
        _ = try await harness.resolve("a.test")
        _ = try await harness.resolve("a.test")
        #expect(reasons.seen.all == ["a.test lookup-failed 5", "a.test failure-recheck 5"])
    }

    @Test("a fresh answer within the timer is served as usual")
    func aFreshAnswerInTimeWins() async throws {
        let (harness, _) = try await Self.expired(.answer)
        let resolution = try await harness.resolve("a.test")
        #expect(!resolution.isStale)
        #expect(resolution.ttl == 300)
        #expect(resolution.source == .doh(endpoint: ResolverHarness.first.url))
    }

    @Test("when no resolver answers, the stale answer is served at once, and for the failure recheck interval (30 s) without asking again")
    func aFailedLookupServesStaleAndHoldsOff() async throws {
        let (harness, switchable) = try await Self.expired(.fail)
        let before = harness.queries
        let first = try await harness.resolve("a.test")
        #expect(first.isStale)
        #expect(first.ttl == 30)
        let asked = harness.queries
        #expect(asked > before)
        harness.clock.advance(by: 29)
        #expect(try await harness.resolve("a.test").isStale)
        #expect(harness.queries == asked, "no query within the recheck interval")
        harness.clock.advance(by: 2)
        switchable.withLock { $0 = .answer }
        let fresh = try await harness.resolve("a.test")
        #expect(!fresh.isStale)
        #expect(harness.queries > asked)
    }

    @Test("NXDOMAIN is an answer: it is returned, not the stale data")
    func nxdomainIsNotHiddenByStaleData() async throws {
        let zoneWithout = FakeZone(hosts: [:])
        let answered = LockedValue(false)
        let transport = FakeDoHTransport { request in
            defer { answered.withLock { $0 = true } }
            return answered.withLock { $0 } ? zoneWithout.respond(to: request.query) : ResolverHarness.zone.respond(to: request.query)
        }
        let harness = try ResolverHarness(transport: transport) {
            $0.families = .ipv4; $0.serveStale = .rfc8767
        }
        _ = try await harness.resolve("a.test")
        harness.clock.advance(by: 310)
        await #expect(throws: ResolutionError.nameNotFound(host: "a.test", negativeTTL: 60)) { try await harness.resolve("a.test") }
    }

    @Test("an answer expired longer than the maximum stale age is not served")
    func tooOldIsNotServed() async throws {
        let (harness, _) = try await Self.expired(.fail, settings: .init(maximumStaleAge: 5))
        await #expect(throws: ResolutionError.self) { try await harness.resolve("a.test") }
    }

    @Test("a client response timer of 0 answers from the stale entry at once, and the lookup goes on to refresh it")
    func aZeroClientResponseTimeoutAnswersStaleAtOnce() async throws {
        let gate = Gate()
        let (harness, _) = try await Self.expired(.hold(gate), settings: .init(clientResponseTimeout: 0))
        let resolution = try await harness.resolve("a.test")
        #expect(resolution.isStale)
        #expect(resolution.ttl == 30)
        #expect(harness.resolver.isRefreshing(host: "a.test"), "the lookup goes on")
        gate.open()
        #expect(await eventually { harness.resolver.cachedResolution(host: "a.test", families: .ipv4) != nil })
    }

    @Test("a serve-stale time that is NaN or negative is refused when the resolver is made, with or without an observer, rather than replaced")
    func anInvalidTimeIsRefusedNotReplaced() throws {
        for observer in [nil, EventRecorder()] as [EventRecorder?] {
            var configuration = HostResolver.Configuration.default
            configuration.observer = observer
            configuration.serveStale = .init(clientResponseTimeout: .nan)
            #expect {
                _ = try HostResolver(configuration: configuration, transport: FakeDoHTransport(zone: ResolverHarness.zone))
            } throws: { error in
                (error as? InvalidDurationError)?.description.hasPrefix("HostResolver.Configuration.serveStale.clientResponseTimeout needs ") == true
            }
            configuration.serveStale = .init(failureRecheckInterval: -1)
            #expect(throws: InvalidDurationError(setting: "HostResolver.Configuration.serveStale.failureRecheckInterval", value: -1, requirement: .nonNegative)) {
                _ = try HostResolver(configuration: configuration, transport: FakeDoHTransport(zone: ResolverHarness.zone))
            }
            #expect(observer?.events.isEmpty ?? true, "\(observer?.events ?? [])")
        }
    }

    @Test("with an infinite client response timer, no timer is set: a slow lookup is waited for")
    func anInfiniteClientResponseTimeoutSetsNoTimer() async throws {
        let gate = Gate()
        let (harness, _) = try await Self.expired(.hold(gate), settings: .init(clientResponseTimeout: .infinity))
        let lookup = Task { try await harness.resolve("a.test") }
        #expect(await eventually { harness.resolver.waitingLookups(name: "a.test") == 1 })
        #expect(harness.clock.sleepers == 0)
        gate.open()
        #expect(try await lookup.value.isStale == false)
    }

    @Test("the system clock sleeps for an infinite time (until cancelled) rather than trapping")
    func theSystemClockSleepsForAnInfiniteTime() async throws {
        let sleeper = Task { try await MonotonicClock().sleep(for: .infinity) }
        try await Task.sleep(for: .milliseconds(20))
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }
}
