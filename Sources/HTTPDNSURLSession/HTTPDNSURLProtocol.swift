import Foundation
import HTTPDNSCore
import Synchronization
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import HTTPDNS

/// A `URLProtocol` that sends the `http` and `https` requests of a `URLSession` IP-direct: the
/// host is resolved by the configured resolver (DNS-over-HTTPS) and the connection goes straight
/// to that address while SNI, `Host` and certificate verification use the host name.
///
/// Configure once, then add the class to a session configuration:
///
/// ```swift
/// HTTPDNSURLProtocol.configure(.init(client: try HTTPClient(configuration: .init(trust: trust), resolver: resolver)))
/// let configuration = URLSessionConfiguration.default
/// configuration.protocolClasses = [HTTPDNSURLProtocol.self] + (configuration.protocolClasses ?? [])
/// let session = URLSession(configuration: configuration)
/// ```
///
/// A session that needs another client (trust policy, client certificate, resolver) lists a class
/// of its own instead: `makeClass(for:)`, or a subclass given its own `configure(_:)`.
///
/// What it does for every request it takes:
/// - Bodies are sent byte-exact: `httpBody` and `httpBodyStream` (streamed as read, never held
///   whole), the body of `upload(for:from:)`, `upload(for:fromFile:)`, `uploadTask(with:from:)`
///   and `uploadTask(with:fromFile:)` (a file streamed from disk), and for
///   `uploadTask(withStreamedRequest:)` the stream the delegate's
///   `urlSession(_:task:needNewBodyStream:)` gives. An upload task sends its upload's body, never
///   its request's own `httpBody`. swift-corelibs-foundation hands a `URLProtocol` none of the
///   upload bodies: they are read from the task (see `HTTPDNSURLProtocolError.uploadBodyUnavailable`).
/// - Responses: status, fields and HTTP version as an `HTTPURLResponse` whose `url` is the logical
///   URL; the body streams in chunks to a session delegate as it arrives. Completion-handler and
///   `async` tasks get it in one piece (swift-corelibs-foundation keeps only the last chunk a
///   protocol delivers to them).
/// - Download tasks (`downloadTask(with:)`, `download(for:delegate:)`, the completion-handler
///   variants) stream the body to a file of their own (`Configuration.downloadsDirectory`),
///   report `urlSession(_:downloadTask:didWriteData:totalBytesWritten:totalBytesExpectedToWrite:)`
///   after each write, and hand the complete file to `urlSession(_:downloadTask:didFinishDownloadingTo:)`
///   or the completion handler, as Foundation's own stack does. The file is removed when that
///   returns, except for `download(for:delegate:)`, whose caller owns it; a failed or cancelled
///   download leaves no file.
/// - Redirects are followed here (Foundation's `wasRedirectedTo` is unimplemented on Linux), each
///   hop resolved again with its own SNI, `Host` and trust, as `HTTPRedirect` describes; the task
///   delegate's `urlSession(_:task:willPerformHTTPRedirection:newRequest:completionHandler:)` may
///   change or decline each one (declined: the redirect response is the result). More than
///   `Configuration.maximumRedirects` fails with `URLError(.httpTooManyRedirects)`.
/// - The task delegate asked (redirects, a new body stream) and told of a download is the one
///   given to `data(for:delegate:)`, `upload(for:from:delegate:)`, `download(for:delegate:)` and
///   their siblings, else the task's `delegate`, else the session's.
/// - Cookies: the session's `HTTPCookieStorage`, for each hop's logical URL (RFC 6265 domain and
///   path matching), honouring `httpShouldSetCookies` and `httpShouldHandleCookies`.
/// - Timeouts: `timeoutInterval`, or the session's `timeoutIntervalForRequest` when shorter (seconds),
///   limits connecting, resolving the name included, and any stall without data;
///   `timeoutIntervalForResource` limits the whole request. Either gives `URLError(.timedOut)`.
///   `stopLoading` (task cancellation) stops the transfer.
/// - Errors are `URLError`s (`URLError(_:)` in `URLError+HTTPClientError.swift`) with the
///   transport's `HTTPClientError` or an `HTTPDNSURLProtocolError` as `NSUnderlyingErrorKey`.
///
/// - Note: swift-corelibs-foundation completes a download task itself only when it has no file to
///   hand over, and reads that file from state a custom protocol cannot set. So when the file goes
///   to a download delegate or a completion handler, this protocol delivers it and the completion,
///   and Foundation's own record of the task is not closed: `state` stays `.running`, the session
///   keeps listing the task (`getAllTasks`), and `finishTasksAndInvalidate()` waits for it forever
///   (`invalidateAndCancel()` does not). Cancelling such a finished task does nothing.
///
/// - Warning: Requests excluded by `Configuration.handles` go through Foundation's own stack and
///   the system resolver, which is exposed to the DNS hijacking this library exists to avoid.
open class HTTPDNSURLProtocol: URLProtocol {
    // Foundation calls startLoading and stopLoading on different threads: the loader is behind a lock.
    private let loader = LockedValue<URLProtocolLoader?>(nil)
    /// Set once this protocol has delivered a download's result itself: from then on Foundation
    /// must find no client to report a late cancellation to, which would be a second result.
    private let clientDetached = LockedValue(false)

    /// True for `http`/`https` URLs with a host that `Configuration.handles` accepts. Before
    /// `configure(_:)` every such request is taken and fails, rather than silently going to the
    /// system resolver.
    open override class func canInit(with request: URLRequest) -> Bool {
        guard let url = request.url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host(percentEncoded: false)?.isEmpty == false
        else { return false }
        guard let configuration = configuration else { return true }
        return configuration.handles(request)
    }

    open override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    /// Foundation's client, until this protocol delivered a download itself (then nil).
    open override var client: (any URLProtocolClient)? {
        get { clientDetached.withLock { $0 } ? nil : super.client }
        set { super.client = newValue }
    }

    open override func startLoading() {
        let loader = URLProtocolLoader(urlProtocol: self)
        self.loader.withLock { $0 = loader }
        loader.start()
    }

    open override func stopLoading() {
        let loader = self.loader.withLock { loader -> URLProtocolLoader? in
            defer { loader = nil }
            return loader
        }
        loader?.cancel()
    }

    func detachClient() {
        clientDetached.withLock { $0 = true }
    }
}
