import Foundation
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
/// Other threads talk to it only through `submit` and `cancel`, which queue a command and wake the
/// loop through an eventfd.
final class TransferEngine: @unchecked Sendable {  // loop state is confined to the transfer thread; the inbox and pool registry are Mutex-protected
    static let shared = TransferEngine()

    private enum Command {
        case start(Transfer)
        case cancel(Transfer)
        case closeIdle(PoolDescriptor, CheckedContinuation<Bool, Never>)
    }

    private let inbox = Mutex<[Command]>([])
    private let registry = Mutex<[PoolKey: PoolDescriptor]>([:])
    private let epollFD: Int32
    private let wakeFD: Int32

    // Transfer-thread state.
    private var pools: [Int: ConnectionPool] = [:]
    private var socketOwners: [Int32: ConnectionPool] = [:]
    private var active: [ObjectIdentifier: Transfer] = [:]

    private init() {
        curl_global_init(Int(CURL_GLOBAL_ALL))
        epollFD = httpdns_epoll_create()
        wakeFD = httpdns_eventfd()
        precondition(epollFD >= 0 && wakeFD >= 0, "httpdns: cannot create epoll/eventfd: errno \(errno)")
        _ = httpdns_epoll_ctl(epollFD, Int32(HTTPDNS_WATCH_ADD), wakeFD, Int32(HTTPDNS_EVENT_IN))
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

    /// Queues `transfer` to start on the transfer thread.
    func submit(_ transfer: Transfer) {
        inbox.withLock { $0.append(.start(transfer)) }
        wake()
    }

    /// Stops `transfer` if it is running (or stops it from starting); it then fails with
    /// `CancellationError`.
    func cancel(_ transfer: Transfer) {
        transfer.markCancelled()
        inbox.withLock { $0.append(.cancel(transfer)) }
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
        // OpenSSL writes to sockets with write(2); a peer that closed would raise SIGPIPE. Blocking
        // it on this thread (where all socket I/O happens) turns that into EPIPE without changing
        // the process's signal handling.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &set, nil)

        var events = [httpdns_event](repeating: httpdns_event(), count: 256)
        while true {
            drainInbox()
            let count = events.withUnsafeMutableBufferPointer { buffer in
                httpdns_epoll_wait(epollFD, buffer.baseAddress, Int32(buffer.count), nextTimeoutMilliseconds())
            }
            if count < 0 {
                if errno == EINTR { continue }
                fatalError("httpdns: epoll_wait failed: errno \(errno)")
            }
            var touched: [ConnectionPool] = []
            for index in 0..<Int(count) {
                let fd = events[index].fd
                if fd == wakeFD {
                    var value: UInt64 = 0
                    _ = read(wakeFD, &value, 8)
                    continue
                }
                guard let pool = socketOwners[fd] else { continue }
                let flags = events[index].events
                var action: Int32 = 0
                if flags & Int32(HTTPDNS_EVENT_IN) != 0 { action |= CURL_CSELECT_IN }
                if flags & Int32(HTTPDNS_EVENT_OUT) != 0 { action |= CURL_CSELECT_OUT }
                if flags & Int32(HTTPDNS_EVENT_ERROR) != 0 { action |= CURL_CSELECT_ERR }
                pool.socketAction(fd, action)
                touched.append(pool)
            }
            let now = DispatchTime.now().uptimeNanoseconds
            for pool in pools.values {
                if let deadline = pool.deadline, deadline <= now {
                    pool.deadline = nil
                    pool.socketAction(CURL_SOCKET_TIMEOUT, 0)
                    touched.append(pool)
                }
            }
            for pool in touched { collectCompleted(pool) }
        }
    }

    private func nextTimeoutMilliseconds() -> Int32 {
        var earliest: UInt64?
        for pool in pools.values {
            if let deadline = pool.deadline { earliest = min(earliest ?? deadline, deadline) }
        }
        guard let earliest else { return -1 }
        let now = DispatchTime.now().uptimeNanoseconds
        if earliest <= now { return 0 }
        // Round up so the timer has really expired when we wake.
        return Int32(min((earliest - now + 999_999) / 1_000_000, 60_000))
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
        for (socket, owner) in socketOwners where owner === pool {
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

    /// Called by libcurl (through the pool's socket callback) on the transfer thread.
    func watch(socket: Int32, events: Int32, pool: ConnectionPool) {
        if events == CURL_POLL_REMOVE {
            // A pool may report a socket gone after its number was reused by another pool's new
            // connection; only the owner may stop the watch.
            guard socketOwners[socket] === pool else { return }
            _ = httpdns_epoll_ctl(epollFD, Int32(HTTPDNS_WATCH_REMOVE), socket, 0)
            socketOwners[socket] = nil
            return
        }
        var mask: Int32 = 0
        if events & CURL_POLL_IN != 0 { mask |= Int32(HTTPDNS_EVENT_IN) }
        if events & CURL_POLL_OUT != 0 { mask |= Int32(HTTPDNS_EVENT_OUT) }
        let known = socketOwners[socket] != nil
        let add = Int32(HTTPDNS_WATCH_ADD), modify = Int32(HTTPDNS_WATCH_MODIFY)
        if httpdns_epoll_ctl(epollFD, known ? modify : add, socket, mask) != 0 {
            // The fd was closed and reused, or registered by another pool: take it over.
            _ = httpdns_epoll_ctl(epollFD, known ? add : modify, socket, mask)
        }
        socketOwners[socket] = pool
    }
}
