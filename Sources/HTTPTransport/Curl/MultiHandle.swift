internal import CCurl
internal import CHTTPDNSShims

/// Owns one libcurl multi handle (`CURLM*`, its connection cache) and the share handle
/// (`CURLSH*`) holding its TLS session cache: both cleaned up once, by `close()` or `deinit`.
/// Used only with the engine's loop state locked (`TransferEngine.state`).
final class MultiHandle {
    /// The handles, for libcurl calls while this owner is open; never stored elsewhere.
    let multi: UnsafeMutableRawPointer
    let share: UnsafeMutableRawPointer
    private var closed = false

    /// - Returns: nil when libcurl cannot allocate either handle.
    init?() {
        guard let multi = curl_multi_init() else { return nil }
        guard let share = curl_share_init() else {
            curl_multi_cleanup(multi)
            return nil
        }
        self.multi = multi
        self.share = share
        _ = httpdns_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue))
    }

    deinit { close() }

    /// Closes every connection (curl_multi_cleanup) and frees the TLS session cache; only with no
    /// easy handle added or joined. Later calls do nothing.
    func close() {
        guard !closed else { return }
        closed = true
        curl_multi_cleanup(multi)
        curl_share_cleanup(share)
    }

    /// curl_multi_socket_action for `socket` (CURL_SOCKET_TIMEOUT for the timer) with `flags`.
    func socketAction(_ socket: Int32, _ flags: Int32) {
        var running: Int32 = 0
        _ = curl_multi_socket_action(multi, curl_socket_t(socket), flags, &running)
    }

    /// Runs every transfer once (curl_multi_socket_all).
    func runAll() {
        var running: Int32 = 0
        _ = httpdns_multi_socket_all(multi, &running)
    }

    /// Sets a long option (curl_multi_setopt).
    func set(_ option: CURLMoption, _ value: Int) {
        _ = httpdns_multi_setopt_long(multi, option, value)
    }
}
