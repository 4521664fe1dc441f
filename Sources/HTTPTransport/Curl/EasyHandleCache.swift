import HTTPDNSCore
internal import CCurl
internal import CHTTPDNSShims

/// Easy handles of finished transfers, reset (curl_easy_reset) and kept for the next transfer, as
/// libcurl recommends: a new handle per request (curl_easy_init, its first transfer's buffer
/// allocation, curl_easy_cleanup) cost a tenth of the CPU of a keep-alive request at 16 concurrent.
///
/// Only handles whose transfer libcurl can never have queued are kept. libcurl 7.88 keeps state a
/// reset does not clear: a handle that once waited in a multi handle's pending queue (under
/// CURLMOPT_MAX_HOST_CONNECTIONS, or for a connection to multiplex on with CURLOPT_PIPEWAIT) keeps
/// `state.previouslypending`, and from then on each time it connects it moves the head of that
/// queue to its tail, which can starve the oldest waiter (a 30 s time-out was once seen in the
/// 1,000-request load test). So a transfer that was in its pool while its transfers outnumbered
/// the connection limit, or one waiting to multiplex that may have found a connection being set
/// up, cleans its handle up instead (`TransferEngine.end` decides from the pool's counts,
/// `ConnectionPool.oversubscriptions`, `openingTransfers` and `setUpsBegun`; `Transfer.release`
/// acts). The other state a reset leaves, a CURLOPT_RESOLVE list not yet loaded (`state.resolve`),
/// is cleared by setting the option to NULL.
///
/// A handle whose transfer left no state of libcurl's that only a reset clears (it succeeded on a
/// connection it reused, sent once, offered no authentication, with no proxy and no URL
/// credentials: `Transfer.prepareHandleForReuse`) is kept without the reset, with the list of
/// options its configuration set. The next
/// transfer sets its own options over them; if its list differs, so that an option of the last
/// request could be left in force, it resets the handle and sets them again (`Transfer.init`).
/// curl_easy_reset and setting every option again from libcurl's defaults cost the transfer
/// thread about a tenth of its time per request at 16 concurrent (Benchmarks/README.md, stop 16).
enum EasyHandleCache {
    /// The most handles kept idle: enough for a 16-wide workload with room to spare. Each holds
    /// about 13 KB after a transfer and a reset (libcurl 7.88, `mallinfo2`); handles that grew
    /// more (an upload buffer, a large head's header buffer) are not kept (`Transfer.isSmallForReuse`).
    static let capacity = 32

    private struct Idle: Sendable {
        let handle: EasyHandle
        /// The options its last configuration set (CURLoption values, in the order set), which it
        /// still holds; nil when it was reset.
        let options: [UInt16]?
    }

    /// A pthread mutex (`LockedValue`), not `Synchronization.Mutex`, which ThreadSanitizer cannot see.
    private static let idle = LockedValue<[Idle]>([])

    /// A handle from the cache (the last kept), with the options it still holds (nil: none, it was
    /// reset), or a new one; nil when libcurl cannot allocate one.
    static func take() -> (handle: EasyHandle, options: [UInt16]?)? {
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

    /// Keeps `handle`, reset (`options` nil) or holding the options `options` lists, when there is
    /// room; otherwise it is cleaned up (its owner's deinit).
    static func keep(_ handle: EasyHandle, options: [UInt16]? = nil) {
        idle.withLock { handles in
            guard handles.count < capacity else { return }
            handles.append(Idle(handle: handle, options: options))
        }
    }
}
