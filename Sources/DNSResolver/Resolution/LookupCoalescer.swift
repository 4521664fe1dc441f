import Foundation
import HTTPDNSCore

/// One query per key for concurrent lookups: the first lookup of a key starts the query, the others
/// wait for its answer. A waiter that is cancelled leaves at once (throwing `CancellationError`); the
/// query carries on for the others, and for the cache.
///
/// Whatever stores a query's outcome (`Store`) runs under this type's lock and only for a flight still
/// attached, so `detach` (a flush) and the stores are ordered: a flushed flight's answer is not kept.
final class LookupCoalescer: Sendable {
    /// Lookups are shared per name, families and port (the port matters only to a system resolver
    /// that maps per port, but sharing across ports would hand one port's answer to another).
    struct Key: Hashable, Sendable {
        var cacheKey: ResolutionCache.Key
        var port: Int

        var name: String { cacheKey.name }
    }

    /// What a flight does: `query` runs once per flight; `store` keeps its outcome (the cache), called
    /// under the lock for a flight still attached. Passed per lookup rather than kept, so that the
    /// coalescer holds no reference to its owner.
    struct Work: Sendable {
        var query: @Sendable (Key) async -> LookupOutcome
        var store: @Sendable (Key, LookupOutcome) -> Void
    }

    private typealias Waiter = CheckedContinuation<HostResolution, any Error>

    /// One query under way and the lookups waiting for it.
    private struct Flight {
        var key: Key
        var waiters: [UInt64: Waiter] = [:]
    }

    private struct State {
        var flights: [UInt64: Flight] = [:]
        /// The flight new lookups of a key join; `detach` removes entries so flights are not stored.
        var flightByKey: [Key: UInt64] = [:]
        var flightOfWaiter: [UInt64: UInt64] = [:]
        /// Background queries (no waiter needed), so `waitForBackground` can await them.
        var background: [Key: Task<Void, Never>] = [:]
        /// The queries lookups started, by flight, with their name: they go on when every waiter
        /// has left (a stale answer served meanwhile), and `waitForBackground` awaits them too.
        var started: [UInt64: (name: String, task: Task<Void, Never>)] = [:]
        var nextID: UInt64 = 0

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }
    }

    private enum Admission {
        case answered(Result<HostResolution, ResolutionError>)
        case cancelled
        case joined
        case started(UInt64)
    }

    private let state = LockedValue(State())

    init() {}

    /// Waits for the answer for `key`: `answeredAtOnce` (checked under the lock, so an answer stored
    /// meanwhile is seen), else the flight under way, else a new one.
    /// - Throws: The query's `ResolutionError`; `CancellationError` when the calling task is cancelled.
    func lookup(_ key: Key, work: Work, answeredAtOnce: @escaping () -> Result<HostResolution, ResolutionError>?) async throws -> HostResolution {
        let waiterID = state.withLock { $0.makeID() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                let admission = state.withLock { state -> Admission in
                    // Checked under the lock: the cancellation handler takes it too, so either it sees
                    // this waiter registered or this sees the task cancelled.
                    if Task.isCancelled { return .cancelled }
                    if let answer = answeredAtOnce() { return .answered(answer) }
                    if let flightID = state.flightByKey[key] {
                        state.flights[flightID]?.waiters[waiterID] = waiter
                        state.flightOfWaiter[waiterID] = flightID
                        return .joined
                    }
                    let flightID = state.makeID()
                    state.flights[flightID] = Flight(key: key, waiters: [waiterID: waiter])
                    state.flightByKey[key] = flightID
                    state.flightOfWaiter[waiterID] = flightID
                    return .started(flightID)
                }
                switch admission {
                case .answered(let result):
                    waiter.resume(with: result.mapError { $0 as any Error })
                case .cancelled:
                    waiter.resume(throwing: CancellationError())
                case .joined:
                    break
                case .started(let flightID):
                    // Unstructured on purpose: the query must not inherit the cancellation of the
                    // lookup that happened to start it.
                    // Recorded under the lock, which the task takes to remove itself when done.
                    state.withLock { state in
                        state.started[flightID] = (
                            key.name,
                            Task {
                                self.finish(flightID, outcome: await work.query(key), store: work.store)
                                _ = self.state.withLock { $0.started.removeValue(forKey: flightID) }
                            }
                        )
                    }
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let flightID = state.flightOfWaiter.removeValue(forKey: waiterID) else { return nil }
                return state.flights[flightID]?.waiters.removeValue(forKey: waiterID)
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Starts a query for `key` with nobody waiting, unless one is under way.
    /// - Returns: Whether a query was started.
    @discardableResult
    func startInBackground(_ key: Key, work: Work) -> Bool {
        state.withLock { state -> Bool in
            guard state.flightByKey[key] == nil else { return false }
            let flightID = state.makeID()
            state.flights[flightID] = Flight(key: key)
            state.flightByKey[key] = flightID
            state.background[key] = Task {
                self.finish(flightID, outcome: await work.query(key), store: work.store)
                _ = self.state.withLock { $0.background.removeValue(forKey: key) }
            }
            return true
        }
    }

    private func finish(_ flightID: UInt64, outcome: LookupOutcome, store: (Key, LookupOutcome) -> Void) {
        let waiters = state.withLock { state -> [Waiter] in
            guard let flight = state.flights.removeValue(forKey: flightID) else { return [] }
            for waiterID in flight.waiters.keys { state.flightOfWaiter[waiterID] = nil }
            if state.flightByKey[flight.key] == flightID {
                state.flightByKey[flight.key] = nil
                store(flight.key, outcome)
            }
            return Array(flight.waiters.values)
        }
        let result = outcome.result.mapError { $0 as any Error }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// Runs `body` under the lock after detaching the flights whose key matches `detached`: their
    /// waiters still get the answer, but it is not stored.
    func detach(where detached: (Key) -> Bool, then body: () -> Void) {
        state.withLock { state in
            state.flightByKey = state.flightByKey.filter { !detached($0.key) }
            body()
        }
    }

    /// Runs `body` under the lock, so that cache changes it makes are ordered with the flights' stores.
    func ordered(_ body: () -> Void) {
        state.withLock { _ in body() }
    }

    /// How many lookups wait on queries for the normalized `name`.
    func waitingLookups(name: String) -> Int {
        state.withLock { state in
            state.flights.values.filter { $0.key.name == name }.reduce(0) { $0 + $1.waiters.count }
        }
    }

    /// Whether a query for `name` is under way (a lookup's or a background one's).
    func isQuerying(name: String) -> Bool {
        state.withLock { $0.flightByKey.keys.contains { $0.name == name } }
    }

    /// Waits for the queries of `name` started so far (background ones, and those lookups started
    /// whose waiters may all have left, as serve-stale's do), for at most `limit` seconds when
    /// given (the queries go on; only the wait ends).
    /// - Returns: false when `limit` passed first.
    func waitForBackground(name: String, within limit: TimeInterval?) async -> Bool {
        let tasks = state.withLock { state in
            state.background.filter { $0.key.name == name }.map(\.value) + state.started.values.filter { $0.name == name }.map(\.task)
        }
        return await waitForAll(tasks, within: limit)
    }
}
