/// The HTTP version a response was received with (CURLINFO_HTTP_VERSION).
public enum HTTPVersion: String, Sendable, Hashable, CustomStringConvertible {
    case http1_0 = "HTTP/1.0"
    case http1_1 = "HTTP/1.1"
    case http2 = "HTTP/2"
    case http3 = "HTTP/3"
    case unknown = "unknown"

    public var description: String { rawValue }
}

/// Which HTTP versions a request may use (CURLOPT_HTTP_VERSION).
public enum HTTPVersionPreference: String, Sendable, Hashable {
    /// HTTP/1.1 only; ALPN offers only `http/1.1` (CURL_HTTP_VERSION_1_1).
    case http1_1
    /// HTTP/2 over TLS when the server selects `h2` by ALPN (RFC 7301), else HTTP/1.1; cleartext
    /// `http://` stays on HTTP/1.1 (CURL_HTTP_VERSION_2TLS). Requests to one server are multiplexed
    /// on one connection (CURLOPT_PIPEWAIT).
    case http2
}
