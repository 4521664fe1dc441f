import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// Watches the host's addresses and routes (rtnetlink, Linux) and reports each burst of changes
/// once, when it has settled.
///
/// A background thread reads a `NETLINK_ROUTE` socket subscribed to IPv4 and IPv6 address and route
/// changes. Messages are gathered until none has come for `quietPeriod` seconds, or `maximumDelay`
/// seconds have passed since the first (so a network that never settles is still reported), then
/// `handler` is called with them on that thread: one `NetworkChange` for an interface going down
/// with its addresses and routes. Keep the handler short; start longer work elsewhere.
///
/// The socket, and so what is watched, is the network namespace of the thread that creates the
/// monitor; the reader thread is started from it, so it is in that namespace too (the handler's
/// own socket calls, a `RouteProbe` say, see the same network).
///
/// Stops when `stop()` is called or the monitor is released: the thread ends, the socket closes.
public final class NetworkMonitor: Sendable {
    /// The most events one `NetworkChange` carries; past it, `messagesLost` ends the list.
    public static let eventLimit = 256

    /// Seconds without a new message before a burst is reported (default 0.5).
    public let quietPeriod: TimeInterval
    /// Seconds after a burst's first message by which it is reported at the latest (default 3).
    public let maximumDelay: TimeInterval
    private let reader: Reader

    /// Starts watching.
    /// - Parameters:
    ///   - quietPeriod: Seconds, above 0 and finite.
    ///   - maximumDelay: Seconds, at least `quietPeriod` (a smaller one is taken as `quietPeriod`).
    ///   - handler: Called on the monitor's thread with each settled burst.
    /// - Throws: `NetworkMonitorError` when the netlink socket or the thread's wake-up pipe
    ///   cannot be made.
    public init(quietPeriod: TimeInterval = 0.5, maximumDelay: TimeInterval = 3, handler: @escaping @Sendable (NetworkChange) -> Void) throws(NetworkMonitorError) {
        let quiet = quietPeriod.isFinite && quietPeriod > 0 ? quietPeriod : 0.5
        self.quietPeriod = quiet
        self.maximumDelay = max(quiet, maximumDelay.isFinite ? maximumDelay : quiet)
        reader = try Reader(socket: NetlinkSocket(), quietPeriod: quiet, maximumDelay: self.maximumDelay, handler: handler)
        reader.start()
    }

    deinit { reader.stop() }

    /// Stops the thread and closes the socket; a change being handled is finished first (unless
    /// called from the handler). Idempotent.
    public func stop() { reader.stop() }

    /// The reader thread's state: the socket, the pipe that wakes it to stop, the handler.
    private final class Reader: @unchecked Sendable { // `socket` and `pending` are used by the reader thread alone; `stopped` is atomic by its lock
        let socket: NetlinkSocket
        /// A pipe's two ends: a byte written to `wakeWriter` makes `wake` readable, which stops the thread.
        let wake: Int32
        let wakeWriter: Int32
        let quietPeriod: TimeInterval
        let maximumDelay: TimeInterval
        let handler: @Sendable (NetworkChange) -> Void
        let finished = DispatchSemaphore(value: 0)
        let state = LockedValue<(stopped: Bool, thread: pthread_t?)>((false, nil))

        init(socket: NetlinkSocket, quietPeriod: TimeInterval, maximumDelay: TimeInterval, handler: @escaping @Sendable (NetworkChange) -> Void) throws(NetworkMonitorError) {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { throw NetworkMonitorError(operation: "pipe", code: errno) }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            self.socket = socket
            (self.wake, self.wakeWriter) = (ends[0], ends[1])
            self.quietPeriod = quietPeriod
            self.maximumDelay = maximumDelay
            self.handler = handler
        }

        deinit {
            close(wake)
            close(wakeWriter)
        }

        func start() {
            // A Thread made here inherits this thread's network namespace (setns(2) is per thread).
            let thread = Thread { [self] in
                state.withLock { $0.thread = pthread_self() }
                run()
                finished.signal()
            }
            thread.name = "httpdns.netlink"
            thread.start()
        }

        func stop() {
            let (wasStopped, thread) = state.withLock { state in
                defer { state.stopped = true }
                return (state.stopped, state.thread)
            }
            guard !wasStopped else { return }
            var one: UInt8 = 1
            _ = write(wakeWriter, &one, 1)
            // The handler may release the last reference: it must not wait for its own thread.
            if let thread, pthread_equal(thread, pthread_self()) != 0 { return }
            finished.wait()
        }

        private func run() {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            var pending: [NetworkChange.Event] = []
            var first = 0.0, last = 0.0
            while true {
                var timeout: Int32 = -1
                if !pending.isEmpty {
                    let due = min(last + quietPeriod, first + maximumDelay)
                    timeout = Int32(max(0, (due - Self.now()) * 1000).rounded(.up))
                }
                var fds = [pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
                let ready = poll(&fds, 2, timeout)
                if ready < 0, errno != EINTR { return }
                if fds[1].revents != 0 || state.withLock({ $0.stopped }) { return }
                if fds[0].revents != 0 {
                    let before = pending.count
                    if !drain(&buffer, into: &pending) { return }
                    if pending.count > before {
                        last = Self.now()
                        if before == 0 { first = last }
                    }
                }
                if !pending.isEmpty, Self.now() >= min(last + quietPeriod, first + maximumDelay) {
                    handler(NetworkChange(events: pending))
                    pending.removeAll()
                }
            }
        }

        /// Reads every waiting datagram into `pending`; false when the socket failed for good.
        private func drain(_ buffer: inout [UInt8], into pending: inout [NetworkChange.Event]) -> Bool {
            while true {
                switch socket.receive(into: &buffer) {
                case .empty: return true
                case .failed: return false
                case .overflow: append([.messagesLost], to: &pending)
                case .datagram(let bytes): append(RouteMessageParser.events(in: bytes), to: &pending)
                }
            }
        }

        private func append(_ events: [NetworkChange.Event], to pending: inout [NetworkChange.Event]) {
            for event in events {
                if pending.last == .messagesLost, event == .messagesLost { continue }
                guard pending.count < NetworkMonitor.eventLimit - 1 else {
                    if pending.last != .messagesLost { pending.append(.messagesLost) }
                    return
                }
                pending.append(event)
            }
        }

        private static func now() -> TimeInterval {
            var spec = timespec()
            clock_gettime(CLOCK_MONOTONIC, &spec)
            return TimeInterval(spec.tv_sec) + TimeInterval(spec.tv_nsec) / 1e9
        }
    }
}
