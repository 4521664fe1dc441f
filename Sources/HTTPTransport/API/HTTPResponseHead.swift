/// The status line and fields of a response, complete before any of its body arrives.
public struct HTTPResponseHead: Sendable {
    /// Status code (RFC 9110 §15); never an interim 1xx.
    public var status: Int
    /// Fields of the response, in order received.
    public var headers: HTTPHeaders
    /// Version from the status line (`HTTP/1.1`, `HTTP/2`).
    public var version: HTTPVersion
    /// The reason phrase of an HTTP/1.x status line (RFC 9112 §4), as received: the text after
    /// the status code and its space, without the line's CRLF (`Not Found` for
    /// `HTTP/1.1 404 Not Found`); empty when the line has none. Bytes that are not UTF-8 (obs-text,
    /// RFC 9110 §5.5) are read as ISO-8859-1, one character per byte. nil for HTTP/2 and HTTP/3, which
    /// carry no reason phrase (RFC 9113 §8.3.2). Clients should ignore it (RFC 9112 §4); it is
    /// kept for display, as curl's `-i` shows it.
    public var reasonPhrase: String?
    /// Where the response came from (address, port, resolution, reuse, TLS when
    /// `HTTPRequest.reportsTLSDetails`), as known when the head arrived: `timing.total` is the time
    /// so far. Set on heads the client delivers (`ResponseBodyDestination.streaming`); nil otherwise.
    public var connection: ConnectionReport?

    public init(status: Int, headers: HTTPHeaders, version: HTTPVersion, reasonPhrase: String? = nil, connection: ConnectionReport? = nil) {
        self.status = status
        self.headers = headers
        self.version = version
        self.reasonPhrase = reasonPhrase
        self.connection = connection
    }
}
