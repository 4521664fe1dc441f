import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import HTTPDNS

extension URLError {
    /// The `URLError` a URLSession caller expects for a failure of the IP-direct stack, with the
    /// original error (`HTTPClientError`, `HTTPDNSURLProtocolError`) as `NSUnderlyingErrorKey`, its message as the localized description and the
    /// URL as `NSURLErrorFailingURLErrorKey`.
    ///
    /// | failure | code |
    /// | --- | --- |
    /// | `.couldNotResolve` (NXDOMAIN, no addresses, no resolver) | `cannotFindHost` (`dnsLookupFailed` when no resolver answered) |
    /// | `.couldNotConnect` | `cannotConnectToHost` |
    /// | `.timedOut` | `timedOut` |
    /// | `.certificateVerificationFailed`: expired or not yet valid | `serverCertificateHasBadDate` |
    /// | … unknown issuer, self-signed | `serverCertificateHasUnknownRoot` |
    /// | … other (name mismatch, pin) | `serverCertificateUntrusted` |
    /// | `.tlsHandshakeFailed` / TLS alert about our certificate | `clientCertificateRejected` |
    /// | `.tlsHandshakeFailed`, `.trustConfigurationInvalid` | `secureConnectionFailed` |
    /// | `.tooManyRedirects` | `httpTooManyRedirects` |
    /// | `.invalidURL`, `.invalidRequest` / `.unsupportedScheme` | `badURL` / `unsupportedURL` |
    /// | `.responseTooLarge` | `dataLengthExceedsMaximum` |
    /// | `.bodyReadFailed` | `requestBodyStreamExhausted` |
    /// | `.outputFailed` | `cannotWriteToFile` |
    /// | `.transferFailed`: empty reply (curl 52) / other | `badServerResponse` / `networkConnectionLost` |
    /// | `CancellationError` | `cancelled` |
    public init(httpdns error: any Error, url: URL?) {
        if let error = error as? URLError {
            self = error
            return
        }
        let code: URLError.Code
        let message: String
        switch error {
        case let error as HTTPClientError:
            code = Self.code(for: error)
            message = error.message
        case let error as HTTPDNSURLProtocolError:
            switch error {
            case .notConfigured, .downloadDeliveryNotFound: code = .unsupportedURL
            case .uploadBodyUnavailable, .uploadStreamUnavailable, .bodyStreamNotReplayable: code = .requestBodyStreamExhausted
            case .downloadFileFailed: code = .cannotWriteToFile
            case .tooManyRedirects: code = .httpTooManyRedirects
            }
            message = error.description
        case is CancellationError:
            code = .cancelled
            message = "cancelled"
        default:
            code = .unknown
            message = "\(error)"
        }
        // The Swift error itself, so `as? HTTPClientError` recovers it (a bridged NSError would not).
        var info: [String: Any] = [NSUnderlyingErrorKey: error, NSLocalizedDescriptionKey: message]
        if let url {
            info[NSURLErrorFailingURLErrorKey] = url
        }
        self.init(code, userInfo: info)
    }

    static func code(for error: HTTPClientError) -> URLError.Code {
        let message = error.message.lowercased()
        switch error.kind {
        case .couldNotResolve:
            if case .resolverUnavailable? = error.resolutionError { return .dnsLookupFailed }
            return .cannotFindHost
        case .couldNotConnect: return .cannotConnectToHost
        case .timedOut: return .timedOut
        case .certificateVerificationFailed:
            if message.contains("expired") || message.contains("not yet valid") { return .serverCertificateHasBadDate }
            if message.contains("unable to get local issuer") || message.contains("self-signed") || message.contains("self signed")
                || message.contains("unable to get issuer")
            {
                return .serverCertificateHasUnknownRoot
            }
            return .serverCertificateUntrusted
        case .tlsHandshakeFailed where Self.rejectsClientCertificate(message),
            .transferFailed where Self.rejectsClientCertificate(message):
            return .clientCertificateRejected
        case .tlsHandshakeFailed, .trustConfigurationInvalid: return .secureConnectionFailed
        // A pin mismatch is the server's certificate being refused, as Apple's stack reports it.
        case .pinMismatch: return .serverCertificateUntrusted
        case .clientCertificateRejected: return .clientCertificateRejected
        case .certificateStatusInvalid: return .secureConnectionFailed
        case .tooManyRedirects: return .httpTooManyRedirects
        case .invalidURL, .invalidRequest: return .badURL
        case .unsupportedScheme: return .unsupportedURL
        case .responseTooLarge: return .dataLengthExceedsMaximum
        case .bodyReadFailed: return .requestBodyStreamExhausted
        case .outputFailed: return .cannotWriteToFile
        case .httpError: return .badServerResponse
        case .shutDown: return .cancelled
        case .transferFailed: return error.curlCode == 52 ? .badServerResponse : .networkConnectionLost
        }
    }

    /// TLS alerts a server sends when it refuses or requires our certificate (RFC 8446 §6.2),
    /// as OpenSSL words them.
    private static func rejectsClientCertificate(_ message: String) -> Bool {
        [
            "alert certificate required", "alert bad certificate", "alert unknown ca", "alert certificate unknown",
            "alert certificate revoked", "alert certificate expired", "alert unsupported certificate",
            "alert access denied"
        ].contains { message.contains($0) }
    }
}
