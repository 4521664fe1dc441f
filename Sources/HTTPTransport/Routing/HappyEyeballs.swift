import Dispatch
import Foundation
import HTTPDNSCore
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// Happy Eyeballs v2 (RFC 8305) connection racing, done here rather than by libcurl.
///
/// libcurl 7.88 races the two families only after CURLOPT_HAPPY_EYEBALLS_TIMEOUT_MS and, within a
/// family, gives each address a share of the connect timeout: measured against a black-holed first
/// address, a 10 s connect timeout took 6 s to reach the second address, and three addresses with the
/// default timeout 37 s. Here the addresses are interleaved by family (§4) and a new attempt starts every
/// `attemptDelay` (§5) or as soon as one fails, on plain non-blocking sockets; the address that connects
/// first goes first in the list libcurl gets.
enum HappyEyeballs {
    /// RFC 8305 §5's recommended Connection Attempt Delay.
    static let attemptDelay: TimeInterval = 0.25

    /// A connected socket and the address it reached.
    struct Winner: Sendable {
        let fd: Int32
        let address: IPAddress
    }

    /// The addresses alternating families, starting with the first address's family (§4), each family
    /// in its given order.
    static func interleave(_ addresses: [IPAddress]) -> [IPAddress] {
        guard let first = addresses.first else { return [] }
        let preferred = addresses.filter { $0.family == first.family }
        let other = addresses.filter { $0.family != first.family }
        var result: [IPAddress] = []
        for index in 0..<max(preferred.count, other.count) {
            if index < preferred.count { result.append(preferred[index]) }
            if index < other.count { result.append(other[index]) }
        }
        return result
    }

    /// How a race ended.
    struct Outcome: Sendable {
        /// The first socket to connect; nil when none did.
        let winner: Winner?
        /// Seconds from the first attempt to the winner's connection (or to giving up), on the
        /// monotonic clock of the racing thread: the race's own time, not the caller's wait for it.
        let elapsed: TimeInterval
        /// Whether the time limit (or cancellation) ended the race, rather than every address failing.
        let timedOut: Bool
        /// Whether the race went on on a thread of its own (the first attempt did not connect at once).
        var onThread = false
        /// How each attempt ended, in the order they started (for `AddressRanking`).
        var attempts: [(address: IPAddress, result: AddressRanking.Result)] = []
    }

    /// Set from another thread to stop a race within `pollSlice`.
    final class Cancellation: Sendable {
        private let flag = Atomic<Bool>(false)
        func cancel() { flag.store(true, ordering: .releasing) }
        var isCancelled: Bool { flag.load(ordering: .acquiring) }
    }

    /// The longest one poll(2) waits, so a cancelled race stops soon.
    static let pollSlice: TimeInterval = 0.05

    /// Races connections to `addresses` (in order, staggered) on `port`, on a thread of its own: not
    /// the cooperative pool, and not Dispatch's global queues, whose few threads (one per core) may all
    /// be blocked in `getaddrinfo` and would delay the race by seconds. Cancelling the task stops the
    /// race (as timed out) within `pollSlice`.
    /// - Returns: The first socket to connect within `timeout` seconds, if any, and the race's time.
    ///
    /// The first attempt starts on the calling thread: a connection that is complete by the time
    /// `connect` returns (a loopback peer, often one on the LAN) wins without a thread being made;
    /// otherwise the attempt, still in progress, joins the race on its thread.
    static func race(_ addresses: [IPAddress], port: Int, timeout: TimeInterval) async -> Outcome {
        let begin = now()
        var first: Attempt?
        var failedFirst: IPAddress?
        var next = 0
        if let address = addresses.first, timeout > 0 {
            next = 1
            switch start(address, port: port) {
            case .connected(let fd):
                let elapsed = now() - begin
                return Outcome(winner: Winner(fd: fd, address: address), elapsed: elapsed, timedOut: false, attempts: [(address, .connected(elapsed))])
            case .inProgress(let fd):
                var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                if poll(&entry, 1, 0) <= 0 || entry.revents == 0 {
                    first = Attempt(fd: fd, address: address, started: begin)
                } else if connectionSucceeded(fd) {
                    let elapsed = now() - begin
                    return Outcome(winner: Winner(fd: fd, address: address), elapsed: elapsed, timedOut: false, attempts: [(address, .connected(elapsed))])
                } else {
                    close(fd)
                    failedFirst = address
                }
            case .failed:
                failedFirst = address
            }
        }
        let head = RaceStart(begin: begin, pending: first, next: next, failed: failedFirst)
        let cancellation = Cancellation()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let thread = Thread {
                    var outcome = raceBlocking(addresses, port: port, timeout: timeout, cancellation: cancellation, from: head)
                    outcome.onThread = true
                    continuation.resume(returning: outcome)
                }
                thread.name = "httpdns.happy-eyeballs"
                thread.start()
            }
        } onCancel: {
            cancellation.cancel()
        }
    }

    static func now() -> TimeInterval {
        TimeInterval(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000
    }

    /// An attempt in progress.
    struct Attempt: Sendable {
        let fd: Int32
        let address: IPAddress
        /// Uptime seconds when it started.
        let started: TimeInterval
    }

    /// Where a race stands when its thread takes it over: when it began (uptime seconds), the first
    /// attempt if it is still in progress, and the index of the next address to try.
    struct RaceStart: Sendable {
        let begin: TimeInterval
        let pending: Attempt?
        let next: Int
        /// The first address, when its attempt failed on the calling thread.
        var failed: IPAddress? = nil
    }

    /// The race itself; blocks its thread in poll(2) for at most `timeout` from the race's start.
    /// - Parameter head: How far `race` got on the calling thread; nil starts from nothing.
    static func raceBlocking(
        _ addresses: [IPAddress], port: Int, timeout: TimeInterval, cancellation: Cancellation? = nil,
        from head: RaceStart? = nil
    ) -> Outcome {
        let begin = head?.begin ?? now()
        let deadline = begin + timeout
        var pending: [Attempt] = head?.pending.map { [$0] } ?? []
        var next = head?.next ?? 0
        // The next attempt waits for the Connection Attempt Delay after one still in progress, and
        // starts at once after one that failed.
        var nextStart = pending.isEmpty ? begin : begin + attemptDelay
        var attempts: [(address: IPAddress, result: AddressRanking.Result)] = head?.failed.map { [($0, .failed)] } ?? []
        defer { for attempt in pending { close(attempt.fd) } }
        func won(_ fd: Int32, _ address: IPAddress, started: TimeInterval) -> Outcome {
            let end = now()
            // Attempts still pending lost to this one: they were at least as slow as they had been waiting.
            attempts += pending.filter { $0.fd != fd }.map { ($0.address, .beaten(pendingFor: end - $0.started)) }
            attempts.append((address, .connected(end - started)))
            return Outcome(winner: Winner(fd: fd, address: address), elapsed: end - begin, timedOut: false, attempts: attempts)
        }
        func lost(timedOut: Bool) -> Outcome {
            attempts += pending.map { ($0.address, .failed) }
            return Outcome(winner: nil, elapsed: now() - begin, timedOut: timedOut, attempts: attempts)
        }
        while true {
            let current = now()
            if current >= deadline || cancellation?.isCancelled == true { return lost(timedOut: true) }
            if next < addresses.count, current >= nextStart || pending.isEmpty {
                let address = addresses[next]
                next += 1
                nextStart = current + attemptDelay
                switch start(address, port: port) {
                case .connected(let fd):
                    return won(fd, address, started: current)
                case .inProgress(let fd):
                    pending.append(Attempt(fd: fd, address: address, started: current))
                case .failed:
                    attempts.append((address, .failed))
                    nextStart = current // a refused or unroutable address hands over at once
                    continue
                }
            }
            if pending.isEmpty {
                if next >= addresses.count { return lost(timedOut: false) }
                continue
            }
            var polls = pending.map { pollfd(fd: $0.fd, events: Int16(POLLOUT), revents: 0) }
            let wait = min(deadline, next < addresses.count ? nextStart : deadline, current + pollSlice) - now()
            let ready = poll(&polls, nfds_t(polls.count), Int32(max(0, (wait * 1000).rounded(.up))))
            guard ready > 0 else { continue }
            var failed: [Int] = []
            for (index, entry) in polls.enumerated() where entry.revents != 0 {
                if connectionSucceeded(entry.fd) {
                    let winner = pending.remove(at: index)
                    return won(winner.fd, winner.address, started: winner.started)
                }
                failed.append(index)
            }
            for index in failed.reversed() {
                attempts.append((pending[index].address, .failed))
                close(pending[index].fd)
                pending.remove(at: index)
            }
            if !failed.isEmpty {
                nextStart = now()
                if pending.isEmpty, next >= addresses.count { return lost(timedOut: false) }
            }
        }
    }

    enum Start {
        case connected(Int32)
        case inProgress(Int32)
        case failed
    }

    /// For a socket whose non-blocking connect poll(2) reported done: whether it connected
    /// (SO_ERROR 0) rather than failed.
    static func connectionSucceeded(_ fd: Int32) -> Bool {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
        return error == 0
    }

    static func start(_ address: IPAddress, port: Int) -> Start {
        let fd = socket(address.socketFamily, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failed }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let result = address.withSocketAddress(port: port) { connect(fd, $0, $1) }
        if result == 0 { return .connected(fd) }
        if errno == EINPROGRESS { return .inProgress(fd) }
        close(fd)
        return .failed
    }
}

/// Which address of each route connected last, so a route with a live pooled connection is not raced
/// again (a race would open a connection libcurl then does not need) and later connections start with
/// the address that worked (RFC 8305 §4 "historical data"). Requests that arrive while a route's race
/// runs wait for it rather than handing libcurl the unraced list (whose dead first address would cost
/// each of them half the connect timeout).
final class RouteMemory: Sendable {
    static let shared = RouteMemory()

    /// How long a route counts as recently connected: below libcurl's CURLOPT_MAXAGE_CONN default of
    /// 118 s, so an idle pooled connection would still be there.
    static let freshness: TimeInterval = 100

    /// A race in progress: its outcome, with the winning socket already closed.
    typealias Race = Task<HappyEyeballs.Outcome, Never>

    /// What a request does about a route.
    enum Claim {
        /// Await this race, which the claim started; the caller then calls `finish`.
        case race(Race)
        /// Another request's race for the route is running: await its outcome.
        case join(Race)
        /// The route was raced recently; the address that won.
        case known(IPAddress?)
    }

    private struct Entry {
        var time: TimeInterval
        var winner: IPAddress?
        var pending: Race?
    }

    private let entries = LockedValue<[String: Entry]>([:])

    private static func now() -> TimeInterval { TimeInterval(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000 }

    /// Claims `key`: joins a race in progress, returns the last winner of a route raced within
    /// `freshness`, or starts `race` (recording it, so later claims join it).
    func claim(_ key: String, race: @escaping @Sendable () async -> HappyEyeballs.Outcome) -> Claim {
        let current = Self.now()
        return entries.withLock { entries in
            if let entry = entries[key] {
                if let pending = entry.pending { return .join(pending) }
                if current - entry.time < Self.freshness { return .known(entry.winner) }
            }
            if entries.count > 4_096 { entries = entries.filter { $0.value.pending != nil || current - $0.value.time < Self.freshness } }
            let task = Race { await race() }
            entries[key] = Entry(time: current, winner: nil, pending: task)
            return .race(task)
        }
    }

    /// Ends `key`'s race: remembers its winner, or forgets the route when nothing won, so the next
    /// request races again.
    func finish(_ key: String, winner: IPAddress?) {
        let current = Self.now()
        entries.withLock { entries in
            if let winner {
                entries[key] = Entry(time: current, winner: winner, pending: nil)
            } else {
                entries.removeValue(forKey: key)
            }
        }
    }

    /// Waits for `race` unless the calling task is cancelled first.
    /// - Returns: The outcome, or nil when the task was cancelled (the race itself runs on: other
    ///   requests may be waiting for it, and it ends within its timeout).
    static func outcome(of race: Race) async -> HappyEyeballs.Outcome? {
        let waiter = Waiter()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard waiter.wait(continuation) else { return }
                Task { waiter.finish(await race.value) }
            }
        } onCancel: {
            waiter.finish(nil)
        }
    }

    /// One continuation resumed once, by the race's end or by cancellation, whichever comes first.
    private final class Waiter: Sendable {
        private let state = LockedValue<(continuation: CheckedContinuation<HappyEyeballs.Outcome?, Never>?, finished: Bool)>((nil, false))

        /// Stores `continuation`; false (having resumed it with nil) when already cancelled.
        func wait(_ continuation: CheckedContinuation<HappyEyeballs.Outcome?, Never>) -> Bool {
            let cancelled = state.withLock { state in
                if state.finished { return true }
                state.continuation = continuation
                return false
            }
            if cancelled { continuation.resume(returning: nil) }
            return !cancelled
        }

        func finish(_ outcome: HappyEyeballs.Outcome?) {
            let continuation = state.withLock { state in
                state.finished = true
                defer { state.continuation = nil }
                return state.continuation
            }
            continuation?.resume(returning: outcome)
        }
    }
}
