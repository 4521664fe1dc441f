import HTTPDNS

extension HTTPClientError.Kind {
    /// The failure in words, for text output (`probe`'s `FAILED certificate verification failed:
    /// ...`): a person reads these; `rawValue`, the case's name, is for `--json` and scripts.
    var words: String {
        switch self {
        case .invalidURL: "invalid URL"
        case .unsupportedScheme: "unsupported scheme"
        case .invalidRequest: "invalid request"
        case .couldNotResolve: "could not resolve host"
        case .couldNotConnect: "could not connect"
        case .timedOut: "timed out"
        case .tlsHandshakeFailed: "TLS handshake failed"
        case .certificateVerificationFailed: "certificate verification failed"
        case .trustConfigurationInvalid: "unusable trust configuration"
        case .pinMismatch: "pin mismatch"
        case .clientCertificateRejected: "client certificate rejected"
        case .certificateStatusInvalid: "no valid OCSP staple"
        case .httpError: "HTTP error"
        case .responseTooLarge: "response too large"
        case .outputFailed: "writing the output failed"
        case .bodyReadFailed: "reading the request body failed"
        case .transferFailed: "transfer failed"
        case .shutDown: "client shut down"
        case .tooManyRedirects: "too many redirects"
        }
    }
}

extension HTTPClientError {
    /// What failed, then the message, for a line of text: `certificate verification failed for
    /// wrong.test: ...` as the message says it, else `timed out: MESSAGE`.
    var summary: String {
        message.lowercased().hasPrefix(kind.words.lowercased()) ? message : "\(kind.words): \(message)"
    }
}
