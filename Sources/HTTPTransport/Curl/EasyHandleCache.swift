import HTTPDNSCore
internal import CCurl
internal import CHTTPDNSShims

/// Easy handles of finished transfers, kept for the next transfer as libcurl recommends (a new
/// handle per request costs its init, its first buffer allocations and its cleanup). Which handles
/// are kept, reset or holding their options, is `HandleReuse`'s decision; how a transfer taking a
/// handle that holds a list sets its own is `HandleReuse.application`.
enum EasyHandleCache {
    /// The most handles kept idle: enough for a 16-wide workload with room to spare. Each holds
    /// about 13 KB after a transfer and a reset (libcurl 7.88, `mallinfo2`); handles that grew
    /// more (an upload buffer, a large head's header buffer) are not kept (`HandleReuse.decide`).
    static let capacity = 32

    private struct Idle: Sendable {
        let handle: EasyHandle
        /// The option list its last transfer set, which it still holds (and keeps alive: libcurl
        /// reads its string lists); nil when it was reset.
        let options: PreparedOptions?
    }

    /// A pthread mutex (`LockedValue`), not `Synchronization.Mutex`, which ThreadSanitizer cannot see.
    private static let idle = LockedValue<[Idle]>([])

    /// A handle from the cache (the last kept), with the options it still holds (nil: none, it was
    /// reset), or a new one; nil when libcurl cannot allocate one.
    static func take() -> (handle: EasyHandle, options: PreparedOptions?)? {
        if let kept = idle.withLock({ $0.popLast() }) { return (kept.handle, kept.options) }
        return EasyHandle().map { ($0, nil) }
    }

    /// Resets `handle`, which is in no multi handle and no share handle, and keeps it when there
    /// is room. The loop thread resets the handles of the transfers it ends: most of what a reset
    /// frees was allocated there.
    static func give(_ handle: EasyHandle) {
        handle.reset()
        keep(handle)
    }

    /// Keeps `handle`, reset (`options` nil) or holding the list `options`, when there is
    /// room; otherwise it is cleaned up (its owner's deinit).
    static func keep(_ handle: EasyHandle, options: PreparedOptions? = nil) {
        idle.withLock { handles in
            guard handles.count < capacity else { return }
            handles.append(Idle(handle: handle, options: options))
        }
    }
}
