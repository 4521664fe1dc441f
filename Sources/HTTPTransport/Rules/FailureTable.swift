internal import CCurl

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

    private static let codes: [Int: HTTPClientError.Kind] = [
        Int(CURLE_UNSUPPORTED_PROTOCOL.rawValue): .unsupportedScheme,
        Int(CURLE_URL_MALFORMAT.rawValue): .invalidURL,
        Int(CURLE_COULDNT_RESOLVE_HOST.rawValue): .couldNotResolve,
        Int(CURLE_COULDNT_CONNECT.rawValue): .couldNotConnect,
        Int(CURLE_HTTP_RETURNED_ERROR.rawValue): .httpError,
        Int(CURLE_WRITE_ERROR.rawValue): .outputFailed,
        Int(CURLE_READ_ERROR.rawValue): .bodyReadFailed,
        Int(CURLE_OPERATION_TIMEDOUT.rawValue): .timedOut,
        Int(CURLE_SSL_CONNECT_ERROR.rawValue): .tlsHandshakeFailed,
        Int(CURLE_ABORTED_BY_CALLBACK.rawValue): .bodyReadFailed,
        Int(CURLE_TOO_MANY_REDIRECTS.rawValue): .tooManyRedirects,
        Int(CURLE_PEER_FAILED_VERIFICATION.rawValue): .certificateVerificationFailed,
        Int(CURLE_SSL_CERTPROBLEM.rawValue): .clientCertificateRejected,
        Int(CURLE_FILESIZE_EXCEEDED.rawValue): .responseTooLarge,
        Int(CURLE_SEND_FAIL_REWIND.rawValue): .bodyReadFailed,
        Int(CURLE_SSL_CACERT_BADFILE.rawValue): .trustConfigurationInvalid,
        Int(CURLE_SSL_PINNEDPUBKEYNOTMATCH.rawValue): .pinMismatch,
        Int(CURLE_SSL_INVALIDCERTSTATUS.rawValue): .certificateStatusInvalid,
    ]

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
