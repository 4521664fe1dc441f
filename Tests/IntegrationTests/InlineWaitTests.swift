import Foundation
import Testing
import HTTPDNS
@testable import HTTPTransport
import TestSupport

/// When no other transfer is in flight, the sending thread waits for a fast response itself
/// (`HTTPClient.Configuration.maximumInlineWait`, `TransferEngine.lead`), so a sequential request
/// costs no thread wake-up. The wait must end early for another request or a cancellation, hand
/// the connection back to the transfer thread when it runs out, and be off at 0.
@Suite("Waiting for the response on the sending thread", .serialized)
struct InlineWaitTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    /// A request waits on its sending thread only while no other transfer of the process is in
    /// flight, which the rest of the suite, running beside these tests, rarely leaves: each test
    /// tries until it has seen a wait, for up to a minute (the whole suite takes about 30 s; longer
    /// under the sanitizers, so scaled by `TestTimeScale`). The suite is serialized: its tests' own
    /// requests in flight would stop each other's waits.
    static let patience = ContinuousClock.now + .seconds(patienceSeconds)
    static let patienceSeconds = TestTimeScale.scaled(60)

    /// Starts `request` on `client` in a task, and waits until the engine's inline wait for it has
    /// begun (the pool's count of waits passes `before`); nil when the request ran without one
    /// (another test's transfer was in flight) within 2 s, after cancelling it.
    func leadingRequest(_ client: HTTPClient, _ pool: PoolDescriptor, _ request: HTTPRequest) async throws
        -> Task<HTTPResponse, any Error>? {
        let before = pool.inlineWaits.load(ordering: .relaxed)
        let task = Task.detached { try await client.execute(request) }
        let deadline = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < deadline {
            if pool.inlineWaits.load(ordering: .relaxed) > before { return task }
            try await Task.sleep(for: .milliseconds(5))
        }
        task.cancel()
        _ = await task.result
        return nil
    }

    @Test("sequential requests to a fast server complete on the sending thread")
    func sequentialRequestsCompleteInline() async throws {
        let (client, pool) = fixture.clientOnOwnPool(inlineWait: 0.05)
        // The epoll set's sockets of the pool after each request that completed inline.
        var afterInline: [[Int32]] = []
        repeat {
            for _ in 0..<20 {
                let before = pool.inlineCompletions.load(ordering: .relaxed)
                let response = try await client.execute(fixture.loopbackRequest())
                #expect(response.text == "vhost=a.test\n")
                if pool.inlineCompletions.load(ordering: .relaxed) == before + 1 {
                    afterInline.append(TransferEngine.shared.watchedSockets(of: pool).watched)
                }
            }
        } while !afterInline.contains([]) && ContinuousClock.now < Self.patience
        #expect(!afterInline.isEmpty, "no request completed on its sending thread")
        // libcurl watches no idle connection; one left idle by an inline wait is not in the epoll
        // set either, so the next inline wait takes it without a system call. (A connection the
        // transfer thread parked, after an earlier wait was handed over, may still be in it.)
        #expect(afterInline.contains([]), "an idle connection's socket stayed in the epoll set: \(afterInline.prefix(5))")
    }

    @Test("maximumInlineWait 0 never waits on the sending thread")
    func zeroTurnsItOff() async throws {
        let (client, pool) = fixture.clientOnOwnPool(inlineWait: 0)
        for _ in 0..<20 {
            let response = try await client.execute(fixture.loopbackRequest())
            #expect(response.text == "vhost=a.test\n")
        }
        #expect(pool.inlineWaits.load(ordering: .relaxed) == 0)
    }

    @Test("another request sent during the wait is served at once, not after it")
    func anotherRequestEndsTheWait() async throws {
        let (slow, slowPool) = fixture.clientOnOwnPool(inlineWait: 1)
        let (fast, _) = fixture.clientOnOwnPool(inlineWait: 0)
        var checked = false
        while !checked, ContinuousClock.now < Self.patience {
            // A pooled connection, so that the second request costs no handshake.
            _ = try await fast.execute(fixture.loopbackRequest())
            // /slow answers after 5 s; the sending thread would wait for all of it.
            guard let waiting = try await leadingRequest(slow, slowPool, fixture.loopbackRequest("/slow")) else { continue }
            let begin = ContinuousClock.now
            let response = try await fast.execute(fixture.loopbackRequest())
            let elapsed = ContinuousClock.now - begin
            #expect(response.text == "vhost=a.test\n")
            // Not served during the wait, it would have waited for the whole of it (1 s, the most a
            // wait may last).
            #expect(elapsed < .milliseconds(500), "the second request waited \(elapsed) for the first one's inline wait")
            waiting.cancel()
            let first = await waiting.result
            // Still in flight when the second one went: cancelled now, not done or failed before.
            #expect(throws: CancellationError.self) { try first.get() }
            checked = true
        }
        #expect(checked, "no request waited on its sending thread in \(Self.patienceSeconds) s")
    }

    @Test("cancelling a request ends its wait on the sending thread at once")
    func cancellationEndsTheWait() async throws {
        let (client, pool) = fixture.clientOnOwnPool(inlineWait: 1)
        var checked = false
        while !checked, ContinuousClock.now < Self.patience {
            // /slow answers after 5 s.
            guard let waiting = try await leadingRequest(client, pool, fixture.loopbackRequest("/slow")) else { continue }
            let begin = ContinuousClock.now
            waiting.cancel()
            let outcome = await waiting.result
            let elapsed = ContinuousClock.now - begin
            #expect(throws: CancellationError.self) { try outcome.get() }
            // The wait would have lasted 1 s, the most a wait may last.
            #expect(elapsed < .milliseconds(700), "cancellation took \(elapsed)")
            checked = true
        }
        #expect(checked, "no request waited on its sending thread in \(Self.patienceSeconds) s")
    }

    @Test("a wait that runs out hands the connection to the transfer thread, which completes the request and parks the socket")
    func expiredWaitHandsOver() async throws {
        var checked = false
        while !checked, ContinuousClock.now < Self.patience {
            // A new pool each try: one that saw a 0.3 s response stops waiting inline for a while.
            let (client, pool) = fixture.clientOnOwnPool(inlineWait: 0.05)
            let completedBefore = pool.inlineCompletions.load(ordering: .relaxed)
            // /delay takes 0.3 s, six times the wait.
            guard let waiting = try await leadingRequest(client, pool, fixture.loopbackRequest("/delay")) else { continue }
            #expect(try await waiting.value.text == "delayed\n")
            #expect(pool.inlineCompletions.load(ordering: .relaxed) == completedBefore, "a 0.3 s response completed within a 50 ms wait")
            // The socket went back into the epoll set: parked there now the transfer is over.
            let state = TransferEngine.shared.watchedSockets(of: pool)
            #expect(state.watched.count <= 1 && state.watched == state.parked)
            let next = try await client.execute(fixture.loopbackRequest())
            #expect(next.text == "vhost=a.test\n")
            checked = true
        }
        #expect(checked, "no request waited on its sending thread in \(Self.patienceSeconds) s")
    }
}
