import Foundation
import HTTPDNSCore
import TLSTrust

/// A complete response: status, fields, body and how the connection was made.
public struct HTTPResponse: Sendable {
    /// Status code (RFC 9110 §15).
    public var status: Int
    /// Fields of the final response (interim 1xx responses are dropped).
    public var headers: HTTPHeaders
    /// Version the response came with.
    public var version: HTTPVersion
    /// The reason phrase of the HTTP/1.x status line, as received (`Not Found`; empty when the line
    /// has none); nil for HTTP/2 and HTTP/3. See `HTTPResponseHead.reasonPhrase`.
    public var reasonPhrase: String? = nil
    /// The body when the destination was `.memory`; empty otherwise.
    public var body: Data
    /// Where the request went and what TLS negotiated.
    public var connection: ConnectionReport
    /// The URL of the request this response answers: after redirects, the last one followed.
    /// Always the logical URL (host name), never the address connected to.
    public var url: URL? = nil
    /// Body bytes received, before any content decoding (`Configuration.decompressesResponses`)
    /// (CURLINFO_SIZE_DOWNLOAD_T; curl's `size_download`). Counted also when the destination
    /// dropped the body (a followed redirect's).
    public var bodyBytesReceived: Int64 = 0
    /// Bytes of the response heads received: status lines and fields, interim 1xx heads included
    /// (CURLINFO_HEADER_SIZE; curl's `size_header` for one request).
    public var headerBytesReceived: Int = 0
}

/// How a request reached its server.
public struct ConnectionReport: Sendable {
    /// The address connected to (CURLINFO_PRIMARY_IP), without brackets.
    public var remoteAddress: String?
    /// The port connected to (CURLINFO_PRIMARY_PORT).
    public var remotePort: Int?
    /// The addresses offered to the connection and where they came from; nil for IP-literal URLs
    /// and explicit `connectTo`.
    public var resolution: HostResolution?
    /// True when the request reused a pooled connection (CURLINFO_NUM_CONNECTS was 0).
    public var reusedConnection: Bool
    /// Negotiated TLS facts, when `HTTPRequest.reportsTLSDetails` was set and the URL is https.
    public var tls: TLSReport?
    /// How long each phase took.
    public var timing: TransferTiming? = nil
    /// The HTTP proxy the request went through (by host name; `remoteAddress` is then the proxy's).
    public var proxy: URL? = nil
    /// A pin mismatch that a report-only pin set let through, if any.
    public var pinReport: PinReport? = nil
    /// How the server's certificate was checked: `.verified`, `.disabled` under
    /// `TrustPolicy.insecureSkippingAllVerification` (on a reused connection too: nothing was
    /// checked when it was made), or `.failed` on a failed request (`HTTPClientError.connection`)
    /// whose certificate was refused. nil for `http` URLs and for a request that failed before the
    /// server's certificate was checked (it could not connect, say).
    public var certificateVerification: CertificateVerification? = nil
    /// True when this request made a new connection without certificate verification
    /// (`TrustPolicy.insecureSkippingAllVerification`); each raises
    /// `TrustEvent.insecureConnection`. False on a reused connection, whose request made none:
    /// `certificateVerification` says how any connection was checked.
    public var verificationSkipped: Bool = false
    /// OpenSSL's verdict on the server's chain and name (CURLINFO_SSL_VERIFYRESULT, an
    /// `X509_V_ERR_*` code; curl's `ssl_verify_result`): 0 when they verified; on a failed request
    /// (`HTTPClientError.connection`) why they did not (20: no trusted issuer, 10: expired, 62:
    /// another host name, ...). With verification disabled it is what verification would have found
    /// (18 for a self-signed certificate, 62 for another name), as curl reports it with `-k`, but
    /// nothing depended on it: `certificateVerification` is `.disabled` whatever it is.
    public var certificateVerifyResult: Int = 0
    /// What the origin's HTTPS records changed (port, ALPN, TargetName, hints, the `http` upgrade)
    /// and why any record was passed over; nil when the resolution carried none that apply
    /// (`HTTPClient.Configuration.usesServiceBindings`).
    public var serviceBindingRoute: ServiceBindingRoute? = nil
}

/// What the TLS handshake of the connection actually carried, read from the OpenSSL session.
public struct TLSReport: Sendable, Hashable {
    /// The server name sent in the ClientHello SNI extension (RFC 6066 §3); nil when none was
    /// sent, as for IP-literal URLs.
    public var serverName: String?
    /// The ALPN protocol the server selected (RFC 7301), e.g. `h2` or `http/1.1`.
    public var alpn: String?
    /// The protocol version, e.g. `TLSv1.3`.
    public var protocolVersion: String?
    /// Subject of the server's certificate (RFC 2253 form).
    public var peerSubject: String?
    /// Issuer of the server's certificate (RFC 2253 form).
    public var peerIssuer: String?
    /// How the certificate was checked: `.verified` for every completed request under a verifying
    /// policy (a failure aborts the handshake); `.disabled` under
    /// `TrustPolicy.insecureSkippingAllVerification` (`-k`), which checks nothing, whatever the
    /// certificate. As `ConnectionReport.certificateVerification`.
    public var verification: CertificateVerification
    /// True only when `verification` is `.verified`: the chain led to an anchor and the certificate
    /// matched the host name. False under `TrustPolicy.insecureSkippingAllVerification` (`-k`),
    /// even for a certificate that would have verified: none was checked.
    public var verified: Bool { verification.isVerified }
    /// The server certificate's notAfter (end of validity).
    public var peerNotAfter: Date? = nil
    /// The chain the handshake verified, leaf first and anchor last, with each certificate's pins;
    /// with verification disabled, what the server sent (`verification` is then `.disabled`: it
    /// was not verified). Empty on a reused connection or a resumed TLS session, where no
    /// certificate was checked.
    public var certificateChain: [PresentedCertificate] = []
}

/// Where the response body goes.
public enum ResponseBodyDestination: Sendable {
    /// Collected into `HTTPResponse.body`. A body longer than `limit` bytes fails the request with
    /// `.responseTooLarge`. `nil`: no limit.
    case memory(limit: Int?)
    /// Streamed to a temporary file beside `url` and renamed onto `url` only when the request
    /// succeeds, so `url` never holds a partial body. Never held in memory. A device or FIFO is
    /// written in place. An existing file the process may not write fails the request with
    /// `.outputFailed` before it is sent. An existing file a rename would fail on or change for
    /// others (other hard links, a directory the process may not write, another owner) is
    /// streamed to a temporary file (beside it, else in `TMPDIR` or /tmp) and copied into it, in
    /// place, when the request succeeds. A symbolic link is followed unless the kernel's
    /// protected_symlinks rule would refuse it (in a sticky, world-writable directory and owned by
    /// neither this user nor the directory's owner): `.outputFailed` before the request is sent.
    /// - Warning: That copy is not atomic: a reader during it sees the new body's start over the
    ///   old body's rest (only a rename swaps in whole content, and a rename would break the
    ///   links). A copy that fails (disk full) fails the request with `.outputFailed`, leaves the
    ///   file holding the new body's start, and keeps the temporary file, whose path the message
    ///   names: the one complete copy of the body.
    case file(URL)
    /// Each chunk as it arrives, on the thread driving libcurl at that moment (the transfer thread,
    /// or a thread starting a request), one call at a time (keep the handler short).
    case handler(@Sendable (Data) -> Void)
    /// The response head as soon as it is complete (after any interim 1xx responses, before the
    /// body), then each body chunk as it arrives; both on the thread driving libcurl, one call at a
    /// time (keep them short).
    /// For callers that act on status and fields before the body, such as a `URLProtocol`.
    case streaming(head: @Sendable (HTTPResponseHead) -> Void, chunk: @Sendable (Data) -> Void)
}
