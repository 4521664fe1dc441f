@testable import DNSResolver
import Foundation
import HTTPDNSCore
import Testing

@Suite("HostResolver coalescing")
struct HostResolverCoalescingTests {
    /// A harness whose transport holds every request until `gate` opens. TTL 0 answers are not cached,
    /// so only sharing the query in flight can keep the query count down.
    static func held(by gate: Gate, observeCancellation: Recorder<Bool>? = nil) throws -> ResolverHarness {
        let zone = FakeZone(hosts: ["a.test": .init(ipv4: ["192.0.2.1"], ipv6: ["2001:db8::1"], ttl: 0)])
        return try ResolverHarness(
            transport: FakeDoHTransport { request in
                await gate.wait()
                observeCancellation?.append(Task.isCancelled)
                return zone.respond(to: request.query)
            })
    }

    @Test func concurrentLookupsOfOneNameShareOneQueryPerFamily() async throws {
        let gate = Gate()
        let harness = try Self.held(by: gate)
        let lookups = 20
        try await withThrowingTaskGroup(of: HostResolution.self) { group in
            for index in 0..<lookups {
                group.addTask { try await harness.resolve(index.isMultiple(of: 2) ? "a.test" : "A.Test.") }
            }
            #expect(await eventually { harness.resolver.waitingLookups(name: "a.test") == lookups })
            gate.open()
            var results: [HostResolution] = []
            for try await resolution in group { results.append(resolution) }
            #expect(results.count == lookups)
            #expect(results.allSatisfy { $0.addresses == [IPAddress("2001:db8::1")!, IPAddress("192.0.2.1")!] })
        }
        #expect(
            harness.transport.requests.compactMap { $0.question?.type }.sorted()
                == [DNSFixture.typeA, DNSFixture.typeAAAA])
    }

    @Test func cancellingOneWaiterLeavesTheSharedQueryForTheOthers() async throws {
        let gate = Gate()
        let cancelled = Recorder<Bool>()
        let harness = try Self.held(by: gate, observeCancellation: cancelled)
        let starter = Task { try await harness.resolve("a.test") }
        let other = Task { try await harness.resolve("a.test") }
        #expect(await eventually { harness.resolver.waitingLookups(name: "a.test") == 2 })

        starter.cancel()
        // The cancelled lookup returns at once, while the query is still held.
        await #expect(throws: CancellationError.self) { try await starter.value }
        #expect(harness.resolver.waitingLookups(name: "a.test") == 1)

        gate.open()
        let resolution = try await other.value
        #expect(resolution.addresses.count == 2)
        #expect(cancelled.all == [false, false], "the shared query was not cancelled")
        #expect(harness.queries == 2)
    }

    @Test func aLookupCancelledBeforeItStartsThrowsCancellation() async throws {
        let harness = try ResolverHarness()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await harness.resolve("a.test")
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func aQueryFinishedAfterFlushIsNotCached() async throws {
        let gate = Gate()
        let zone = ResolverHarness.zone
        let harness = try ResolverHarness(
            transport: FakeDoHTransport { request in
                await gate.wait()
                return zone.respond(to: request.query)
            })
        let lookup = Task { try await harness.resolve("a.test") }
        #expect(await eventually { harness.transport.requests.count == 2 })
        harness.resolver.flush(host: "a.test")
        gate.open()
        _ = try await lookup.value
        #expect(harness.resolver.cachedResolution(host: "a.test") == nil)
    }
}
