import Foundation
import HTTPDNSCore

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
        /// The trust anchors could not be loaded (curl: 77).
        case trustConfigurationInvalid
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
    /// The HTTP status for `.httpError`.
    public var status: Int?

    public init(kind: Kind, message: String, url: URL? = nil, curlCode: Int? = nil,
                resolutionError: ResolutionError? = nil, status: Int? = nil) {
        self.kind = kind
        self.message = message
        self.url = url
        self.curlCode = curlCode
        self.resolutionError = resolutionError
        self.status = status
    }

    public var description: String { message }

    /// The exit status curl uses for this failure (curl(1) "EXIT CODES").
    public var curlExitStatus: Int32 {
        switch kind {
        case .invalidURL: 3
        case .unsupportedScheme: 1
        case .invalidRequest: 2
        case .couldNotResolve: 6
        case .couldNotConnect: 7
        case .timedOut: 28
        case .tlsHandshakeFailed: 35
        case .certificateVerificationFailed: 60
        case .trustConfigurationInvalid: 77
        case .httpError: 22
        case .responseTooLarge: 63
        case .outputFailed: 23
        case .bodyReadFailed: 26
        case .transferFailed: Int32(curlCode ?? 56)
        case .shutDown: 43
        case .tooManyRedirects: 47
        }
    }
}
