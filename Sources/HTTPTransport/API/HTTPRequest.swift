import Foundation
import HTTPDNSCore
import TLSTrust

/// One HTTP request. The URL keeps the host name: the connection goes to an address from the
/// client's resolver (or `connectTo`), while SNI, `Host` and certificate verification use the name.
public struct HTTPRequest: Sendable {
    /// `http` or `https` URL with a host. Its host is never replaced by an address.
    public var url: URL
    /// The method, sent as given (`GET`, `POST`, `PUT`, ...).
    public var method: String
    /// Fields to send. A `Host` field (any case) replaces the one derived from the URL.
    ///
    /// The body's framing is the client's: `Content-Length` must equal a known body length (and
    /// gives a `.stream` of unknown length its length); `Transfer-Encoding` may only be `chunked`,
    /// on a request with a body and without `Content-Length` (RFC 9112 §6.1, §6.3); it sends the
    /// body chunked when `httpVersion` (or the client's) is `.http1_1`, and is dropped otherwise
    /// (HTTP/2 frames bodies itself and forbids the field, RFC 9113 §8.2.2).
    /// Any other transfer coding, the field on a request without a body, or both fields together
    /// fail the request with `HTTPClientError.Kind.invalidRequest` before anything is sent.
    public var headers: HTTPHeaders
    /// The body, if any.
    public var body: HTTPRequestBody?
    /// Addresses to connect to instead of asking the resolver, tried in order (curl's `--resolve`
    /// for this request only). Used for DoH bootstrap.
    public var connectTo: [IPAddress]?
    /// With `connectTo`: the TCP port to connect to instead of the URL's, which the URL, SNI and
    /// `Host` keep (curl's `--connect-to ::HOST:PORT`); an HTTPS record's `port`
    /// (`ServiceBindingRoute.port`) for a caller that chose the addresses itself. 1-65535; ignored
    /// without `connectTo`. Default nil.
    public var connectPort: Int? = nil
    /// Overrides the client's timeouts.
    public var timeouts: Timeouts?
    /// Overrides the client's HTTP version preference.
    public var httpVersion: HTTPVersionPreference?
    /// Overrides the client's trust policy; requests with different policies never share a
    /// connection or TLS session.
    public var trust: TrustPolicy?
    /// Fail with `.httpError` (curl: 22) for a status of 400 or more, without keeping the body, as
    /// curl's `-f`. The client enforces it rather than CURLOPT_FAILONERROR, which stops at the status
    /// line: a server refusing the client certificate with a 400 page is still
    /// `.clientCertificateRejected` (58).
    public var failsOnHTTPError: Bool
    /// Collect the negotiated TLS facts (SNI sent, ALPN, peer certificate) into
    /// `HTTPResponse.connection.tls`. Off by default: it costs a few microseconds per request.
    public var reportsTLSDetails: Bool
    /// Whether the request may be sent a second time when it may already have reached the server.
    /// nil (the default): decided by the method (see `isIdempotent`).
    ///
    /// libcurl sends a request again, on a fresh connection, when the reused keep-alive connection
    /// it went out on closes before any response byte (the server may have closed it idle at the
    /// same moment; curl's "Connection died, retrying a fresh connect"), or when an HTTP/2 server
    /// refused the stream (REFUSED_STREAM, RFC 9113 §8.7). That is kept for
    /// idempotent requests. A non-idempotent one is never sent twice: it fails with
    /// `HTTPClientError.Kind.transferFailed` (curl 52) instead, since the server may have acted on
    /// it. Set `true` for a request whose repetition is harmless though its method is not
    /// idempotent (a DoH query sent by POST, RFC 8484 §4.1, or a request carrying an idempotency
    /// key), `false` to forbid the resend for any method.
    public var idempotent: Bool?
    /// Fields libcurl adds by itself (`Accept`, `User-Agent`, `Accept-Encoding`, `Expect`, ...) that
    /// are left out of the request: curl's `-H "Name:"` (CURLOPT_HTTPHEADER `Name:`). A name also in
    /// `headers` is sent with the given value. `Host` cannot be left out (it names the host the
    /// request is for), nor `Content-Length` or `Transfer-Encoding` from a request with a body
    /// (they frame it; without them the body would be read as the next request): `HTTPClient`
    /// fails such a request with `.invalidRequest`. Default: none.
    public var omittedHeaders: Set<String> = []
    /// Told each request head libcurl sends and each response head line it receives, as they cross
    /// the wire (curl's `-v` `>` and `<` lines; libcurl's CURLOPT_DEBUGFUNCTION with
    /// CURLINFO_HEADER_OUT and CURLINFO_HEADER_IN), for every exchange of the request: each hop of
    /// a followed redirect, each `1xx` response, a CONNECT to a proxy. Called on the client's
    /// transfer thread, so it must return quickly. nil (the default): libcurl's verbose mode stays
    /// off and nothing is traced, at no cost.
    ///
    /// - Warning: The heads are as sent: `Authorization`, `Cookie` and `Proxy-Authorization`
    ///   values are in them. Redact them before they reach logs others can read (`httpdns fetch -v`
    ///   shows a Basic credential as `Basic ***`).
    public var headTrace: (@Sendable (HTTPHeadTrace) -> Void)? = nil

    /// `idempotent` when set, else whether the method is one RFC 9110 §9.2.2 defines as idempotent:
    /// `GET`, `HEAD`, `OPTIONS`, `TRACE`, `PUT` and `DELETE` (methods are case-sensitive; `POST`,
    /// `PATCH`, `CONNECT` and unknown methods are not).
    public var isIdempotent: Bool {
        idempotent ?? ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"].contains(method)
    }

    public init(
        url: URL,
        method: String = "GET",
        headers: HTTPHeaders = HTTPHeaders(),
        body: HTTPRequestBody? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.connectTo = nil
        self.timeouts = nil
        self.httpVersion = nil
        self.trust = nil
        self.failsOnHTTPError = false
        self.reportsTLSDetails = false
        self.idempotent = nil
    }
}
