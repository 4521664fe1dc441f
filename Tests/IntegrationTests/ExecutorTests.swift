import Foundation
import Testing
import HTTPDNS
@testable import HTTPTransport
import TestSupport

/// The transfer loop is a Swift executor (`HTTPClient.executor`): a request's work and its
/// caller's continuation run on the loop thread, a caller already there makes no thread hop, and
/// no thread of Swift's cooperative pool waits for a response.
@Suite("The transfer loop as an executor")
struct ExecutorTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    @Test("requests made on the client's executor run and resume on the loop thread, with no hop")
    func callerOnExecutorStaysOnLoop() async throws {
        let (client, _) = try fixture.clientOnOwnPool()
        let placements = try await withTaskExecutorPreference(client.executor) {
            var placements: [Bool] = [TransferEngine.shared.isOnLoop]
            for _ in 0..<20 {
                let response = try await client.execute(fixture.loopbackRequest())
                #expect(response.text == "vhost=a.test\n")
                placements.append(TransferEngine.shared.isOnLoop)
            }
            return placements
        }
        #expect(placements.allSatisfy { $0 }, "left the loop thread: \(placements)")
    }

    @Test("a caller on the global executor is back on it after the request")
    func globalCallerReturnsToGlobalExecutor() async throws {
        let (client, _) = try fixture.clientOnOwnPool()
        let placement = try await Task.detached {
            let response = try await client.execute(fixture.loopbackRequest())
            #expect(response.text == "vhost=a.test\n")
            return TransferEngine.shared.isOnLoop
        }.value
        #expect(placement == false, "the caller's code went on running on the loop thread")
    }

    /// An actor whose executor is the loop's: its requests never leave the loop thread.
    actor LoopBound {
        let client: HTTPClient
        init(client: HTTPClient) { self.client = client }
        nonisolated var unownedExecutor: UnownedSerialExecutor { client.serialExecutor.asUnownedSerialExecutor() }

        func fetch(_ request: HTTPRequest) async throws -> (text: String, onLoop: Bool) {
            let response = try await client.execute(request)
            return (response.text, TransferEngine.shared.isOnLoop)
        }
    }

    @Test("an actor on the client's serial executor is isolated to the loop thread across requests")
    func actorOnLoop() async throws {
        let (client, _) = try fixture.clientOnOwnPool()
        let actor = LoopBound(client: client)
        for _ in 0..<5 {
            let (text, onLoop) = try await actor.fetch(fixture.loopbackRequest())
            #expect(text == "vhost=a.test\n")
            #expect(onLoop)
        }
    }

    @Test("requests waiting for their responses hold no thread of the cooperative pool")
    func waitingRequestsBlockNoCooperativeThread() async throws {
        let (client, _) = try fixture.clientOnOwnPool(connectionsPerHost: nil)
        // More requests than the cooperative pool has threads; /slow answers after 5 s. Were each
        // waiting on a thread of the pool, the work below could only run once they were answered.
        let width = ProcessInfo.processInfo.activeProcessorCount * 4
        let done = Counter()
        let requests = (0..<width).map { _ in
            Task.detached {
                defer { done.increment() }
                return try await client.execute(fixture.loopbackRequest("/slow"))
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<(width * 4) { group.addTask { _ = (0..<1000).reduce(0, &+) } }
        }
        #expect(done.value == 0, "the work waited for the responses")
        for request in requests { request.cancel() }
        for request in requests { _ = await request.result }
        #expect(done.value == width)
    }

    @Test("another request is served at once while one waits for a slow response")
    func slowResponseDelaysNoOther() async throws {
        let (client, _) = try fixture.clientOnOwnPool()
        // A pooled connection first, so that the second request costs no handshake.
        _ = try await client.execute(fixture.loopbackRequest())
        // /slow answers after 5 s. What is asserted is the order, not a time: the second request
        // is answered while the slow one is still waiting (a loop blocked by the slow response would
        // answer it only after those 5 s); a time bound well under them failed on a loaded machine.
        let slowFinished = Counter()
        let waiting = Task.detached {
            defer { slowFinished.increment() }
            return try await client.execute(fixture.loopbackRequest("/slow"))
        }
        try await Task.sleep(for: .milliseconds(50))
        let begin = ContinuousClock.now
        let response = try await client.execute(fixture.loopbackRequest())
        let elapsed = ContinuousClock.now - begin
        #expect(response.text == "vhost=a.test\n")
        #expect(slowFinished.value == 0, "the second request was answered only after the slow one (\(elapsed))")
        #expect(elapsed < .seconds(4), "the second request waited \(elapsed), nearly as long as the slow response")
        waiting.cancel()
        let outcome = await waiting.result
        #expect(throws: CancellationError.self) { try outcome.get() }
    }

    @Test("cancelling a request made on the executor ends it at once")
    func cancellationOnExecutor() async throws {
        let (client, _) = try fixture.clientOnOwnPool()
        // The pool's trust compiled and its connection open first: what is timed is the cancellation
        // of a request in flight, not the first request's set-up beside every other test's.
        #expect(try await client.execute(fixture.loopbackRequest("/")).status == 200)
        let waiting = Task.detached {
            try await withTaskExecutorPreference(client.executor) { try await client.execute(fixture.loopbackRequest("/slow")) }
        }
        try await Task.sleep(for: .milliseconds(100))
        let begin = ContinuousClock.now
        waiting.cancel()
        let outcome = await waiting.result
        let elapsed = ContinuousClock.now - begin
        #expect(throws: CancellationError.self) { try outcome.get() }
        // /slow answers after 5 s.
        #expect(elapsed < .seconds(TestTimeScale.scaled(1.5)), "cancellation took \(elapsed)")
    }
}

/// A count shared between tasks.
private final class Counter: Sendable {
    private let count = LockedValue(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
