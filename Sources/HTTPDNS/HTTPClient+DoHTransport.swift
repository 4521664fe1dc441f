import DNSResolver
import Foundation
import HTTPDNSCore
import HTTPTransport
import TLSTrust

/// DoH exchanges go through the libcurl client: HTTP/2 by ALPN, connecting to the endpoint's
/// bootstrap addresses, TLS verified for the endpoint's own host name under the client's trust
/// policy, and the body capped in memory.
extension HTTPClient: DoHTransport {
    public func send(
        url: URL, method: String, headers: [(String, String)], body: Data?,
        connectTo: [IPAddress], timeout: TimeInterval, maxResponseBytes: Int
    ) async throws -> DoHHTTPResponse {
        let request = dohRequest(url: url, method: method, headers: headers, body: body, connectTo: connectTo, timeout: timeout)
        return DoHHTTPResponse(try await execute(request, to: .memory(limit: maxResponseBytes)))
    }

    /// The request `send` makes for a DoH exchange: HTTP/2, idempotent, `timeout` seconds in all.
    func dohRequest(
        url: URL, method: String, headers: [(String, String)], body: Data?,
        connectTo: [IPAddress], timeout: TimeInterval
    ) -> HTTPRequest {
        var request = HTTPRequest(url: url, method: method, headers: HTTPHeaders(headers), body: body.map { .data($0) })
        request.connectTo = connectTo.isEmpty ? nil : connectTo
        request.httpVersion = .http2
        // A DNS query may be asked twice (RFC 8484 §4.1 POSTs carry only the query): keep
        // libcurl's resend after a stale pooled connection for POST too.
        request.idempotent = true
        request.timeouts = Timeouts(connect: min(timeout, configuration.timeouts.connect ?? timeout), total: timeout)
        return request
    }
}

extension DoHHTTPResponse {
    /// The status, `Content-Type`, body, `Age` and `Date` of `response`.
    init(_ response: HTTPResponse) {
        self.init(
            status: response.status, contentType: response.headers[first: "Content-Type"], body: response.body,
            age: Self.age(fromField: response.headers[first: "Age"]), date: response.headers[first: "Date"])
    }
}

extension HostResolver {
    /// A resolver whose DoH queries go through an `HTTPClient` that verifies the endpoints'
    /// certificates under `dohTrust`. An endpoint without bootstrap addresses is itself found with
    /// the system resolver.
    ///
    /// - Parameters:
    ///   - configuration: Endpoints, families, timeouts (seconds), fallback, cache limits.
    ///   - dohTrust: What the DoH servers' certificates must chain to. Default: system roots.
    /// - Throws: `InvalidDurationError` naming the first duration of `configuration` that its
    ///   setting does not accept (see `HostResolver.Configuration`).
    public convenience init(configuration: Configuration = .default, dohTrust: TrustPolicy = .system) throws(InvalidDurationError) {
        let client = HTTPClient(checkedConfiguration: HTTPClient.Configuration(trust: dohTrust), resolver: SystemResolver())
        try self.init(configuration: configuration, transport: client)
    }
}
