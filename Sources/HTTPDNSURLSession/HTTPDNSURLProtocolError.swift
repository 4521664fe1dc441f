import Foundation

/// Failures that only the URLSession integration has. Each reaches the session as a `URLError`
/// (code below) with this error as `NSUnderlyingErrorKey` and its description as the message.
public enum HTTPDNSURLProtocolError: Error, Sendable, CustomStringConvertible {
    /// Neither the protocol class nor `HTTPDNSURLProtocol` has a configuration: `configure(_:)`
    /// was not called (`URLError.Code.unsupportedURL`).
    case notConfigured
    /// An upload task's body could not be read from the task: swift-corelibs-foundation keeps the
    /// body of `upload(for:from:)`, `uploadTask(with:from:)`, `uploadTask(with:fromFile:)` and
    /// their siblings in the task (its internal `knownBody`), and this Foundation no longer has it
    /// there (`.requestBodyStreamExhausted`). Nothing is sent, never an empty body.
    case uploadBodyUnavailable(URL)
    /// `uploadTask(withStreamedRequest:)`: the delegate's `urlSession(_:task:needNewBodyStream:)`
    /// gave no stream (`.requestBodyStreamExhausted`). Nothing is sent.
    case uploadStreamUnavailable(URL)
    /// A 307/308 redirect or an answered authentication challenge needs the body again, it came
    /// from a stream, and the delegate's `urlSession(_:task:needNewBodyStream:)` gave none
    /// (`.requestBodyStreamExhausted`).
    case bodyStreamNotReplayable(URL)
    /// A download task whose completion handler or delegate could not be found: this Foundation
    /// keeps them elsewhere than swift-corelibs-foundation 6 (`.unsupportedURL`). Nothing is sent.
    case downloadDeliveryNotFound(URL)
    /// A download task's file could not be created or written (`reason`: `strerror`); it is
    /// removed (`.cannotWriteToFile`).
    case downloadFileFailed(URL, reason: String)
    /// More redirects than `Configuration.maximumRedirects` (`.httpTooManyRedirects`).
    case tooManyRedirects(URL, limit: Int)

    public var description: String {
        switch self {
        case .notConfigured:
            "HTTPDNSURLProtocol is not configured: call HTTPDNSURLProtocol.configure(_:) before starting tasks"
        case .uploadBodyUnavailable(let url):
            "the body of the upload task for \(url.absoluteString) could not be read from the task (this Foundation does not keep it "
                + "where swift-corelibs-foundation 6 does); nothing was sent. Use URLSession.httpdnsUpload(for:from:) / "
                + "httpdnsUpload(for:fromFile:) / httpdnsUploadTask(with:from:) / httpdnsUploadTask(with:fromFile:), "
                + "or a data task with httpBody or httpBodyStream"
        case .uploadStreamUnavailable(let url):
            "the streamed upload to \(url.absoluteString) has no body: the delegate's urlSession(_:task:needNewBodyStream:) gave no "
                + "stream; nothing was sent"
        case .bodyStreamNotReplayable(let url):
            "sending the request to \(url.absoluteString) again (a 307/308 redirect, or a credential for a 401) needs its body again, but it came from httpBodyStream and the delegate provided no new stream (urlSession(_:task:needNewBodyStream:)); use httpBody or a file upload"
        case .downloadDeliveryNotFound(let url):
            "the download task for \(url.absoluteString) cannot be completed: its completion handler and delegate are not where "
                + "swift-corelibs-foundation 6 keeps them; nothing was sent. Use a data task, or HTTPClient.execute(_:to: .file(_:))"
        case .downloadFileFailed(let url, let reason):
            "cannot write the download file \(url.path): \(reason)"
        case .tooManyRedirects(let url, let limit):
            "too many redirects: \(url.absoluteString) redirects again after \(limit)"
        }
    }
}
