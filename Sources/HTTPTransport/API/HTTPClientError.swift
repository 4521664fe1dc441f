import Foundation
import HTTPDNSCore
import TLSTrust

/// Why a request failed. `kind` says which stage failed; DNS outcomes, connection failures and
/// trust failures are distinct kinds. `curlCode` is the underlying CURLcode when libcurl reported
/// the failure (its numbers are curl's exit statuses).
public struct HTTPClientError: Error, Sendable, CustomStringConvertible {
    /// The failing stage.
    public enum Kind: String, Sendable, Hashable {
        /// The URL is malformed or has no host (curl: 3).
        case invalidURL
        /// The scheme is not `http` or `https` (curl: 1).
        case unsupportedScheme
        /// The request cannot be sent as given: unreadable body file, bad header (curl: 2/26).
        case invalidRequest
        /// The host name did not resolve; `resolutionError` says why (curl: 6).
        case couldNotResolve
        /// No address accepted a connection (curl: 7).
        case couldNotConnect
        /// A connect or total time limit passed (curl: 28).
        case timedOut
        /// The TLS handshake failed for a reason other than verification (curl: 35).
        case tlsHandshakeFailed
        /// The server's certificate chain or name did not verify (curl: 60).
        case certificateVerificationFailed
        /// The trust policy cannot be used: anchors that do not load, a pin set breaking its own
        /// rules, no policy for the host when one is required, or an option this platform cannot
        /// honour (curl: 77).
        case trustConfigurationInvalid
        /// The chain verified but no certificate in it carries a pin of the host's pin set;
        /// `pinReport` lists what the server presented (curl: 90, CURLE_SSL_PINNEDPUBKEYNOTMATCH).
        case pinMismatch
        /// The server refused the client certificate, or required one and got none: a TLS alert
        /// (`certificate required`, `unknown ca`, `bad certificate`, ...) or nginx's HTTP 400
        /// "No required SSL certificate was sent" / "The SSL certificate error" page; or the
        /// identity could not be used (curl: 58, CURLE_SSL_CERTPROBLEM).
        case clientCertificateRejected
        /// OCSP stapling was required and the server stapled no valid response (curl: 91,
        /// CURLE_SSL_INVALIDCERTSTATUS).
        case certificateStatusInvalid
        /// The status was 400 or more and `failsOnHTTPError` was set (curl: 22).
        case httpError
        /// The body exceeded the `.memory(limit:)` (curl: 63).
        case responseTooLarge
        /// Writing the body to its destination failed (curl: 23).
        case outputFailed
        /// Reading the request body failed (curl: 26).
        case bodyReadFailed
        /// The connection failed while sending or receiving, or the server broke the protocol
        /// (curl: 16, 18, 52, 55, 56, 92).
        case transferFailed
        /// The client was shut down.
        case shutDown
        /// More redirects than the `RedirectPolicy` allows (curl: 47).
        case tooManyRedirects
    }

    public var kind: Kind
    /// What happened, for people: names the URL, address or file involved.
    public var message: String
    /// The request URL.
    public var url: URL?
    /// The CURLcode, when libcurl reported the failure.
    public var curlCode: Int?
    /// The resolver's error for `.couldNotResolve`.
    public var resolutionError: ResolutionError?
    /// The HTTP status for `.httpError` and for a client certificate rejected with HTTP 400.
    public var status: Int?
    /// The addresses the request was sent to and where they came from, when resolution succeeded.
    public var resolution: HostResolution?
    /// For `.pinMismatch`: the host, the pins it presented (with subjects) and the pin set.
    public var pinReport: PinReport?
    /// For `.httpError` (`HTTPRequest.failsOnHTTPError`): the response's status line and fields, as
    /// received (a `Retry-After` of a 429 or 503, say); its body was dropped, as curl -f drops it.
    public var responseHead: HTTPResponseHead?
    /// How far the failed transfer got, when libcurl ran it: the address connected to, the phases'
    /// times, the certificate verdict. nil when the request failed before its transfer started
    /// (resolution, an address race that timed out, a request refused as given).
    public var connection: ConnectionReport?
    /// What the origin's HTTPS records changed before the request failed, and why any was passed
    /// over (`ConnectionReport.serviceBindingRoute`); nil when none applied.
    public var serviceBindingRoute: ServiceBindingRoute?

    public init(
        kind: Kind, message: String, url: URL? = nil, curlCode: Int? = nil,
        resolutionError: ResolutionError? = nil, status: Int? = nil, pinReport: PinReport? = nil
    ) {
        self.kind = kind
        self.message = message
        self.url = url
        self.curlCode = curlCode
        self.resolutionError = resolutionError
        self.status = status
        self.pinReport = pinReport
    }

    public var description: String { message }

    /// `.bodyReadFailed` for a `.stream` body that has to go out again after being read: "`method`
    /// `url` `reason`, but its body is a stream...", `reason` saying why ("was redirected (307) to
    /// ..., which takes the same body"). A stream is read once; `.data` and `.file` bodies replay.
    static func streamBodyNotReplayable(method: String, url: URL, _ reason: String, curlCode: Int? = nil) -> HTTPClientError {
        HTTPClientError(
            kind: .bodyReadFailed,
            message:
                "\(method) \(url.redactedString) \(reason), but its body is a stream that was already read and cannot be replayed: give the body as .data or .file (HTTPRequestBody) when the request may be redirected with 307/308 or sent again",
            url: url, curlCode: curlCode)
    }

    /// The exit status curl uses for this failure (curl(1) "EXIT CODES"): 6 for `.couldNotResolve`,
    /// 28 for `.timedOut`, 60 for `.certificateVerificationFailed`, libcurl's own code for
    /// `.transferFailed`; see `exitStatus(for:curlCode:)`.
    public var curlExitStatus: Int32 { Self.exitStatus(for: kind, curlCode: curlCode) }

    /// The exit status curl uses for a failure of `kind` (curl(1) "EXIT CODES"); `curlCode`
    /// matters only for `.transferFailed`, which keeps libcurl's code (56 when nil).
    public static func exitStatus(for kind: Kind, curlCode: Int? = nil) -> Int32 {
        FailureTable.exitStatus(for: kind, curlCode: curlCode)
    }
}
