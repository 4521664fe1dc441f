import Foundation
import Synchronization
import TLSTrust
internal import CCurl
internal import CHTTPDNSShims

/// Identifies the pool for one trust policy; created once per distinct policy and kept for the
/// life of the process.
final class PoolDescriptor: Sendable {
    let id: Int
    let trust: CompiledTrust
    /// CURLMOPT_MAX_HOST_CONNECTIONS; nil: no limit.
    let connectionsPerHost: Int?
    /// Whether HTTP/2 transfers share connections (CURLMOPT_PIPELINING); false for the pool of
    /// requests with a body (see `HTTPClient.perform`).
    let multiplexes: Bool
    /// How many of its transfers ended with a handle fit for reuse (`TransferEngine.end`), for
    /// tests.
    let reusableHandles = Atomic<Int>(0)
    /// How many of its transfers kept their handle's options for the next (`EasyHandleCache`), and
    /// how many took a handle that still held the options they set, so skipped the reset; for tests.
    let handlesKeptWithOptions = Atomic<Int>(0)
    let handlesReusedWithOptions = Atomic<Int>(0)

    init(id: Int, trust: CompiledTrust, connectionsPerHost: Int?, multiplexes: Bool) {
        self.id = id
        self.trust = trust
        self.connectionsPerHost = connectionsPerHost
        self.multiplexes = multiplexes
    }
}

/// One libcurl multi handle (its connection cache) plus a share handle for its TLS session cache.
///
/// libcurl's connection-reuse and session-resumption keys do not include what a
/// CURLOPT_SSL_CTX_FUNCTION callback does, so requests under different trust policies must never
/// meet in one multi handle: each policy gets its own pool. Touched only with the engine's loop state
/// locked (`TransferEngine.state`).
final class ConnectionPool {
    let descriptor: PoolDescriptor
    let handle: MultiHandle
    var multi: UnsafeMutableRawPointer { handle.multi }
    var share: UnsafeMutableRawPointer { handle.share }
    unowned let engine: TransferEngine
    /// When libcurl wants `curl_multi_socket_action(CURL_SOCKET_TIMEOUT)` next, in
    /// `DispatchTime.uptimeNanoseconds`; nil when it wants no timer.
    var deadline: UInt64?
    /// Set when libcurl stopped watching a socket during a timer action (`TransferEngine.runDueTimers`).
    var stoppedWatchingOnTimer = false
    /// Whether sockets libcurl stops watching stay in the engine's epoll set, parked
    /// (`TransferEngine.watch`); false for good once a transfer that lets libcurl resolve a name
    /// has started in the pool.
    var parksSockets = true
    /// Transfers in the multi handle now, and how many times a start took that count past the
    /// connection limit (CURLMOPT_MAX_HOST_CONNECTIONS), when libcurl may have queued one. A
    /// transfer during which the count never moved cannot have been queued, so its handle may be
    /// reused (`TransferEngine.end`). `closeIdle` leaves a pool with transfers in it alone.
    var activeTransfers = 0
    var oversubscriptions = 0
    /// Set by `TransferEngine.retire` (a network change) while transfers were in
    /// flight: the pool is closed once the last of them ends.
    var closesWhenIdle = false
    /// Transfers in the multi handle that may be setting up a connection, and how many set-ups
    /// the pool's transfers have begun. A set-up begins when a transfer opens a socket (counted
    /// for those with CURLOPT_SOCKOPTFUNCTION set: under a connection limit, or waiting to
    /// multiplex), or, for a transfer whose host or proxy name libcurl resolves itself, when it
    /// starts: libcurl files the new connection in its cache before resolving, and waiters to
    /// multiplex queue behind it from then. A connection is only being set up while the transfer
    /// that began it is in the multi handle, so a transfer waiting to multiplex (CURLOPT_PIPEWAIT)
    /// that started with no such transfer in flight, and during which no set-up began, found no
    /// connection being set up to wait for: libcurl cannot have queued it.
    var openingTransfers = 0
    var setUpsBegun = 0

    /// Counts a set-up begun by `transfer`, and the transfer as opening. Transfer thread.
    func noteSetUpBegun(by transfer: Transfer) {
        if transfer.countAsOpening() { openingTransfers += 1 }
        setUpsBegun += 1
    }

    /// For each route name, the CURLOPT_RESOLVE entry last handed to libcurl, and whether a transfer
    /// carrying it has succeeded, which proves it is in the multi handle's DNS cache.
    private var routeEntries: [String: (entry: String, stored: Bool)] = [:]

    init?(descriptor: PoolDescriptor, engine: TransferEngine) {
        guard let handle = MultiHandle() else { return nil }
        self.descriptor = descriptor
        self.handle = handle
        self.engine = engine
        // HTTP/2 multiplexing is libcurl's default for multi handles; stated here because the
        // transport depends on it. A pool that does not multiplex gives each transfer a
        // connection of its own (kept alive for the next).
        handle.set(CURLMOPT_PIPELINING, Int(descriptor.multiplexes ? CURLPIPE_MULTIPLEX : CURLPIPE_NOTHING))
        // libcurl's default cache size is 4 connections per easy handle *currently added*. The
        // engine removes a handle as soon as its transfer completes, so between bursts the limit
        // fell as low as 4 and idle keep-alive connections were closed, only to be opened again
        // (47 TLS handshakes instead of 16 for 4,000 requests 16 at a time over HTTP/1.1).
        handle.set(CURLMOPT_MAXCONNECTS, Self.maximumIdleConnections)
        // Without a limit, every HTTP/2 request that finds the open connections' streams all taken
        // opens a connection of its own, even while other new ones are still handshaking (a burst of
        // 1,000 opened hundreds); with one, it waits for a stream or a slot (libcurl's pending queue).
        if let limit = descriptor.connectionsPerHost {
            handle.set(CURLMOPT_MAX_HOST_CONNECTIONS, limit)
        }
        _ = httpdns_multi_set_callbacks(
            multi, socketCallback, timerCallback,
            Unmanaged.passUnretained(self).toOpaque())
    }

    /// Whether a transfer on `route` must carry its CURLOPT_RESOLVE entry.
    ///
    /// libcurl keeps entries made through CURLOPT_RESOLVE in the multi handle's DNS cache for good
    /// (they never expire), so once one is known to be there, later transfers need not parse and
    /// store it again. It is known to be there once a transfer that carried it succeeded: a transfer
    /// that is cancelled, or fails, before libcurl reads its options proves nothing, so until then
    /// every transfer carries it. A new address order for the route (the same set, so the same
    /// name) is carried again.
    func needsResolveEntry(for route: ConnectRoute) -> Bool {
        if let known = routeEntries[route.name], known.entry == route.resolveEntry, known.stored { return false }
        if routeEntries[route.name]?.entry != route.resolveEntry { routeEntries[route.name] = (route.resolveEntry, false) }
        return true
    }

    /// A transfer that carried `route`'s entry succeeded: the entry is in the DNS cache, unless a
    /// newer order replaced it since.
    func resolveEntryStored(for route: ConnectRoute) {
        guard routeEntries[route.name]?.entry == route.resolveEntry else { return }
        routeEntries[route.name]?.stored = true
    }

    /// CURLMOPT_MAXCONNECTS: idle connections kept per pool (the oldest idle one is closed beyond it).
    static let maximumIdleConnections = 64

    /// Closes every connection of the pool and frees its TLS session cache (`MultiHandle.close`).
    /// Only with no easy handle added; the pool is not used afterwards.
    func close() { handle.close() }

    func socketAction(_ socket: Int32, _ flags: Int32) { handle.socketAction(socket, flags) }

    /// Runs every transfer of the pool once (curl_multi_socket_all).
    func runAll() { handle.runAll() }
}

/// CURLMOPT_SOCKETFUNCTION: libcurl asks to watch (or stop watching) a socket.
private let socketCallback: httpdns_socket_callback = { _, socket, what, userp, _ in
    guard let userp else { return -1 }
    let pool = Unmanaged<ConnectionPool>.fromOpaque(userp).takeUnretainedValue()
    pool.engine.watch(socket: Int32(socket), events: what, pool: pool)
    return 0
}

/// CURLMOPT_TIMERFUNCTION: libcurl asks to be called after `timeoutMS` (-1: cancel the timer).
private let timerCallback: httpdns_timer_callback = { _, timeoutMS, userp in
    guard let userp else { return -1 }
    let pool = Unmanaged<ConnectionPool>.fromOpaque(userp).takeUnretainedValue()
    pool.deadline = timeoutMS < 0 ? nil : DispatchTime.now().uptimeNanoseconds + UInt64(timeoutMS) * 1_000_000
    return 0
}
