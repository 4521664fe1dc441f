internal import CCurl

/// A libcurl string list (`curl_slist`) that transfers share: libcurl only reads the lists given to
/// CURLOPT_HTTPHEADER and CURLOPT_CONNECT_TO and does not copy them, so each transfer that uses one
/// holds a reference until its easy handle is cleaned up.
final class CurlStringList: @unchecked Sendable { // immutable after init; libcurl only reads the list
    let head: UnsafeMutablePointer<curl_slist>?

    /// - Returns: nil when libcurl runs out of memory building the list.
    init?(_ items: [String]) {
        var list: UnsafeMutablePointer<curl_slist>?
        for item in items {
            guard let appended = curl_slist_append(list, item) else {
                if let list { curl_slist_free_all(list) }
                return nil
            }
            list = appended
        }
        head = list
    }

    deinit {
        if let head { curl_slist_free_all(head) }
    }
}
