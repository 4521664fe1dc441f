/// Time limits for a request, in seconds.
public struct Timeouts: Sendable, Hashable {
    /// Longest time to establish the connection, TCP and TLS handshakes included, across all
    /// addresses tried (CURLOPT_CONNECTTIMEOUT_MS). `nil`: libcurl's default of 300 s.
    public var connect: Double?
    /// Longest time for the whole request: resolving the name, the Happy Eyeballs race, the
    /// connection and the body (what is left after resolving becomes the transfer's
    /// CURLOPT_TIMEOUT_MS). Past it the request fails with `HTTPClientError.Kind.timedOut` (curl's
    /// 28). `nil`: no limit.
    public var total: Double?
    /// Longest time without receiving or sending a byte once connected, rounded up to whole
    /// seconds (CURLOPT_LOW_SPEED_LIMIT 1 with CURLOPT_LOW_SPEED_TIME): `URLRequest.timeoutInterval`
    /// semantics. `nil`: no limit.
    public var idle: Double?

    public init(connect: Double? = 10, total: Double? = nil, idle: Double? = nil) {
        self.connect = connect
        self.total = total
        self.idle = idle
    }
}
