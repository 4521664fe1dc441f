import HTTPDNSCore
internal import CCurl

/// libcurl easy handles of finished transfers, reset and kept for the next ones.
///
/// A new handle costs libcurl's whole per-transfer state (a few kilobytes, zeroed) and its receive
/// buffer, allocated and freed again for every request; `curl_easy_reset` clears every option
/// and keeps those allocations (and nothing of the previous request: options, callbacks, user
/// data, info and progress are reset). At most `capacity` handles wait here; more are cleaned up.
final class IdleEasyHandles: Sendable {
    static let shared = IdleEasyHandles(capacity: 64)

    private let handles: LockedValue<[UnsafeMutableRawPointer]>
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        handles = LockedValue([])
    }

    /// An idle handle with every option at its default, or nil when none waits.
    func take() -> UnsafeMutableRawPointer? {
        handles.withLock { $0.popLast() }
    }

    /// Takes back `easy`, which must be in no multi handle: it is reset and kept, or cleaned up
    /// when `capacity` handles already wait.
    func give(_ easy: UnsafeMutableRawPointer) {
        curl_easy_reset(easy)
        let kept = handles.withLock { idle -> Bool in
            guard idle.count < capacity else { return false }
            idle.append(easy)
            return true
        }
        if !kept { curl_easy_cleanup(easy) }
    }
}
