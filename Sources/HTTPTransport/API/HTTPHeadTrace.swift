import Foundation

/// A request or response head as it crossed the wire, for `HTTPRequest.headTrace`.
public enum HTTPHeadTrace: Sendable, Hashable {
    /// A request head libcurl sent, its exact bytes: the request line, each field, the empty line
    /// (CRLF-terminated). Over HTTP/2, libcurl's HTTP/1-style rendering of the HEADERS frame it
    /// sent: `GET / HTTP/2`, `Host:` for `:authority`, the other pseudo-header fields left out.
    case sent(Data)
    /// One line of a response head as received, its CRLF included: the status line, a field, or
    /// the empty line that ends the head. Over HTTP/2, libcurl's HTTP/1-style rendering of the
    /// HEADERS frame: `HTTP/2 200 ` for `:status`, then the fields.
    case received(Data)
}
