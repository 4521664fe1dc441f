import Foundation

/// Time limits for a request, in seconds. Each is nil (no limit of its own) or more than 0 and at
/// most `maximum` seconds; a request with any other value (0, negative, NaN, infinite, larger)
/// fails with `HTTPClientError.Kind.invalidRequest` before anything is resolved or sent.
public struct Timeouts: Sendable, Hashable {
    /// The longest limit accepted, in seconds: 2,147,483.647 (24.8 days), the most libcurl's
    /// millisecond options (CURLOPT_TIMEOUT_MS, CURLOPT_CONNECTTIMEOUT_MS) are given.
    public static let maximum: Double = Double(Int32.max) / 1000

    /// Longest time to resolve the name (a lookup still running then fails with `.timedOut`,
    /// curl's 28, as CURLOPT_CONNECTTIMEOUT's connection phase includes the name resolve), and
    /// again to establish the connection: the Happy Eyeballs race, then the TCP and TLS handshakes
    /// across all addresses tried (CURLOPT_CONNECTTIMEOUT_MS). Unlike curl, the connection does not
    /// get only what resolving left: a cold DoH lookup takes a TLS handshake of its own. `total`
    /// bounds both together. An HTTP/2 request's wait for a connection
    /// another request is opening to the same host, to multiplex on it (CURLOPT_PIPEWAIT), counts
    /// too, so a dead host costs one limit, not two; a wait for a free connection under
    /// `HTTPClient.Configuration.maximumConnectionsPerHost` does not (it is queueing: `total`
    /// bounds it). `nil`: libcurl's default of 300 s.
    public var connect: Double?
    /// Longest time for the whole request: resolving the name, the Happy Eyeballs race, the
    /// connection and the body (what is left after resolving and racing becomes the transfer's
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

extension Timeouts {
    /// - Throws: `HTTPClientError.Kind.invalidRequest` naming the first limit that is not nil nor
    ///   a finite number of seconds above 0 and at most `maximum`.
    func check(url: URL) throws(HTTPClientError) {
        for (name, value) in [("connect", connect), ("total", total), ("idle", idle)] {
            guard let value else { continue }
            guard value.isFinite, value > 0, value <= Self.maximum else {
                throw HTTPClientError(
                    kind: .invalidRequest,
                    message: "Timeouts.\(name) must be a number of seconds above 0 and at most \(Self.maximum) (24.8 days), or nil for no limit; got \(value)",
                    url: url)
            }
        }
    }
}
