/// The status line and fields of a response, complete before any of its body arrives.
public struct HTTPResponseHead: Sendable {
    /// Status code (RFC 9110 §15); never an interim 1xx.
    public var status: Int
    /// Fields of the response, in order received.
    public var headers: HTTPHeaders
    /// Version from the status line (`HTTP/1.1`, `HTTP/2`).
    public var version: HTTPVersion
    /// Where the response came from (address, port, resolution, reuse, TLS when
    /// `HTTPRequest.reportsTLSDetails`), as known when the head arrived: `timing.total` is the time
    /// so far. Set on heads the client delivers (`ResponseBodyDestination.streaming`); nil otherwise.
    public var connection: ConnectionReport?

    public init(status: Int, headers: HTTPHeaders, version: HTTPVersion, connection: ConnectionReport? = nil) {
        self.status = status
        self.headers = headers
        self.version = version
        self.connection = connection
    }
}
