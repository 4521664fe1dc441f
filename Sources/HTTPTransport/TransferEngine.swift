import Foundation
import HTTPDNSCore
import Synchronization
import TLSTrust
#if canImport(Glibc)
import Glibc
#endif
internal import CCurl
internal import CHTTPDNSShims

/// The process-wide libcurl event loop: one thread runs every transfer through the multi socket
/// interface (curl_multi_socket_action) over one epoll set, for all connection pools.
///
/// Other threads talk to it through `submit` and `cancel`, which queue a command and wake the
/// loop through an eventfd; except that a submission finding the loop blocked in epoll_wait starts
/// the transfer itself, and with nothing else in flight waits briefly for its response (see `submit`).
final class TransferEngine: @unchecked Sendable {  // loop state is guarded by `loopLock` (held by the transfer thread except while it waits in epoll_wait); the inbox and pool registry are LockedValues
    static let shared = TransferEngine()

    private enum Command {
        case start(Transfer)
        case cancel(Transfer)
        case closeIdle(PoolDescriptor, CheckedContinuation<Bool, Never>)
    }

    private let inbox = LockedValue<[Command]>([])
    /// True while the transfer thread may block in epoll_wait; see `wakeIfWaiting`.
    private let waiting = Atomic<Bool>(false)
    private let registry = LockedValue<[PoolKey: PoolDescriptor]>([:])
    /// Guards the loop state below and every libcurl multi handle.
    private let loopLock = NSLock()
    /// libcurl's timers: a timerfd in the epoll set, armed for the earliest pool deadline, so a
    /// thread that starts a transfer can move it without waking the transfer thread.
    private let timerFD: Int32
    /// The deadline `timerFD` is armed for (uptime ns), nil when it is not armed.
    private var armedDeadline: UInt64?
    /// Every socket libcurl watches, the eventfd and the timerfd.
    private let epollFD: Int32
    /// What the transfer thread sleeps on: a set holding only `epollFD`, so that a caller waiting
    /// for its own response (`drive`) can take `epollFD` out of it and be the one thread woken.
    private let outerFD: Int32
    private let wakeFD: Int32
    /// The events a driving caller reads (under `loopLock`).
    private let driveEvents = UnsafeMutablePointer<httpdns_event>.allocate(capacity: 64)
    /// Submissions left that will not drive, after a drive whose response did not come in time.
    private var driveSkips = 0

    // Loop state (under `loopLock`).
    private var pools: [Int: ConnectionPool] = [:]
    /// The pool that owns each watched socket and the events it is watched for.
    private var socketOwners: [Int32: (pool: ConnectionPool, mask: Int32)] = [:]
    private var active: [ObjectIdentifier: Transfer] = [:]

    private init() {
        curl_global_init(Int(CURL_GLOBAL_ALL))
        epollFD = httpdns_epoll_create()
        outerFD = httpdns_epoll_create()
        wakeFD = httpdns_eventfd()
        timerFD = httpdns_timerfd()
        precondition(epollFD >= 0 && outerFD >= 0 && wakeFD >= 0 && timerFD >= 0, "httpdns: cannot create epoll/eventfd/timerfd: errno \(errno)")
        _ = httpdns_epoll_ctl(epollFD, Int32(HTTPDNS_WATCH_ADD), wakeFD, Int32(HTTPDNS_EVENT_IN))
        _ = httpdns_epoll_ctl(epollFD, Int32(HTTPDNS_WATCH_ADD), timerFD, Int32(HTTPDNS_EVENT_IN))
        _ = httpdns_epoll_ctl(outerFD, Int32(HTTPDNS_WATCH_ADD), epollFD, Int32(HTTPDNS_EVENT_IN))
        let thread = Thread { [self] in run() }
        thread.name = "httpdns.transfer"
        thread.start()
    }

    /// What separates pools: the trust policy (libcurl's reuse keys do not see what the TLS
    /// context callback does) and the HTTP version preference. libcurl 7.88 decides per host:port
    /// whether connections may multiplex: once one connection to a host is HTTP/2, transfers
    /// waiting to multiplex (CURLOPT_PIPEWAIT) are also put on an HTTP/1.1 connection to it (forced
    /// by `.http1_1`), where responses then reach the wrong transfers (curl issue #4885; seen in
    /// this suite as swapped bodies and stalls). Keeping `.http1_1` transfers in pools of their own
    /// means an HTTP/1.1 connection over TLS only ever has HTTP/1.1 users.
    struct PoolKey: Hashable {
        let trust: TrustPolicy
        let version: HTTPVersionPreference
    }

    /// The pool for `policy` and `version`, created on first use. Equal keys share one pool.
    func pool(for policy: TrustPolicy, version: HTTPVersionPreference) -> PoolDescriptor {
        let key = PoolKey(trust: policy, version: version)
        return registry.withLock { pools in
            if let existing = pools[key] { return existing }
            let descriptor = PoolDescriptor(id: pools.count + 1, trust: CompiledTrust(policy))
            pools[key] = descriptor
            return descriptor
        }
    }

    /// Starts `transfer`.
    ///
    /// When the transfer thread is blocked in epoll_wait, the calling thread takes the loop lock and
    /// starts the transfer itself (on a pooled connection that sends the request at once) and
    /// re-arms the timerfd for libcurl's next timer. With no other transfer in flight it then waits
    /// up to `driveBudget` for the response (`drive`), so that a sequential caller goes on without a
    /// thread switch, as a blocking easy handle's does; past that, or when another command arrives,
    /// the transfer thread takes over. Otherwise the transfer is queued for the loop's next turn.
    func submit(_ transfer: Transfer) {
        if loopLock.try() {
            let drives = active.isEmpty && mayDrive()
            start(transfer)
            var touched: [ConnectionPool] = []
            runDueTimers(&touched)
            for pool in touched { collectCompleted(pool) }
            if drives, active[ObjectIdentifier(transfer)] != nil { drive(until: transfer) }
            armTimer()
            loopLock.unlock()
            return
        }
        inbox.withLock { $0.append(.start(transfer)) }
        wakeIfWaiting()
    }

    /// How long a submitting caller waits for its own response before leaving it to the transfer
    /// thread: a loopback or LAN round trip fits, an Internet one does not (and then costs one wait
    /// in `driveSkipsAfterMiss + 1` requests).
    static let driveBudget: UInt64 = 2_000_000  // ns
    static let driveSkipsAfterMiss = 32

    /// Whether this submission may wait for its response on the calling thread (loop lock held): not
    /// on the main thread, and not just after a wait that ran out.
    private func mayDrive() -> Bool {
        if driveSkips > 0 {
            driveSkips -= 1
            return false
        }
        return !Thread.isMainThread
    }

    /// Runs the loop's turns on the calling thread (loop lock held) until `transfer` completes, a
    /// command arrives for the transfer thread, or `driveBudget` runs out. `epollFD` is taken out of
    /// the transfer thread's set meanwhile, so the response wakes this thread only.
    private func drive(until transfer: Transfer) {
        let remove = Int32(HTTPDNS_WATCH_REMOVE), add = Int32(HTTPDNS_WATCH_ADD)
        guard httpdns_epoll_ctl(outerFD, remove, epollFD, 0) == 0 else { return }
        defer { _ = httpdns_epoll_ctl(outerFD, add, epollFD, Int32(HTTPDNS_EVENT_IN)) }
        let id = ObjectIdentifier(transfer)
        let deadline = DispatchTime.now().uptimeNanoseconds + Self.driveBudget
        while active[id] != nil {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else {
                driveSkips = Self.driveSkipsAfterMiss
                return
            }
            armTimer()
            let count = httpdns_epoll_wait(epollFD, driveEvents, 64, Int32((deadline - now + 999_999) / 1_000_000))
            if count < 0 {
                if errno == EINTR { continue }
                return
            }
            var touched: [ConnectionPool] = []
            let commandWaiting = handle(UnsafeBufferPointer(start: driveEvents, count: Int(count)), readingWake: false, touched: &touched)
            runDueTimers(&touched)
            for pool in touched { collectCompleted(pool) }
            // The eventfd stays readable: the transfer thread wakes as soon as `epollFD` is back.
            if commandWaiting { return }
        }
    }

    /// Stops `transfer` if it is running (or stops it from starting); it then fails with
    /// `CancellationError`.
    func cancel(_ transfer: Transfer) {
        transfer.markCancelled()
        inbox.withLock { $0.append(.cancel(transfer)) }
        wakeIfWaiting()
    }

    /// Writes the eventfd only when the transfer thread is (about to be) blocked in epoll_wait: a
    /// busy loop drains the inbox on its next turn anyway, and under load most submissions then
    /// cost no system call and no wake-up. The loop raises `waiting` before its last look at the
    /// inbox (under the inbox lock), so a command queued after that look always sees it raised.
    private func wakeIfWaiting() {
        guard waiting.exchange(false, ordering: .sequentiallyConsistent) else { return }
        wake()
    }

    /// Closes the idle connections of `descriptor`'s pool and drops its TLS sessions, by cleaning up
    /// its multi and share handles (a new pair is made on next use), unless a transfer is in flight
    /// in it. - Returns: false when the pool was busy and left as it was.
    func closeIdleConnections(of descriptor: PoolDescriptor) async -> Bool {
        await withCheckedContinuation { continuation in
            inbox.withLock { $0.append(.closeIdle(descriptor, continuation)) }
            wake()
        }
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    // MARK: Transfer thread

    private func run() {
        // A write to a peer that closed could raise SIGPIPE. Blocking it on this thread turns that
        // into EPIPE without changing the process's signal handling. (libcurl 7.88 sends through
        // its own OpenSSL BIO with MSG_NOSIGNAL, which is what makes starting transfers on other
        // threads in `submit` safe as well.)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &set, nil)

        var events = [httpdns_event](repeating: httpdns_event(), count: 256)
        loopLock.lock()
        while true {
            drainInbox()
            waiting.store(true, ordering: .sequentiallyConsistent)
            // A command queued between the drain above and the store would not wake us: look again.
            let timeout: Int32 = inbox.withLock { $0.isEmpty } ? -1 : 0
            armTimer()
            loopLock.unlock()
            var ready = httpdns_event()
            let signalled = httpdns_epoll_wait(outerFD, &ready, 1, timeout)
            loopLock.lock()
            waiting.store(false, ordering: .sequentiallyConsistent)
            if signalled < 0 {
                if errno == EINTR { continue }
                fatalError("httpdns: epoll_wait failed: errno \(errno)")
            }
            // The outer set only says that `epollFD` has events: read them.
            let count = signalled == 0 ? 0 : events.withUnsafeMutableBufferPointer { buffer in
                httpdns_epoll_wait(epollFD, buffer.baseAddress, Int32(buffer.count), 0)
            }
            var touched: [ConnectionPool] = []
            events.withUnsafeBufferPointer { buffer in
                _ = handle(UnsafeBufferPointer(rebasing: buffer[0..<max(0, Int(count))]), readingWake: true, touched: &touched)
            }
            runDueTimers(&touched)
            for pool in touched { collectCompleted(pool) }
        }
    }

    /// Passes socket events to their pools' libcurl and notes an expired timerfd (loop lock held).
    /// - Returns: whether the eventfd was signalled (a command is queued); it is read (reset) only
    ///   when `readingWake`.
    private func handle(_ events: UnsafeBufferPointer<httpdns_event>, readingWake: Bool, touched: inout [ConnectionPool]) -> Bool {
        var woken = false
        for event in events {
            let fd = event.fd
            if fd == wakeFD {
                woken = true
                if readingWake {
                    var value: UInt64 = 0
                    _ = read(fd, &value, 8)
                }
                continue
            }
            if fd == timerFD {
                // One-shot: once it has expired it is disarmed. (A re-arm after the expiry
                // and before this read cleared the expiry; the read then finds none.)
                var value: UInt64 = 0
                if read(fd, &value, 8) == 8 { armedDeadline = nil }
                continue
            }
            guard let pool = socketOwners[fd]?.pool else { continue }
            let flags = event.events
            var action: Int32 = 0
            if flags & Int32(HTTPDNS_EVENT_IN) != 0 { action |= CURL_CSELECT_IN }
            if flags & Int32(HTTPDNS_EVENT_OUT) != 0 { action |= CURL_CSELECT_OUT }
            if flags & Int32(HTTPDNS_EVENT_ERROR) != 0 { action |= CURL_CSELECT_ERR }
            pool.socketAction(fd, action)
            touched.append(pool)
        }
        return woken
    }

    /// Runs curl_multi_socket_action(CURL_SOCKET_TIMEOUT) for every pool whose timer is due.
    private func runDueTimers(_ touched: inout [ConnectionPool]) {
        let now = DispatchTime.now().uptimeNanoseconds
        for pool in pools.values {
            if let deadline = pool.deadline, deadline <= now {
                pool.deadline = nil
                pool.socketAction(CURL_SOCKET_TIMEOUT, 0)
                touched.append(pool)
            }
        }
    }

    private func earliestDeadline() -> UInt64? {
        var earliest: UInt64?
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
        let commands = inbox.withLock { queue -> [Command] in
            let taken = queue
            queue.removeAll(keepingCapacity: true)
            return taken
        }
        for command in commands {
            switch command {
            case .start(let transfer): start(transfer)
            case .cancel(let transfer): stop(transfer)
            case .closeIdle(let descriptor, let continuation): continuation.resume(returning: closeIdle(descriptor))
            }
        }
    }

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
        transfer.attach(share: pool.share)
        let code = curl_multi_add_handle(pool.multi, transfer.easy)
        guard code == CURLM_OK else {
            let reason = String(cString: curl_multi_strerror(code))
            transfer.finish(.failure(HTTPClientError(kind: .transferFailed, message: "libcurl refused the transfer: \(reason)", url: transfer.url)))
            return
        }
        active[ObjectIdentifier(transfer)] = transfer
    }

    private func stop(_ transfer: Transfer) {
        guard active.removeValue(forKey: ObjectIdentifier(transfer)) != nil,
              let pool = pools[transfer.pool.id] else { return }
        curl_multi_remove_handle(pool.multi, transfer.easy)
        transfer.detachShare()
        transfer.finish(.failure(CancellationError()))
    }

    private func closeIdle(_ descriptor: PoolDescriptor) -> Bool {
        guard let pool = pools[descriptor.id] else { return true }
        guard !active.values.contains(where: { $0.pool === descriptor }) else { return false }
        pools[descriptor.id] = nil
        pool.close()
        // libcurl reports the closed sockets through the socket callback; drop any it did not.
        for (socket, owner) in socketOwners where owner.pool === pool {
            _ = httpdns_epoll_ctl(epollFD, Int32(HTTPDNS_WATCH_REMOVE), socket, 0)
            socketOwners[socket] = nil
        }
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
            // Read what the connection told us before the handle leaves the multi handle.
            let outcome = transfer.outcome(for: result)
            curl_multi_remove_handle(pool.multi, easy)
            transfer.detachShare()
            transfer.finish(outcome)
        }
    }

    /// Called by libcurl (through the pool's socket callback) under the loop lock.
    func watch(socket: Int32, events: Int32, pool: ConnectionPool) {
        if events == CURL_POLL_REMOVE {
            // A pool may report a socket gone after its number was reused by another pool's new
            // connection; only the owner may stop the watch.
            guard socketOwners[socket]?.pool === pool else { return }
            _ = httpdns_epoll_ctl(epollFD, Int32(HTTPDNS_WATCH_REMOVE), socket, 0)
            socketOwners[socket] = nil
            return
        }
        var mask: Int32 = 0
        if events & CURL_POLL_IN != 0 { mask |= Int32(HTTPDNS_EVENT_IN) }
        if events & CURL_POLL_OUT != 0 { mask |= Int32(HTTPDNS_EVENT_OUT) }
        let known = socketOwners[socket]
        // libcurl repeats a socket's events after every action on it; re-arming an unchanged
        // watch is a system call per request for nothing. (A socket libcurl closes is reported
        // CURL_POLL_REMOVE first, so an unchanged entry is still registered.)
        if let known, known.pool === pool, known.mask == mask { return }
        let add = Int32(HTTPDNS_WATCH_ADD), modify = Int32(HTTPDNS_WATCH_MODIFY)
        if httpdns_epoll_ctl(epollFD, known != nil ? modify : add, socket, mask) != 0 {
            // The fd was closed and reused, or registered by another pool: take it over.
            _ = httpdns_epoll_ctl(epollFD, known != nil ? add : modify, socket, mask)
        }
        socketOwners[socket] = (pool, mask)
    }
}
