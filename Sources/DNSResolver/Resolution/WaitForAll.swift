import Foundation
import HTTPDNSCore

/// Waits for `tasks` to finish, for at most `limit` seconds when given; the tasks go on either way.
/// - Returns: false when `limit` passed first.
func waitForAll(_ tasks: [Task<Void, Never>], within limit: TimeInterval?) async -> Bool {
    guard let limit else {
        for task in tasks { await task.value }
        return true
    }
    // Not a task group: it would wait for its children, and awaiting a task's value does not
    // stop when cancelled.
    return await withCheckedContinuation { continuation in
        let pending = LockedValue<CheckedContinuation<Bool, Never>?>(continuation)
        @Sendable func finish(_ done: Bool) {
            pending.withLock { waiter in
                waiter?.resume(returning: done)
                waiter = nil
            }
        }
        let timer = Task {
            try? await sleepForSeconds(limit)
            finish(false)
        }
        Task {
            for task in tasks { await task.value }
            timer.cancel()
            finish(true)
        }
    }
}
