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
/// What it does for every request it takes:
/// - Bodies: `httpBody` and `httpBodyStream` (streamed as read, never held whole) are sent
///   byte-exact. The body of `upload(for:from:)`, `uploadTask(with:from:)` and
///   `uploadTask(with:fromFile:)` never reaches a `URLProtocol` on swift-corelibs-foundation; use
///   the `httpdnsUpload…` equivalents (`URLSession+HTTPDNSUpload.swift`), which carry it. A plain
///   upload task fails with `URLError(.requestBodyStreamExhausted)` instead of sending an empty body.
/// - Responses: status, fields and HTTP version as an `HTTPURLResponse` whose `url` is the logical
///   URL; the body streams in chunks to a session delegate as it arrives. Completion-handler and
///   `async` tasks get it in one piece (swift-corelibs-foundation keeps only the last chunk a
///   protocol delivers to them).
/// - Redirects are followed here (Foundation's `wasRedirectedTo` is unimplemented on Linux), each
///   hop resolved again with its own SNI, `Host` and trust, as `HTTPRedirect` describes; the task's
///   or session's `urlSession(_:task:willPerformHTTPRedirection:newRequest:completionHandler:)` may
///   change or decline each one (declined: the redirect response is the result). More than
///   `Configuration.maximumRedirects` fails with `URLError(.httpTooManyRedirects)`.
/// - Cookies: the session's `HTTPCookieStorage`, for each hop's logical URL (RFC 6265 domain and
///   path matching), honouring `httpShouldSetCookies` and `httpShouldHandleCookies`.
/// - Timeouts: `timeoutInterval`, or the session's `timeoutIntervalForRequest` when shorter (seconds),
///   limits connecting, resolving the name included, and any stall without data;
///   `timeoutIntervalForResource` limits the whole request. Either gives `URLError(.timedOut)`.
///   `stopLoading` (task cancellation) stops the transfer.
/// - Errors are `URLError`s (`URLError(_:)` in `URLError+HTTPClientError.swift`) with the
///   transport's `HTTPClientError` as `NSUnderlyingErrorKey`.
///
/// Download tasks are refused with `URLError(.unsupportedURL)`: swift-corelibs-foundation completes
/// them only for its own protocol. Use a data task, or `HTTPClient.execute(_:to: .file(_))`.
///
/// - Warning: Requests excluded by `Configuration.handles` go through Foundation's own stack and
///   the system resolver, which is exposed to the DNS hijacking this library exists to avoid.
open class HTTPDNSURLProtocol: URLProtocol {
    // Foundation calls startLoading and stopLoading on different threads: the loader is behind a lock.
    private let loader = LockedValue<URLProtocolLoader?>(nil)

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
}
