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
        var request = HTTPRequest(url: url, method: method, headers: HTTPHeaders(headers), body: body.map { .data($0) })
        request.connectTo = connectTo.isEmpty ? nil : connectTo
        request.httpVersion = .http2
        // A DNS query may be asked twice (RFC 8484 §4.1 POSTs carry only the query): keep
        // libcurl's resend after a stale pooled connection for POST too.
        request.idempotent = true
        request.timeouts = Timeouts(connect: min(timeout, configuration.timeouts.connect ?? timeout), total: timeout)
        let response = try await execute(request, to: .memory(limit: maxResponseBytes))
        return DoHHTTPResponse(status: response.status, contentType: response.headers[first: "Content-Type"], body: response.body)
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
    public convenience init(configuration: Configuration = .default, dohTrust: TrustPolicy = .system) {
        let client = HTTPClient(configuration: HTTPClient.Configuration(trust: dohTrust), resolver: SystemResolver())
        self.init(configuration: configuration, transport: client)
    }
}
