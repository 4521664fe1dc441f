@testable import DNSResolver
import Dispatch
import Foundation
import HTTPDNSCore
import Synchronization
import Testing

@Suite("HostResolver lookups that never block")
struct HostResolverNonBlockingTests {
    @Test("on a miss resolveWithoutWaiting returns nil at once and starts the lookup; the next call has the answer")
    func aMissStartsALookup() async throws {
        let gate = Gate()
        let harness = try ResolverHarness.switchable(LockedValue(.hold(gate)))
        #expect(try harness.resolver.resolveWithoutWaiting(host: "a.test") == nil)
        #expect(harness.resolver.isRefreshing(host: "a.test"))
        #expect(try harness.resolver.resolveWithoutWaiting(host: "a.test") == nil, "still nothing, and no second lookup")
        gate.open()
        await harness.resolver.waitForRefresh(host: "a.test")
        let answer = try #require(try harness.resolver.resolveWithoutWaiting(host: "a.test"))
        #expect(answer.source == .cache)
        #expect(answer.addresses == [IPAddress("192.0.2.1")!])
        #expect(harness.transport.requests.count == 1)
    }

    @Test("with serve-stale, an expired answer is returned at once (stale TTL) and a refresh starts")
    func aStaleAnswerIsReturnedAndRefreshed() async throws {
        let harness = try ResolverHarness.switchable(LockedValue(.answer)) { $0.serveStale = .rfc8767 }
        _ = try await harness.resolve("a.test")
        harness.clock.advance(by: 301)
        let stale = try #require(try harness.resolver.resolveWithoutWaiting(host: "a.test"))
        #expect(stale.isStale)
        #expect(stale.ttl == 30)
        await harness.resolver.waitForRefresh(host: "a.test")
        #expect(try harness.resolver.resolveWithoutWaiting(host: "a.test")?.isStale == false)
    }

    @Test("without a stale allowance, an expired answer is a miss: nil, and a lookup starts")
    func anExpiredAnswerWithoutStaleIsAMiss() async throws {
        let harness = try ResolverHarness.switchable(LockedValue(.answer))
        _ = try await harness.resolve("a.test")
        harness.clock.advance(by: 301)
        #expect(try harness.resolver.resolveWithoutWaiting(host: "a.test") == nil)
        await harness.resolver.waitForRefresh(host: "a.test")
        #expect(try harness.resolver.resolveWithoutWaiting(host: "a.test") != nil)
    }

    @Test func literalsAndInvalidNamesAreAnsweredAtOnce() throws {
        let harness = try ResolverHarness()
        #expect(try harness.resolver.resolveWithoutWaiting(host: "192.0.2.9")?.source == .literal)
        #expect(throws: ResolutionError.invalidHostName("a..test")) { try harness.resolver.resolveWithoutWaiting(host: "a..test") }
    }

    /// Runs `body` on a thread outside Swift concurrency's pool, as a synchronous caller would.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    @Test func resolveBlockingReturnsTheAnswer() async throws {
        let harness = try ResolverHarness.switchable(LockedValue(.answer))
        let resolver = harness.resolver
        // A generous limit: the lookup needs a thread of Swift concurrency's pool, which the suite's
        // start (the test servers) can hold for over ten seconds.
        let resolution = try await Self.onThread { try resolver.resolveBlocking(host: "a.test", timeout: 60) }
        #expect(resolution.addresses == [IPAddress("192.0.2.1")!])
        #expect(try await Self.onThread { try resolver.resolveBlocking(host: "a.test", timeout: 60) }.source == .cache)
    }

    @Test("resolveBlocking gives up after its timeout with a clear error; the lookup goes on and fills the cache")
    func resolveBlockingTimesOut() async throws {
        let gate = Gate()
        let harness = try ResolverHarness.switchable(LockedValue(.hold(gate)))
        let resolver = harness.resolver
        // Timed on the blocked thread: the test's own resumption waits for the pool, which the
        // suite's start can hold for seconds.
        let (result, elapsed) = try await Self.onThread {
            let started = ContinuousClock.now
            let result = Result { try resolver.resolveBlocking(host: "a.test", timeout: 0.2) }
            return (result, ContinuousClock.now - started)
        }
        #expect(elapsed < .seconds(5))
        #expect(throws: ResolutionError.resolverUnavailable(host: "a.test", reasons: ["no answer within 0.2 s (the lookup goes on in the background)"])) { try result.get() }
        gate.open()
        #expect(await eventually { resolver.cachedResolution(host: "a.test", families: .ipv4) != nil })
    }

    @Test("a both-families answer in the cache answers IPv4-only and IPv6-only lookups with its addresses of that family, without asking")
    func aBothFamiliesAnswerServesEachFamily() async throws {
        let harness = try ResolverHarness()
        _ = try await harness.resolver.resolve(host: "a.test", port: 443, families: .both)
        let asked = harness.queries
        let ipv4 = try #require(try harness.resolver.resolveWithoutWaiting(host: "a.test", families: .ipv4))
        #expect(ipv4.addresses == [IPAddress("192.0.2.1")!])
        #expect(ipv4.source == .cache)
        let ipv6 = try #require(try harness.resolver.resolveWithoutWaiting(host: "a.test", families: .ipv6))
        #expect(ipv6.addresses == [IPAddress("2001:db8::1")!])
        #expect(try await harness.resolver.resolve(host: "a.test", port: 443, families: .ipv4).addresses == [IPAddress("192.0.2.1")!])
        #expect(harness.resolver.cachedResolution(host: "a.test", families: .ipv6)?.addresses == [IPAddress("2001:db8::1")!])
        #expect(harness.queries == asked, "nothing asked")
    }

    @Test("a both-families answer without addresses of the family wanted is a miss for that family")
    func aBothFamiliesAnswerWithoutTheFamilyIsAMiss() async throws {
        let harness = try ResolverHarness()
        _ = try await harness.resolver.resolve(host: "v4only.test", port: 443, families: .both)
        #expect(try harness.resolver.resolveWithoutWaiting(host: "v4only.test", families: .ipv6) == nil)
        #expect(harness.resolver.isRefreshing(host: "v4only.test"), "the IPv6 lookup started")
        await harness.resolver.waitForRefresh(host: "v4only.test")
    }

    @Test("resolveBlocking refuses a negative or NaN timeout with InvalidDurationError naming it, before looking anything up")
    func resolveBlockingRefusesAnInvalidTimeout() async throws {
        let harness = try ResolverHarness.switchable(LockedValue(.answer))
        let resolver = harness.resolver
        for timeout in [-1, -.infinity, .nan] as [TimeInterval] {
            let result = try await Self.onThread { Result { try resolver.resolveBlocking(host: "a.test", timeout: timeout) } }
            #expect(throws: InvalidDurationError.self) { try result.get() }
            if case .failure(let error as InvalidDurationError) = result {
                #expect(error.value.isNaN ? timeout.isNaN : error.value == timeout)
                #expect(error.setting == "resolveBlocking(timeout:)")
                #expect(error.description.hasPrefix("resolveBlocking(timeout:) needs a number of seconds, 0 or more (.infinity: no limit), not "), "\(error)")
            }
        }
        #expect(harness.transport.requests.isEmpty, "nothing was looked up")
        #expect(!resolver.isRefreshing(host: "a.test"))
    }

    @Test("a stale answer that comes after resolveBlocking timed out is not reported to the observer: the caller never got it")
    func aStaleAnswerAfterTheTimeoutIsNotReported() async throws {
        let gate = Gate()
        let events = EventRecorder()
        let (harness, _) = try await HostResolverServeStaleTests.expired(.hold(gate), events: events)
        let resolver = harness.resolver
        let result = try await Self.onThread { Result { try resolver.resolveBlocking(host: "a.test", timeout: 0.2) } }
        #expect(throws: ResolutionError.self) { try result.get() }
        // The client response timer (1.8 s on the manual clock) fires after the caller gave up: the
        // abandoned lookup ends with the stale answer, which nobody gets.
        await harness.clock.waitForSleepers()
        harness.clock.advance(by: 2)
        #expect(await eventually { resolver.waitingLookups(name: "a.test") == 0 })
        gate.open()
        await resolver.waitForRefresh(host: "a.test")
        // The abandoned lookup's last steps run on a task with nothing to await: a moment for them.
        try await Task.sleep(for: .milliseconds(100))
        #expect(!events.events.contains { $0.hasPrefix("stale") }, "\(events.events)")
    }

    @Test("a stale answer resolveBlocking returns is reported to the observer once")
    func aStaleAnswerResolveBlockingReturnsIsReported() async throws {
        let events = EventRecorder()
        let (harness, _) = try await HostResolverServeStaleTests.expired(.fail, events: events)
        let resolver = harness.resolver
        // A generous limit: the lookup needs a thread of Swift concurrency's pool, which the suite's
        // start (the test servers) can hold for over ten seconds.
        let resolution = try await Self.onThread { try resolver.resolveBlocking(host: "a.test", timeout: 60) }
        #expect(resolution.isStale)
        #expect(events.events.filter { $0.hasPrefix("stale") } == ["stale a.test 10"], "\(events.events)")
    }
}
