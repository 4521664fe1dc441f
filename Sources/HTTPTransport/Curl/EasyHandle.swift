internal import CCurl
internal import CHTTPDNSShims

/// Owns one libcurl easy handle (`CURL*`): cleaned up in `deinit`, never elsewhere. Used by one
/// thread at a time: the transfer that holds it, or `EasyHandleCache` between transfers.
final class EasyHandle: @unchecked Sendable { // handed between threads only through EasyHandleCache's lock
    /// The handle, for libcurl calls while this owner is alive; never stored elsewhere.
    let raw: UnsafeMutableRawPointer

    /// - Returns: nil when libcurl cannot allocate a handle (curl_easy_init).
    init?() {
        guard let raw = curl_easy_init() else { return nil }
        self.raw = raw
    }

    deinit { curl_easy_cleanup(raw) }

    /// Clears the handle's options and its last transfer's state (curl_easy_reset), and the
    /// CURLOPT_RESOLVE list a reset leaves (`state.resolve`, Documentation/LibcurlNotes.md).
    func reset() {
        curl_easy_reset(raw)
        _ = httpdns_easy_setopt_ptr(raw, CURLOPT_RESOLVE, nil)
    }
}
