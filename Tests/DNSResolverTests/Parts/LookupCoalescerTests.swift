@testable import DNSResolver
import Foundation
import HTTPDNSCore
import Testing

@Suite("Lookup coalescer")
struct LookupCoalescerTests {
    static let key = LookupCoalescer.Key(cacheKey: .init(name: "a.test", families: .ipv4), port: 443)
    static let answer = HostResolution(host: "a.test", addresses: [IPAddress("192.0.2.1")!], ttl: 60, source: .cache)

    /// Work whose query waits for `gate`, counting queries and stores.
    static func work(gate: Gate, queries: Recorder<String>, stores: Recorder<String>) -> LookupCoalescer.Work {
        LookupCoalescer.Work(
            query: { key in
                queries.append(key.name)
                await gate.wait()
                return LookupOutcome(result: .success(answer), cacheTTL: 60, cacheValue: .addresses(answer.addresses))
            },
            store: { key, _ in stores.append(key.name) })
    }

    @Test func concurrentLookupsOfOneKeyRunOneQueryAndStoreOnce() async throws {
        let coalescer = LookupCoalescer()
        let (gate, queries, stores) = (Gate(), Recorder<String>(), Recorder<String>())
        let work = Self.work(gate: gate, queries: queries, stores: stores)
        let lookups = (0..<5).map { _ in Task { try await coalescer.lookup(Self.key, work: work) { nil } } }
        #expect(await eventually { coalescer.waitingLookups(name: "a.test") == 5 })
        #expect(coalescer.isQuerying(name: "a.test"))
        gate.open()
        for lookup in lookups { #expect(try await lookup.value == Self.answer) }
        #expect(queries.all == ["a.test"])
        #expect(stores.all == ["a.test"])
        #expect(!coalescer.isQuerying(name: "a.test"))
    }

    @Test func anAnswerKnownAtOnceStartsNoQuery() async throws {
        let coalescer = LookupCoalescer()
        let (queries, stores) = (Recorder<String>(), Recorder<String>())
        let resolution = try await coalescer.lookup(Self.key, work: Self.work(gate: Gate(), queries: queries, stores: stores)) { .success(Self.answer) }
        #expect(resolution == Self.answer)
        #expect(queries.all.isEmpty)
    }

    @Test("a detached flight's waiters get its answer, but it is not stored")
    func aDetachedFlightIsNotStored() async throws {
        let coalescer = LookupCoalescer()
        let (gate, queries, stores) = (Gate(), Recorder<String>(), Recorder<String>())
        let work = Self.work(gate: gate, queries: queries, stores: stores)
        let lookup = Task { try await coalescer.lookup(Self.key, work: work) { nil } }
        #expect(await eventually { coalescer.waitingLookups(name: "a.test") == 1 })
        coalescer.detach(where: { $0.name == "a.test" }, then: {})
        gate.open()
        #expect(try await lookup.value == Self.answer)
        #expect(stores.all.isEmpty)
    }

    @Test("a query whose only lookup left (serve-stale's, after its timer) is still waited for, and stores its answer")
    func aQueryLeftByItsLookupIsWaitedFor() async throws {
        let coalescer = LookupCoalescer()
        let (gate, queries, stores) = (Gate(), Recorder<String>(), Recorder<String>())
        let work = Self.work(gate: gate, queries: queries, stores: stores)
        let lookup = Task { try await coalescer.lookup(Self.key, work: work) { nil } }
        #expect(await eventually { coalescer.waitingLookups(name: "a.test") == 1 })
        lookup.cancel()
        let outcome = await lookup.result
        #expect(throws: CancellationError.self) { try outcome.get() }
        let waited = Task { await coalescer.waitForBackground(name: "a.test", within: nil) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(stores.all.isEmpty, "stored before the query was answered")
        gate.open()
        #expect(await waited.value)
        #expect(stores.all == ["a.test"], "the wait returned before the query stored its answer")
    }

    @Test func aBackgroundQueryIsStartedOnceAndCanBeWaitedFor() async {
        let coalescer = LookupCoalescer()
        let (gate, queries, stores) = (Gate(), Recorder<String>(), Recorder<String>())
        let work = Self.work(gate: gate, queries: queries, stores: stores)
        #expect(coalescer.startInBackground(Self.key, work: work))
        #expect(!coalescer.startInBackground(Self.key, work: work), "one under way already")
        #expect(await coalescer.waitForBackground(name: "a.test", within: 0.01) == false)
        gate.open()
        #expect(await coalescer.waitForBackground(name: "a.test", within: nil))
        #expect(stores.all == ["a.test"])
    }
}
