internal import CCurl
internal import CHTTPDNSShims

/// The one table from libcurl's result codes to `HTTPClientError.Kind`, and from kinds to the
/// exit statuses of curl(1) ("EXIT CODES"), which the `httpdns` tool uses too.
///
/// A transfer's own facts can refine the kind a code maps to (a verification failure that was a
/// pin mismatch, a handshake failure that was the client certificate's alert); those refinements
/// live with the transfer's error messages (`Transfer.error(for:)`). Everything else comes from here.
enum FailureTable {
    /// The kind libcurl's `code` (a CURLcode) stands for, without context.
    static func kind(forCurlCode code: Int) -> HTTPClientError.Kind {
        codes[code] ?? .transferFailed
    }

    private static let codes: [Int: HTTPClientError.Kind] = {
        let pairs: [(CURLcode, HTTPClientError.Kind)] = [
            (CURLE_UNSUPPORTED_PROTOCOL, .unsupportedScheme),
            (CURLE_URL_MALFORMAT, .invalidURL),
            (CURLE_COULDNT_RESOLVE_HOST, .couldNotResolve),
            (CURLE_COULDNT_CONNECT, .couldNotConnect),
            (CURLE_HTTP_RETURNED_ERROR, .httpError),
            (CURLE_WRITE_ERROR, .outputFailed),
            (CURLE_READ_ERROR, .bodyReadFailed),
            (CURLE_OPERATION_TIMEDOUT, .timedOut),
            (CURLE_SSL_CONNECT_ERROR, .tlsHandshakeFailed),
            (CURLE_ABORTED_BY_CALLBACK, .bodyReadFailed),
            (CURLE_TOO_MANY_REDIRECTS, .tooManyRedirects),
            (CURLE_PEER_FAILED_VERIFICATION, .certificateVerificationFailed),
            (CURLE_SSL_CERTPROBLEM, .clientCertificateRejected),
            (CURLE_FILESIZE_EXCEEDED, .responseTooLarge),
            (CURLE_SEND_FAIL_REWIND, .bodyReadFailed),
            (CURLE_SSL_CACERT_BADFILE, .trustConfigurationInvalid),
            (CURLE_SSL_PINNEDPUBKEYNOTMATCH, .pinMismatch),
            (CURLE_SSL_INVALIDCERTSTATUS, .certificateStatusInvalid)
        ]
        return Dictionary(uniqueKeysWithValues: pairs.map { (Int($0.0.rawValue), $0.1) })
    }()

    /// The exit status for a failure of `kind`: curl's for the same failure. `.transferFailed`
    /// keeps libcurl's own code (16, 18, 52, 55, 56, 92: each is its curl exit status), 56 when
    /// libcurl gave none.
    static func exitStatus(for kind: HTTPClientError.Kind, curlCode: Int?) -> Int32 {
        switch kind {
        case .unsupportedScheme: 1
        case .invalidRequest: 2
        case .invalidURL: 3
        case .couldNotResolve: 6
        case .couldNotConnect: 7
        case .httpError: 22
        case .outputFailed: 23
        case .bodyReadFailed: 26
        case .timedOut: 28
        case .tlsHandshakeFailed: 35
        case .shutDown: 43
        case .tooManyRedirects: 47
        case .clientCertificateRejected: 58
        case .certificateVerificationFailed: 60
        case .responseTooLarge: 63
        case .trustConfigurationInvalid: 77
        case .pinMismatch: 90
        case .certificateStatusInvalid: 91
        case .transferFailed: Int32(curlCode ?? 56)
        }
    }
}
