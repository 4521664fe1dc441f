import Foundation
import HTTPDNSCore

/// One HTTP response from a DoH endpoint, as `DoHTransport.send` returns it.
public struct DoHHTTPResponse: Sendable {
    /// HTTP status code (200 for a DNS answer, RFC 8484 §4.2.1).
    public var status: Int
    /// The `Content-Type` header as received (e.g. `application/dns-message`), `nil` when absent.
    public var contentType: String?
    /// The response body: an RFC 1035 message when `status` is 200.
    public var body: Data
    /// The `Age` header in seconds (RFC 9111 §5.1): how long an HTTP cache held the response. nil when
    /// absent or not a number. RFC 8484 §5.1: the DNS TTLs are reduced by it.
    public var age: TimeInterval?
    /// The `Date` header as received (RFC 9110 §6.6.1), nil when absent: the vendor providers learn
    /// the skew of this machine's clock from it.
    public var date: String?

    public init(status: Int, contentType: String?, body: Data, age: TimeInterval? = nil, date: String? = nil) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.age = age
        self.date = date
    }

    /// An `Age` field value as seconds: delta-seconds (RFC 9111 §1.2.2, ASCII digits only), capped at
    /// 2^31 as that section says for values too large to hold; nil for anything else (a cache then
    /// ignores the field, and so does the resolver).
    public static func age(fromField value: String?) -> TimeInterval? {
        guard let digits = value?.trimmingWhitespace(), !digits.isEmpty,
            digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        let cap: TimeInterval = 2_147_483_648
        guard digits.utf8.count <= 10, let seconds = Double(digits) else { return cap }
        return min(seconds, cap)
    }
}

/// The HTTPS client `DoHClient` sends its RFC 8484 exchanges through.
///
/// Defined here, not in `HTTPTransport`, so the resolver does not depend on the HTTP client; the HTTP
/// client provides the conformance (and tests provide fakes).
public protocol DoHTransport: Sendable {
    /// One HTTPS exchange with a DoH endpoint, connecting to `connectTo` (bootstrap addresses) instead of
    /// resolving the endpoint's host, with TLS verified for the URL's host. Prefers HTTP/2.
    ///
    /// - Parameters:
    ///   - url: The full request URL (for GET it already carries `?dns=`).
    ///   - method: `"GET"` or `"POST"`.
    ///   - headers: Request headers, in order (`Accept`, and `Content-Type` for POST).
    ///   - body: The request body for POST, `nil` for GET.
    ///   - connectTo: Addresses to connect to, in order, on the URL's port. Empty: resolve the URL's host
    ///     the transport's own way (TLS verification on the name still applies).
    ///   - timeout: Whole-exchange limit in seconds.
    ///   - maxResponseBytes: The largest body to accept.
    /// - Returns: The status, content type and body, whatever the status.
    /// - Throws: Any error for network/TLS/timeout failures; a body larger than `maxResponseBytes` must throw.
    func send(
        url: URL, method: String, headers: [(String, String)], body: Data?,
        connectTo: [IPAddress], timeout: TimeInterval, maxResponseBytes: Int
    ) async throws -> DoHHTTPResponse
}
