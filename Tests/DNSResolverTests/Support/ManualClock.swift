import DNSResolver
import Foundation
import HTTPDNSCore
import Synchronization

/// A clock that moves only when told to, so TTL expiry and timers are tested without sleeping.
final class ManualClock: ResolverClock {
    private struct State {
        var now: TimeInterval
        var sleepers: [UInt64: (deadline: TimeInterval, wake: CheckedContinuation<Void, any Error>)] = [:]
        var nextID: UInt64 = 0
    }

    private let state: LockedValue<State>

    init(_ start: TimeInterval = 1_000) {
        state = LockedValue(State(now: start))
    }

    func now() -> TimeInterval { state.withLock { $0.now } }

    /// How many `sleep` calls are waiting for time to move.
    var sleepers: Int { state.withLock { $0.sleepers.count } }

    func advance(by seconds: TimeInterval) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now += seconds
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.wake)
        }
        for wake in due { wake.resume() }
    }

    /// Returns once `advance` has moved the time `seconds` on.
    func sleep(for seconds: TimeInterval) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (wake: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    if Task.isCancelled || seconds <= 0 { return true }
                    state.sleepers[id] = (state.now + seconds, wake)
                    return false
                }
                if resumeNow {
                    if Task.isCancelled { wake.resume(throwing: CancellationError()) } else { wake.resume() }
                }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.wake.resume(throwing: CancellationError())
        }
    }

    /// Waits (yielding, never sleeping) until `count` sleepers wait.
    func waitForSleepers(_ count: Int = 1) async {
        while sleepers < count { await Task.yield() }
    }
}
