/// Time limits for a request, in seconds.
public struct Timeouts: Sendable, Hashable {
    /// Longest time to establish the connection, TCP and TLS handshakes included, across all
    /// addresses tried (CURLOPT_CONNECTTIMEOUT_MS). `nil`: libcurl's default of 300 s.
    public var connect: Double?
    /// Longest time for the whole request, connection and body included (CURLOPT_TIMEOUT_MS).
    /// `nil`: no limit.
    public var total: Double?

    public init(connect: Double? = 10, total: Double? = nil) {
        self.connect = connect
        self.total = total
    }
}
