import Foundation
import HTTPDNSCore
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Synchronization
import HTTPDNS

/// Loads one `HTTPDNSURLProtocol` request: body, hops, cookies, delegate questions, delivery to
/// the protocol's client, and cancellation.
final class URLProtocolLoader: @unchecked Sendable { // immutable after init except `state`, which a Mutex guards
    private struct State {
        var cancelled = false
        var task: Task<Void, Never>?
        var url: URL?
    }

    private weak var urlProtocol: URLProtocol?
    private let client: (any URLProtocolClient)?
    private let request: URLRequest
    private let context: SessionContext
    private let configuration: HTTPDNSURLProtocol.Configuration?
    private let state = LockedValue(State())

    /// Reads the session context: call where Foundation calls `startLoading`.
    init(urlProtocol: URLProtocol) {
        self.urlProtocol = urlProtocol
        client = urlProtocol.client
        request = urlProtocol.request
        context = SessionContext(task: urlProtocol.task)
        configuration = HTTPDNSURLProtocol.configuration
    }

    func start() {
        let task = Task { await self.run() }
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    /// Stops the transfer; nothing more reaches the client (Foundation reports the cancellation).
    func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }

    private var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Calls the client unless the load was cancelled. Never under the lock: the client may call
    /// back into `stopLoading`.
    func deliver(_ action: (any URLProtocolClient, URLProtocol) -> Void) {
        guard !isCancelled, let client, let urlProtocol else { return }
        action(client, urlProtocol)
    }

    private func run() async {
        do {
            try await load()
        } catch {
            guard !isCancelled else { return }
            let url = state.withLock { $0.url } ?? request.url
            deliver { $0.urlProtocol($1, didFailWithError: URLError(httpdns: error, url: url)) }
        }
    }

    private func load() async throws {
        guard let configuration else { throw HTTPDNSURLProtocolError.notConfigured }
        guard let url = request.url else { throw URLError(.badURL) }
        if context.task is URLSessionDownloadTask { throw HTTPDNSURLProtocolError.downloadTasksUnsupported(url) }

        let cookies = context.cookieStorage(for: request, fallback: configuration.fallbackCookieStorage)
        var current = request
        if let cookies {
            current = current.withFirstHopCookies(from: cookies, sessionFound: context.session != nil)
        } else if !request.httpShouldHandleCookies, let storage = context.session?.configuration.httpCookieStorage {
            current = current.withoutSessionCookies(from: storage)
        }
        var body = try initialBody(url: url)
        let resourceTimeout = context.session.map(\.configuration.timeoutIntervalForResource).flatMap { $0 > 0 && $0 < 7 * 86_400 ? $0 : nil }
        // The request's own interval and the session's `timeoutIntervalForRequest`, whichever is
        // shorter: a protocol class added to a session must not lift the session's limit.
        let sessionStall = context.session.map(\.configuration.timeoutIntervalForRequest).flatMap { $0 > 0 ? $0 : nil }
        var followed = 0
        while true {
            let hopURL = current.url ?? url
            state.withLock { $0.url = hopURL }
            let hop = current.httpdnsRequest(
                body: body, additionalHeaders: context.session?.configuration.httpAdditionalHeaders,
                sessionStallTimeout: sessionStall, resourceTimeout: resourceTimeout)
            let collector = HopCollector(url: hopURL, method: hop.method, cookies: cookies, streams: context.streamsChunks, loader: self)
            let response: HTTPResponse?
            do {
                response = try await configuration.client.execute(
                    hop,
                    to: .streaming(
                        head: { collector.receiveHead($0) }, chunk: { collector.receiveChunk($0) }))
            } catch let error as HTTPClientError where error.kind == .transferFailed || error.kind == .bodyReadFailed {
                // A redirect answered before the request body was read, then the stream reset
                // (see HTTPClient.execute(_:to:redirects:cookies:)): the head is all we need.
                guard collector.redirect != nil else { throw error }
                response = nil
            }

            guard let redirect = collector.redirect, let redirectResponse = collector.response else {
                if collector.response == nil, let response {
                    let head = HTTPURLResponse.httpdns(
                        url: hopURL, head: HTTPResponseHead(status: response.status, headers: response.headers, version: response.version, reasonPhrase: response.reasonPhrase))
                    deliver { $0.urlProtocol($1, didReceive: head, cacheStoragePolicy: .notAllowed) }
                }
                if !collector.body.isEmpty { deliver { $0.urlProtocol($1, didLoad: collector.body) } }
                deliver { $0.urlProtocolDidFinishLoading($1) }
                return
            }
            guard followed < configuration.maximumRedirects else {
                throw HTTPDNSURLProtocolError.tooManyRedirects(hopURL, limit: configuration.maximumRedirects)
            }
            var proposed = current.redirected(by: redirect)
            if let cookies { proposed = proposed.withCookies(from: cookies, replacing: true) }
            guard let decided = await context.willPerformRedirection(redirectResponse, newRequest: proposed), decided.url != nil else {
                // Declined: the redirect response is the result, as on Apple platforms.
                deliver { $0.urlProtocol($1, didReceive: redirectResponse, cacheStoragePolicy: .notAllowed) }
                if !collector.body.isEmpty { deliver { $0.urlProtocol($1, didLoad: collector.body) } }
                deliver { $0.urlProtocolDidFinishLoading($1) }
                return
            }
            try Task.checkCancellation()
            body = try await nextBody(for: decided, after: redirect, previous: body)
            current = decided
            followed += 1
        }
    }

    /// The first hop's body: one registered by `httpdnsUpload…`, else `httpBody`, else
    /// `httpBodyStream` (streamed; `Content-Length` tells libcurl its length when set).
    /// - Throws: `.uploadBodyUnavailable` for an upload task whose body did not reach us.
    private func initialBody(url: URL) throws -> HTTPRequestBody? {
        if let task = context.task, let registered = UploadBodyRegistry.take(for: task) { return registered }
        // Before the request's own body: an upload task's body is the one it was made with, which
        // never reaches a URL protocol here; sending the request's `httpBody` instead would send
        // another body without a word.
        if context.task is URLSessionUploadTask { throw HTTPDNSURLProtocolError.uploadBodyUnavailable(url) }
        if let data = request.httpBody { return .data(data) }
        if let stream = request.httpBodyStream {
            return .stream(stream, length: request.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) })
        }
        return nil
    }

    /// The body for the hop after `redirect`: the delegate's `httpBody` if it set one, else the
    /// previous body when the redirect keeps it (a stream only through `needNewBodyStream`).
    private func nextBody(for request: URLRequest, after redirect: HTTPRedirect, previous: HTTPRequestBody?) async throws -> HTTPRequestBody? {
        if let data = request.httpBody { return .data(data) }
        guard redirect.keepsBody, let previous else { return nil }
        guard case .stream(_, let length) = previous else { return previous }
        guard let stream = await context.newBodyStream() else {
            throw HTTPDNSURLProtocolError.bodyStreamNotReplayable(redirect.location)
        }
        return .stream(stream, length: length)
    }
}

/// One hop's response as the transfer thread delivers it: cookies stored and the redirect decided
/// when the head arrives; a final response's head and chunks passed on at once when the task
/// streams, else collected.
private final class HopCollector: @unchecked Sendable { // written only on the transfer thread during the transfer; read after it completes
    /// Redirect bodies are kept for a declined redirect, up to this many bytes.
    private static let redirectBodyLimit = 1 << 20

    let url: URL
    let method: String
    let cookies: HTTPCookieStorage?
    let streams: Bool
    let loader: URLProtocolLoader
    private(set) var redirect: HTTPRedirect?
    private(set) var response: HTTPURLResponse?
    private(set) var body = Data()

    init(url: URL, method: String, cookies: HTTPCookieStorage?, streams: Bool, loader: URLProtocolLoader) {
        self.url = url
        self.method = method
        self.cookies = cookies
        self.streams = streams
        self.loader = loader
    }

    func receiveHead(_ head: HTTPResponseHead) {
        if let cookies { HTTPCookieStorageJar(cookies).storeCookies(head.headers[all: "Set-Cookie"], from: url) }
        let response = HTTPURLResponse.httpdns(url: url, head: head)
        self.response = response
        redirect = HTTPRedirect(status: head.status, headers: head.headers, url: url, method: method)
        if redirect == nil {
            loader.deliver { $0.urlProtocol($1, didReceive: response, cacheStoragePolicy: .notAllowed) }
        }
    }

    func receiveChunk(_ data: Data) {
        if redirect == nil, streams {
            loader.deliver { $0.urlProtocol($1, didLoad: data) }
        } else if redirect == nil || body.count + data.count <= Self.redirectBodyLimit {
            body.append(data)
        }
    }
}
