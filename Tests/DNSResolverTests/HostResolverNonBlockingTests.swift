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
        let harness = ResolverHarness.switchable(LockedValue(.hold(gate)))
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
        let harness = ResolverHarness.switchable(LockedValue(.answer)) { $0.serveStale = .rfc8767 }
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
        let harness = ResolverHarness.switchable(LockedValue(.answer))
        _ = try await harness.resolve("a.test")
        harness.clock.advance(by: 301)
        #expect(try harness.resolver.resolveWithoutWaiting(host: "a.test") == nil)
        await harness.resolver.waitForRefresh(host: "a.test")
        #expect(try harness.resolver.resolveWithoutWaiting(host: "a.test") != nil)
    }

    @Test func literalsAndInvalidNamesAreAnsweredAtOnce() throws {
        let harness = ResolverHarness()
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
        let harness = ResolverHarness.switchable(LockedValue(.answer))
        let resolver = harness.resolver
        let resolution = try await Self.onThread { try resolver.resolveBlocking(host: "a.test", timeout: 10) }
        #expect(resolution.addresses == [IPAddress("192.0.2.1")!])
        #expect(try await Self.onThread { try resolver.resolveBlocking(host: "a.test", timeout: 10) }.source == .cache)
    }

    @Test("resolveBlocking gives up after its timeout with a clear error; the lookup goes on and fills the cache")
    func resolveBlockingTimesOut() async throws {
        let gate = Gate()
        let harness = ResolverHarness.switchable(LockedValue(.hold(gate)))
        let resolver = harness.resolver
        let started = ContinuousClock.now
        let result = try await Self.onThread { Result { try resolver.resolveBlocking(host: "a.test", timeout: 0.2) } }
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(throws: ResolutionError.resolverUnavailable(host: "a.test", reasons: ["no answer within 0.2 s (the lookup goes on in the background)"])) { try result.get() }
        gate.open()
        #expect(await eventually { resolver.cachedResolution(host: "a.test", families: .ipv4) != nil })
    }
}
