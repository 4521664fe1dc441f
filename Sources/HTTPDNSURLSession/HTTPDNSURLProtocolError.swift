import Foundation

/// Failures that only the URLSession integration has. Each reaches the session as a `URLError`
/// (code below) with this error as `NSUnderlyingErrorKey` and its description as the message.
public enum HTTPDNSURLProtocolError: Error, Sendable, CustomStringConvertible {
    /// `HTTPDNSURLProtocol.configure(_:)` was not called (`URLError.Code.unsupportedURL`).
    case notConfigured
    /// An upload task's body did not reach the protocol: swift-corelibs-foundation hands a
    /// `URLProtocol` neither `httpBody` nor `httpBodyStream` for `upload(for:from:)`,
    /// `uploadTask(with:from:)`, `uploadTask(with:fromFile:)`, and a request's own `httpBody` or
    /// `httpBodyStream` is not the upload's body (`.requestBodyStreamExhausted`); also for
    /// `uploadTask(withStreamedRequest:)`.
    case uploadBodyUnavailable(URL)
    /// A 307/308 redirect needs the body again, it came from a stream, and the delegate's
    /// `urlSession(_:task:needNewBodyStream:)` gave none (`.requestBodyStreamExhausted`).
    case bodyStreamNotReplayable(URL)
    /// Download tasks cannot be completed by a custom protocol on swift-corelibs-foundation
    /// (`.unsupportedURL`).
    case downloadTasksUnsupported(URL)
    /// More redirects than `Configuration.maximumRedirects` (`.httpTooManyRedirects`).
    case tooManyRedirects(URL, limit: Int)

    public var description: String {
        switch self {
        case .notConfigured:
            "HTTPDNSURLProtocol is not configured: call HTTPDNSURLProtocol.configure(_:) before starting tasks"
        case .uploadBodyUnavailable(let url):
            "the body of the upload task for \(url.absoluteString) did not reach HTTPDNSURLProtocol (swift-corelibs-foundation does not pass upload bodies to URL protocols); nothing was sent. Use URLSession.httpdnsUpload(for:from:) / httpdnsUpload(for:fromFile:) / httpdnsUploadTask(with:from:) / httpdnsUploadTask(with:fromFile:), or a data task with httpBody or httpBodyStream"
        case .bodyStreamNotReplayable(let url):
            "the redirect to \(url.absoluteString) needs the request body again, but it came from httpBodyStream and the delegate provided no new stream (urlSession(_:task:needNewBodyStream:)); use httpBody or a file upload to follow 307/308 redirects"
        case .downloadTasksUnsupported(let url):
            "download tasks are not supported by HTTPDNSURLProtocol on this platform (\(url.absoluteString)); use a data task, or HTTPClient.execute(_:to: .file(_:))"
        case .tooManyRedirects(let url, let limit):
            "too many redirects: \(url.absoluteString) redirects again after \(limit)"
        }
    }
}
