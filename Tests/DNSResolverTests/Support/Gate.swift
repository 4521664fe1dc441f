import HTTPDNSCore
import Synchronization

/// A one-shot signal: `wait()` suspends until `open()` is called (returns at once afterwards).
/// Ignores cancellation on purpose, so a test can see whether the waiting task was cancelled.
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = LockedValue(State())

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let proceed = state.withLock { state -> Bool in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if proceed { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// Polls `condition` until it holds or about ten seconds pass, for state other tasks reach soon.
/// - Returns: Whether the condition held.
func eventually(_ condition: () -> Bool) async -> Bool {
    for attempt in 0..<11_000 {
        if condition() { return true }
        if attempt < 1_000 {
            await Task.yield()
        } else {
            try? await Task.sleep(for: .milliseconds(1))
        }
    }
    return condition()
}

/// A list appended to from any task.
final class Recorder<Element: Sendable>: Sendable {
    private let items = LockedValue<[Element]>([])

    func append(_ item: Element) { items.withLock { $0.append(item) } }

    var all: [Element] { items.withLock { $0 } }
}
