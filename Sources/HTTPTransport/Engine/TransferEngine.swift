import Foundation
import HTTPDNSCore
import Synchronization
import TLSTrust
#if canImport(Glibc)
    import Glibc
#endif
internal import CCurl
internal import CHTTPDNSShims

/// The process-wide libcurl event loop, and the Swift executor it runs on.
///
/// One thread runs every transfer through the multi socket interface (curl_multi_socket_action)
/// over one epoll set, for all connection pools, and runs Swift jobs between its turns: it is a
/// `TaskExecutor`, with a `SerialExecutor` beside it (`serialExecutor`), as SwiftNIO's event loops are. `HTTPClient.execute` runs
/// its request's own work on it (`withTaskExecutorPreference`), so options are set, the response is
/// built and the caller's continuation runs on the loop thread; a caller already on it
/// (`HTTPClient.executor`) makes no thread hop at all. A caller elsewhere builds its transfer on
/// its own thread and, while the loop sleeps in epoll_wait, starts it there too (`submit`): the
/// loop is then woken only by the response. The loop state below is guarded by `state`, which the
/// loop holds whenever it runs libcurl and releases to sleep and to run Swift jobs; other commands
/// reach the loop through the inbox, which wakes it through an eventfd when it sleeps.
final class TransferEngine: TaskExecutor, @unchecked Sendable { // loop state is guarded by `state`; the inbox and pool registry are LockedValues
    static let shared = TransferEngine()

    enum Command {
        case job(UnownedJob)
        case isolatedJob(UnownedJob)
        case start(Transfer)
        case cancel(Transfer)
        case closeIdle(PoolDescriptor, CheckedContinuation<Bool, Never>)
        case retire(PoolDescriptor, CheckedContinuation<Bool, Never>)
        /// A pool `retire` marked while busy has become idle (`end`).
        case closeRetired(PoolDescriptor)
        case inspect(PoolDescriptor, CheckedContinuation<SocketState, Never>)
    }

    let inbox = LockedValue<[Command]>([])
    /// Held by whichever thread runs libcurl for the loop's state (see the type's comment); a caller
    /// only ever try-locks it (`submit`).
    private let state = LockedValue<Void>(())
    /// True while the loop thread may block in epoll_wait; see `wakeIfWaiting`.
    let waiting = Atomic<Bool>(false)
    /// The loop thread's `pthread_self()`, 0 until it runs.
    let loopThread = Atomic<UInt>(0)
    private let registry = LockedValue<[PoolKey: PoolDescriptor]>([:])
    /// libcurl's timers: a timerfd in the epoll set, armed for the earliest pool deadline.
    private let timerFD: Int32
    /// The deadline `timerFD` is armed for (uptime ns), nil when it is not armed.
    private var armedDeadline: UInt64?
    let epollFD: Int32
    private let wakeFD: Int32

    // Loop state (with `state` held).
    private var pools: [Int: ConnectionPool] = [:]
    /// A socket in the epoll set: the pool that owns it, the events it is registered for, and
    /// whether it is parked (see `watch`).
    struct Watch {
        let pool: ConnectionPool
        var mask: Int32
        var parked = false
    }
    /// Every socket in the epoll set except the eventfd and timerfd.
    var socketOwners: [Int32: Watch] = [:]
    /// The sockets libcurl opened and has not closed, as told by the socket lifecycle callbacks
    /// (CURLOPT_OPENSOCKETFUNCTION, CURLOPT_CLOSESOCKETFUNCTION).
    var curlSockets: Set<Int32> = []
    private var active: [ObjectIdentifier: Transfer] = [:]
    /// When the transfers that libcurl may queue are next checked against their time limits
    /// (uptime ns; nil: none in flight); see `enforceTimeLimits`.
    private var nextLimitCheck: UInt64?
    /// How often those checks run, and so how late past its limit a waiting transfer may fail.
    private static let limitCheckInterval: UInt64 = 100_000_000 // ns

    private init() {
        curl_global_init(Int(CURL_GLOBAL_ALL))
        epollFD = httpdns_epoll_create()
        wakeFD = httpdns_eventfd()
        timerFD = httpdns_timerfd()
        precondition(epollFD >= 0 && wakeFD >= 0 && timerFD >= 0, "httpdns: cannot create epoll/eventfd/timerfd: errno \(errno)")
        _ = httpdns_epoll_ctl(epollFD, Int32(HTTPDNS_WATCH_ADD), wakeFD, Int32(HTTPDNS_EVENT_IN))
        _ = httpdns_epoll_ctl(epollFD, Int32(HTTPDNS_WATCH_ADD), timerFD, Int32(HTTPDNS_EVENT_IN))
        httpdns_set_socket_lifecycle_callback(socketLifecycleCallback)
        let thread = Thread { [self] in run() }
        thread.name = "httpdns.transfer"
        thread.start()
    }

    /// The loop as a serial executor, for actors (`HTTPClient.serialExecutor`).
    let serialExecutor = LoopSerialExecutor()

    /// True on the loop thread.
    var isOnLoop: Bool { loopThread.load(ordering: .relaxed) == UInt(bitPattern: Int(bitPattern: pthread_self())) }

    /// What separates pools: the trust policy (libcurl's reuse keys do not see what the TLS
    /// context callback does), the HTTP version preference (HTTP/1.1 transfers never meet
    /// multiplexing ones: Documentation/LibcurlNotes.md #2), the per-host connection limit (a
    /// multi handle's setting) and whether HTTP/2 connections are shared (#7).
    struct PoolKey: Hashable {
        let trust: TrustPolicy
        let version: HTTPVersionPreference
        let connectionsPerHost: Int?
        let multiplexes: Bool
    }

    /// The pool for `policy`, `version`, `connectionsPerHost` and `multiplexes`, created on first
    /// use. Equal keys share one pool.
    func pool(for policy: TrustPolicy, version: HTTPVersionPreference, connectionsPerHost: Int?, multiplexes: Bool = true) -> PoolDescriptor {
        let key = PoolKey(trust: policy, version: version, connectionsPerHost: connectionsPerHost, multiplexes: multiplexes)
        if let existing = registry.withLock({ $0[key] }) { return existing }
        // Compiled outside the lock: parsing the system roots takes tens of milliseconds, and the
        // loop takes the lock for every request that picks a pool.
        return register(key, CompiledTrust(policy))
    }

    /// `pool(for:...)` from the loop: a policy seen for the first time is compiled on another
    /// thread, so that the loop goes on serving every other transfer meanwhile.
    func poolOffLoop(for policy: TrustPolicy, version: HTTPVersionPreference, connectionsPerHost: Int?, multiplexes: Bool) async -> PoolDescriptor {
        let key = PoolKey(trust: policy, version: version, connectionsPerHost: connectionsPerHost, multiplexes: multiplexes)
        if let existing = registry.withLock({ $0[key] }) { return existing }
        let compiled = await Task.detached { CompiledTrust(policy) }.value
        return register(key, compiled)
    }

    /// The pool for `key`: the one registered meanwhile, if any, else a new one with `trust`.
    private func register(_ key: PoolKey, _ trust: CompiledTrust) -> PoolDescriptor {
        registry.withLock { pools in
            if let existing = pools[key] { return existing }
            let descriptor = PoolDescriptor(id: pools.count + 1, trust: trust, connectionsPerHost: key.connectionsPerHost, multiplexes: key.multiplexes)
            pools[key] = descriptor
            return descriptor
        }
    }

    /// Starts `transfer`, which is then the loop's (`state`'s), from any thread.
    ///
    /// On the loop thread (a caller on `HTTPClient.executor`) it starts at once, and libcurl runs
    /// it on the loop's next turn. Elsewhere, while the loop sleeps in epoll_wait with `state`
    /// free, the caller's thread starts it and runs libcurl's first step (the request is written,
    /// or the connection begun; its sockets and timer join the epoll set the loop sleeps on), so
    /// the loop is not woken to start it: one thread wake-up fewer per request. Otherwise (the loop
    /// is busy, or another thread holds `state`) it is queued for the loop's next turn: a caller
    /// never waits for the lock.
    func submit(_ transfer: Transfer) {
        if isOnLoop {
            state.withLock { _ in start(transfer) }
            return
        }
        if waiting.load(ordering: .sequentiallyConsistent), state.withLockIfAvailable({ _ in startAndRun(transfer) }) != nil { return }
        enqueue(.start(transfer))
    }

    /// Starts `transfer` and runs libcurl's first step for it at once: the timer its start asked
    /// for ("now"), then the transfers that step completed, then the timerfd. With `state` held.
    private func startAndRun(_ transfer: Transfer) {
        start(transfer)
        runDueTimers(&touchedPools)
        collectTouched()
        armTimer()
    }

    /// Stops `transfer` if it is running (or stops it from starting); it then fails with
    /// `CancellationError`. Any thread.
    func cancel(_ transfer: Transfer) {
        transfer.markCancelled()
        enqueue(.cancel(transfer))
    }

    /// Queues `command` for the loop's next turn, waking the loop when it sleeps.
    func enqueue(_ command: Command) {
        inbox.withLock { $0.append(command) }
        wakeIfWaiting()
    }

    /// Writes the eventfd only when the loop thread is (about to be) blocked in epoll_wait: a busy
    /// loop drains the inbox on its next turn anyway, so under load, and for every job the loop
    /// queues for itself, a command costs no system call. The loop raises `waiting` before its last
    /// look at the inbox (under the inbox lock), so a command queued after that look always sees it
    /// raised.
    private func wakeIfWaiting() {
        guard waiting.exchange(false, ordering: .sequentiallyConsistent) else { return }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    /// Closes the idle connections of `descriptor`'s pool and drops its TLS sessions, by cleaning up
    /// its multi and share handles (a new pair is made on next use), unless a transfer is in flight
    /// in it. - Returns: false when the pool was busy and left as it was.
    func closeIdleConnections(of descriptor: PoolDescriptor) async -> Bool {
        await withCheckedContinuation { continuation in enqueue(.closeIdle(descriptor, continuation)) }
    }

    /// Closes `descriptor`'s pool as `closeIdleConnections(of:)` does, or, when a transfer is in
    /// flight in it, once its last transfer ends (a network change: no connection of it is to be
    /// reused). - Returns: false when the close was put off.
    func retire(_ descriptor: PoolDescriptor) async -> Bool {
        await withCheckedContinuation { continuation in enqueue(.retire(descriptor, continuation)) }
    }

    /// The sockets of `descriptor`'s pool in the epoll set, the parked ones among them, and whether
    /// the pool parks sockets (for tests).
    struct SocketState: Sendable {
        var watched: [Int32]
        var parked: [Int32]
        var parks: Bool
    }

    func watchedSockets(of descriptor: PoolDescriptor) async -> SocketState {
        await withCheckedContinuation { continuation in enqueue(.inspect(descriptor, continuation)) }
    }

    private func socketState(of descriptor: PoolDescriptor) -> SocketState {
        guard let pool = pools[descriptor.id] else { return SocketState(watched: [], parked: [], parks: true) }
        let mine = socketOwners.filter { $0.value.pool === pool }
        return SocketState(watched: mine.keys.sorted(), parked: mine.filter { $0.value.parked }.keys.sorted(), parks: pool.parksSockets)
    }

    // MARK: Loop thread

    private func run() {
        loopThread.store(UInt(bitPattern: Int(bitPattern: pthread_self())), ordering: .relaxed)
        // A write to a peer that closed could raise SIGPIPE. Blocking it on this thread turns that
        // into EPIPE without changing the process's signal handling.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &set, nil)

        var events = [httpdns_event](repeating: httpdns_event(), count: 256)
        while true {
            drainInbox()
            let timeout = state.withLock { _ in prepareToSleep() }
            let count = events.withUnsafeMutableBufferPointer { buffer in
                httpdns_epoll_wait(epollFD, buffer.baseAddress, Int32(buffer.count), timeout)
            }
            waiting.store(false, ordering: .sequentiallyConsistent)
            if count < 0 {
                if errno == EINTR { continue }
                fatalError("httpdns: epoll_wait failed: errno \(errno)")
            }
            state.withLock { _ in serve(events[..<Int(count)]) }
        }
    }

    /// Runs what is due before the loop sleeps and says how long epoll_wait may block: -1 (until
    /// an event) or 0 (a command is already queued). With `state` held.
    private func prepareToSleep() -> Int32 {
        // A transfer just added asks libcurl's timer for "now": run it here rather than arm the
        // timerfd for it and come back through epoll_wait.
        runDueTimers(&touchedPools)
        collectTouched()
        waiting.store(true, ordering: .sequentiallyConsistent)
        // A command queued between the drain and the store would not wake us: look again.
        let timeout: Int32 = inbox.withLock { $0.isEmpty } ? -1 : 0
        armTimer()
        return timeout
    }

    /// Hands the events epoll_wait returned to libcurl, then runs the due timers and collects the
    /// completed transfers. With `state` held.
    private func serve(_ events: ArraySlice<httpdns_event>) {
        for event in events {
            let fd = event.fd
            if fd == wakeFD {
                var value: UInt64 = 0
                _ = read(fd, &value, 8)
                continue
            }
            if fd == timerFD {
                // One-shot: once it has expired it is disarmed. (A re-arm after the expiry
                // and before this read cleared the expiry; the read then finds none.)
                var value: UInt64 = 0
                if read(fd, &value, 8) == 8 { armedDeadline = nil }
                continue
            }
            guard let owner = socketOwners[fd] else { continue }
            if owner.parked {
                // Data or a close on a connection libcurl keeps idle (nginx closes idle
                // connections when it runs short of them): libcurl finds out itself when it
                // next uses the connection (it checks a pooled one before reuse). Left in the
                // set, a closed connection would wake this loop for ever.
                unwatch(fd)
                continue
            }
            let pool = owner.pool
            let flags = event.events
            var action: Int32 = 0
            if flags & Int32(HTTPDNS_EVENT_IN) != 0 { action |= CURL_CSELECT_IN }
            if flags & Int32(HTTPDNS_EVENT_OUT) != 0 { action |= CURL_CSELECT_OUT }
            if flags & Int32(HTTPDNS_EVENT_ERROR) != 0 { action |= CURL_CSELECT_ERR }
            pool.socketAction(fd, action)
            if touchedPools.last !== pool { touchedPools.append(pool) }
        }
        runDueTimers(&touchedPools)
        collectTouched()
    }

    /// The pools libcurl ran in this turn of the loop, kept between turns (emptied, with its
    /// capacity) so that a turn allocates none.
    private var touchedPools: [ConnectionPool] = []

    /// Collects the completed transfers of `touchedPools` and empties it.
    private func collectTouched() {
        for pool in touchedPools { collectCompleted(pool) }
        touchedPools.removeAll(keepingCapacity: true)
    }

    /// The pool whose timer action is running, if any (see `runDueTimers`).
    private var poolOnTimer: ConnectionPool?

    /// Runs curl_multi_socket_action(CURL_SOCKET_TIMEOUT) for every pool whose timer is due; a pool
    /// that stopped watching a socket on its timer is run once more at once, so that its next
    /// connect attempt starts (Documentation/LibcurlNotes.md #3).
    private func runDueTimers(_ touched: inout [ConnectionPool]) {
        let now = DispatchTime.now().uptimeNanoseconds
        for pool in pools.values {
            if let deadline = pool.deadline, deadline <= now {
                pool.deadline = nil
                poolOnTimer = pool
                pool.socketAction(CURL_SOCKET_TIMEOUT, 0)
                poolOnTimer = nil
                if pool.stoppedWatchingOnTimer {
                    pool.stoppedWatchingOnTimer = false
                    pool.runAll()
                }
                touched.append(pool)
            }
        }
        // After the pools' own timers, so that libcurl's time-outs come first.
        if let check = nextLimitCheck, check <= now {
            for pool in touched { collectCompleted(pool) }
            enforceTimeLimits(now)
        }
    }

    private func earliestDeadline() -> UInt64? {
        var earliest: UInt64? = nextLimitCheck
        for pool in pools.values {
            if let deadline = pool.deadline { earliest = min(earliest ?? deadline, deadline) }
        }
        return earliest
    }

    /// Arms `timerFD` for the earliest pool deadline when that is sooner than what it is armed for.
    ///
    /// A later deadline, or none, leaves the armed one alone: libcurl sets (and clears) a timer for
    /// every transfer, such as its connect timeout, so re-arming on each change cost a system call
    /// per request, while firing early costs one spurious turn of the loop, which re-arms.
    private func armTimer() {
        guard let earliest = earliestDeadline(), earliest < armedDeadline ?? .max else { return }
        armedDeadline = earliest
        let now = DispatchTime.now().uptimeNanoseconds
        _ = httpdns_timerfd_arm(timerFD, earliest > now ? Int64(earliest - now) : 0)
    }

    private func drainInbox() {
        // Swapped with an emptied array of its own: copying the queue out and emptying it in
        // place allocated a new buffer on every turn (the copy shared the old one).
        inbox.withLock { queue in swap(&queue, &drained) }
        // Jobs run without `state`: a request's job takes it to start its transfer (`submit`).
        for command in drained {
            switch command {
            case .job(let job): job.runSynchronously(on: asUnownedTaskExecutor())
            case .isolatedJob(let job): job.runSynchronously(isolatedTo: serialExecutor.asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
            case .start(let transfer): state.withLock { _ in start(transfer) }
            case .cancel(let transfer): state.withLock { _ in stop(transfer) }
            case .closeIdle(let descriptor, let continuation): continuation.resume(returning: state.withLock { _ in closeIdle(descriptor) })
            case .inspect(let descriptor, let continuation): continuation.resume(returning: state.withLock { _ in socketState(of: descriptor) })
            case .retire(let descriptor, let continuation): continuation.resume(returning: state.withLock { _ in retire(descriptor) })
            case .closeRetired(let descriptor):
                state.withLock { _ in
                    if pools[descriptor.id]?.closesWhenIdle == true { _ = closeIdle(descriptor) }
                }
            }
        }
        drained.removeAll(keepingCapacity: true)
    }

    /// The commands `drainInbox` took, while it serves them (loop thread).
    private var drained: [Command] = []

    private func connectionPool(_ descriptor: PoolDescriptor) -> ConnectionPool? {
        if let pool = pools[descriptor.id] { return pool }
        guard let pool = ConnectionPool(descriptor: descriptor, engine: self) else { return nil }
        pools[descriptor.id] = pool
        return pool
    }

    private func start(_ transfer: Transfer) {
        if transfer.isCancelled {
            transfer.finish(.failure(CancellationError()))
            return
        }
        guard let pool = connectionPool(transfer.pool) else {
            transfer.finish(.failure(HTTPClientError(kind: .transferFailed, message: "libcurl could not create a multi handle", url: transfer.url)))
            return
        }
        if pool.parksSockets, transfer.mayResolveInLibcurl { stopParking(in: pool) }
        do {
            try transfer.loadRoute(into: pool)
        } catch {
            transfer.finish(.failure(error))
            return
        }
        transfer.attach(share: pool.share)
        transfer.connectionPool = pool
        transfer.setUpsBegunAtStart = pool.setUpsBegun
        transfer.startedBesideOpening = pool.openingTransfers > 0
        let code = curl_multi_add_handle(pool.multi, transfer.easy)
        guard code == CURLM_OK else {
            transfer.connectionPool = nil
            let reason = String(cString: curl_multi_strerror(code))
            transfer.finish(.failure(HTTPClientError(kind: .transferFailed, message: "libcurl refused the transfer: \(reason)", url: transfer.url)))
            return
        }
        active[ObjectIdentifier(transfer)] = transfer
        if transfer.mayResolveInLibcurl { pool.noteSetUpBegun(by: transfer) }
        transfer.oversubscriptionsAtStart = pool.oversubscriptions
        pool.activeTransfers += 1
        if let limit = transfer.pool.connectionsPerHost, pool.activeTransfers > limit { pool.oversubscriptions += 1 }
        transfer.startedAt = DispatchTime.now().uptimeNanoseconds
        if nextLimitCheck == nil, transfer.pool.connectionsPerHost != nil || transfer.waitsToMultiplex {
            nextLimitCheck = transfer.startedAt + Self.limitCheckInterval
        }
    }

    /// Fails the transfers libcurl may hold in a queue without timing them out (waiting for a free
    /// connection, or to multiplex on one being opened: Documentation/LibcurlNotes.md #4) once
    /// `RequestDeadlines.queuedTransferLimitPassed` says so, every `limitCheckInterval` while any
    /// is in flight; libcurl fails the others itself at their limits, a grace interval earlier.
    private func enforceTimeLimits(_ now: UInt64) {
        var watched = false
        for transfer in active.values where transfer.pool.connectionsPerHost != nil || transfer.waitsToMultiplex {
            // Less a grace of one interval, so that libcurl's own time-outs come first.
            let elapsed = (TimeInterval(now) - TimeInterval(transfer.startedAt) - TimeInterval(Self.limitCheckInterval)) / 1e9
            let waitingForConnection = transfer.isWaitingForConnection
            let failure = RequestDeadlines.queuedTransferLimitPassed(
                elapsed: elapsed, connect: transfer.connectLimit, total: transfer.totalLimit,
                waitingForConnection: waitingForConnection
            )
            .map { transfer.timeoutError(after: $0, waitingForConnection: waitingForConnection) }
            guard let failure, let pool = pools[transfer.pool.id] else {
                watched = true
                continue
            }
            active.removeValue(forKey: ObjectIdentifier(transfer))
            end(transfer, in: pool, with: .failure(failure))
        }
        nextLimitCheck = watched ? now + Self.limitCheckInterval : nil
    }

    private func stop(_ transfer: Transfer) {
        guard active.removeValue(forKey: ObjectIdentifier(transfer)) != nil,
            let pool = pools[transfer.pool.id]
        else { return }
        end(transfer, in: pool, with: .failure(CancellationError()))
    }

    /// Takes `transfer` (already out of `active`) out of `pool`'s multi handle and resumes its caller.
    private func end(_ transfer: Transfer, in pool: ConnectionPool, with result: Result<HTTPResponse, any Error>) {
        curl_multi_remove_handle(pool.multi, transfer.easy)
        pool.activeTransfers -= 1
        if transfer.countsAsOpening { pool.openingTransfers -= 1 }
        transfer.connectionPool = nil
        // libcurl queues a transfer only under the connection limit, or to wait to multiplex
        // (CURLOPT_PIPEWAIT) on a connection being set up: see `ConnectionPool.oversubscriptions`
        // and `openingTransfers`.
        let oversubscribed = transfer.pool.connectionsPerHost != nil && pool.oversubscriptions != transfer.oversubscriptionsAtStart
        let besideSetUp = transfer.waitsToMultiplex && (transfer.startedBesideOpening || pool.setUpsBegun != transfer.setUpsBegunAtStart)
        transfer.detachShare()
        let decision = HandleReuse.decide(transfer.reuseFacts(after: result, oversubscribedMeanwhile: oversubscribed, besideConnectionSetUp: besideSetUp))
        if decision != .cleanUp { transfer.pool.reusableHandles.add(1, ordering: .relaxed) }
        if decision == .keepOptions { transfer.pool.handlesKeptWithOptions.add(1, ordering: .relaxed) }
        transfer.prepareHandle(decision)
        transfer.finish(result)
        // Closed on the next turn: `end` may run inside a walk of this pool's messages.
        if pool.closesWhenIdle, pool.activeTransfers == 0 { enqueue(.closeRetired(pool.descriptor)) }
    }

    private func retire(_ descriptor: PoolDescriptor) -> Bool {
        if closeIdle(descriptor) { return true }
        pools[descriptor.id]?.closesWhenIdle = true
        return false
    }

    private func closeIdle(_ descriptor: PoolDescriptor) -> Bool {
        guard let pool = pools[descriptor.id] else { return true }
        guard pool.activeTransfers == 0 else { return false }
        pools[descriptor.id] = nil
        pool.close()
        // libcurl reports the closed sockets through the socket callback; drop any it did not.
        for (socket, owner) in socketOwners where owner.pool === pool { unwatch(socket) }
        return true
    }

    private func collectCompleted(_ pool: ConnectionPool) {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(pool.multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let result = message.pointee.data.result
            var privateData: UnsafeMutableRawPointer?
            _ = httpdns_easy_getinfo_ptr(easy, CURLINFO_PRIVATE, &privateData)
            guard let privateData else { continue }
            let transfer = Unmanaged<Transfer>.fromOpaque(privateData).takeUnretainedValue()
            guard active.removeValue(forKey: ObjectIdentifier(transfer)) != nil else { continue }
            if result == CURLE_OK { transfer.confirmRoute(in: pool) }
            // Read what the connection told us before the handle leaves the multi handle.
            end(transfer, in: pool, with: transfer.outcome(for: result))
        }
    }

    /// Called by libcurl (through the pool's socket callback), with `state` held.
    ///
    /// A keep-alive connection is dropped from libcurl's watch list when its transfer ends and
    /// added back, for the same events, when the next transfer takes it: two epoll_ctl calls per
    /// request. So a socket libcurl opened through `socketLifecycleCallback` stays in the epoll set
    /// when libcurl stops watching it, parked: taking it back costs nothing, an event on it takes
    /// it out (see `run`), and closing it takes it out first (`socketLifecycle`). A socket libcurl
    /// closes without that callback (a connect attempt that never became the connection) may
    /// leave a parked entry for a number the kernel hands out again: the next socket libcurl
    /// opens with it clears the entry. The threaded resolver's socket pairs are not opened through
    /// the callback and could take such a number unseen, so a pool parks no socket once a transfer
    /// that lets libcurl resolve a name has started in it (`stopParking`). (Another pool taking
    /// the number is safe: the entry's pool differs, so the watch is registered anew.)
    func watch(socket: Int32, events: Int32, pool: ConnectionPool) {
        if events == CURL_POLL_REMOVE {
            // A pool may report a socket gone after its number was reused by another pool's new
            // connection; only the owner may stop the watch.
            if poolOnTimer === pool { pool.stoppedWatchingOnTimer = true }
            guard socketOwners[socket]?.pool === pool else { return }
            if pool.parksSockets, curlSockets.contains(socket) {
                socketOwners[socket]?.parked = true
                return
            }
            unwatch(socket)
            return
        }
        var mask: Int32 = 0
        if events & CURL_POLL_IN != 0 { mask |= Int32(HTTPDNS_EVENT_IN) }
        if events & CURL_POLL_OUT != 0 { mask |= Int32(HTTPDNS_EVENT_OUT) }
        let known = socketOwners[socket]
        // libcurl repeats a socket's events after every action on it; re-arming an unchanged
        // watch is a system call per request for nothing.
        if let known, known.pool === pool, known.mask == mask {
            if known.parked { socketOwners[socket]?.parked = false }
            return
        }
        let add = Int32(HTTPDNS_WATCH_ADD), modify = Int32(HTTPDNS_WATCH_MODIFY)
        if httpdns_epoll_ctl(epollFD, known != nil ? modify : add, socket, mask) != 0 {
            // The fd was closed and reused, or registered by another pool: take it over.
            _ = httpdns_epoll_ctl(epollFD, known != nil ? add : modify, socket, mask)
        }
        socketOwners[socket] = Watch(pool: pool, mask: mask)
    }

    /// libcurl opened `fd` (`opened`) or is about to close it. With `state` held: libcurl opens
    /// and closes sockets only inside the multi calls the engine makes under it.
    fileprivate func socketLifecycle(fd: Int32, opened: Bool) {
        if opened {
            // A number the kernel just handed out was closed before: an entry for it is stale,
            // and its registration went with the closed socket.
            socketOwners[fd] = nil
            curlSockets.insert(fd)
        } else {
            curlSockets.remove(fd)
            if socketOwners[fd] != nil { unwatch(fd) }
        }
    }

    /// Takes `pool`'s parked sockets out of the epoll set; it parks none from now on (see `watch`).
    private func stopParking(in pool: ConnectionPool) {
        pool.parksSockets = false
        for (fd, owner) in socketOwners where owner.parked && owner.pool === pool { unwatch(fd) }
    }

    /// Takes `fd` out of the epoll set and forgets its owner.
    private func unwatch(_ fd: Int32) {
        _ = httpdns_epoll_ctl(epollFD, Int32(HTTPDNS_WATCH_REMOVE), fd, 0)
        socketOwners[fd] = nil
    }
}

/// The socket lifecycle callback (see `TransferEngine.socketLifecycle`).
private let socketLifecycleCallback: httpdns_socket_lifecycle_callback = { fd, opened in
    TransferEngine.shared.socketLifecycle(fd: fd, opened: opened != 0)
}
