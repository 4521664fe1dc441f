import Foundation
import HTTPDNSCore
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Synchronization
import HTTPDNS

/// Loads one `HTTPDNSURLProtocol` request: body, hops, cookies, delegate questions, delivery to
/// the protocol's client (or, for a download task, to its file and its delegate or completion
/// handler), and cancellation.
final class URLProtocolLoader: @unchecked Sendable { // immutable after init except `state`, which a lock guards
    private struct State {
        var cancelled = false
        var task: Task<Void, Never>?
        var url: URL?
        var download: DownloadFile?
        /// The download's file was handed on: cancellation no longer removes it.
        var delivered = false
    }

    private weak var urlProtocol: HTTPDNSURLProtocol?
    let client: (any URLProtocolClient)?
    private let request: URLRequest
    let context: SessionContext
    private let configuration: HTTPDNSURLProtocol.Configuration?
    /// For an upload task: its body as Foundation keeps it, read where `startLoading` runs.
    private let taskBody: TaskBody?
    private let state = LockedValue(State())

    /// Reads the session context and the task's body: call where Foundation calls `startLoading`.
    init(urlProtocol: HTTPDNSURLProtocol) {
        self.urlProtocol = urlProtocol
        client = urlProtocol.client
        request = urlProtocol.request
        context = SessionContext(task: urlProtocol.task)
        configuration = type(of: urlProtocol).configuration
        taskBody = (urlProtocol.task as? URLSessionUploadTask).map(TaskBody.init(of:))
    }

    func start() {
        let task = Task { await self.run() }
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    /// Stops the transfer and removes a download's file unless it was handed on; nothing more
    /// reaches the client (Foundation reports the cancellation).
    func cancel() {
        let (task, download) = state.withLock { state in
            state.cancelled = true
            return (state.task, state.delivered ? nil : state.download)
        }
        task?.cancel()
        download?.discard()
    }

    private var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Calls the client unless the load was cancelled. Never under the lock: the client may call
    /// back into `stopLoading`.
    func deliver(_ action: (any URLProtocolClient, URLProtocol) -> Void) {
        guard !isCancelled, let client, let urlProtocol else { return }
        action(client, urlProtocol)
    }

    /// Keeps a download's file for `cancel()` to remove: call before anything is written to it.
    func keep(_ download: DownloadFile) {
        state.withLock { $0.download = download }
    }

    /// Marks a download's file as handed on, unless the load was cancelled first (which removed
    /// it), and detaches Foundation's client in the same step, so that a later cancellation
    /// reaches nobody.
    /// - Returns: The protocol to report for, or nil when cancelled.
    func handOver() -> URLProtocol? {
        state.withLock { state -> URLProtocol? in
            guard !state.cancelled, let urlProtocol else { return nil }
            state.delivered = true
            urlProtocol.detachClient()
            return urlProtocol
        }
    }

    private func run() async {
        do {
            try await load()
        } catch {
            state.withLock { $0.delivered ? nil : $0.download }?.discard()
            guard !isCancelled else { return }
            let url = state.withLock { $0.url } ?? request.url
            deliver { $0.urlProtocol($1, didFailWithError: URLError(httpdns: error, url: url)) }
        }
    }

    private func load() async throws {
        guard let configuration else { throw HTTPDNSURLProtocolError.notConfigured }
        guard let url = request.url else { throw URLError(.badURL) }
        let download = try makeDownloadFile(url: url, configuration: configuration)

        let cookies = context.cookieStorage(for: request, fallback: configuration.fallbackCookieStorage)
        var current = request
        if taskBody != nil {
            // An upload task's body is its upload's: the request's own must not come back on a 307.
            current.httpBody = nil
            current.httpBodyStream = nil
        }
        if let cookies {
            current = current.withFirstHopCookies(from: cookies, sessionFound: context.session != nil)
        } else if !request.httpShouldHandleCookies, let storage = context.session?.configuration.httpCookieStorage {
            current = current.withoutSessionCookies(from: storage)
        }
        var body = try await initialBody(url: url)
        let resourceTimeout = context.session.map(\.configuration.timeoutIntervalForResource).flatMap { $0 > 0 && $0 < 7 * 86_400 ? $0 : nil }
        // The request's own interval and the session's `timeoutIntervalForRequest`, whichever is
        // shorter: a protocol class added to a session must not lift the session's limit.
        let sessionStall = context.session.map(\.configuration.timeoutIntervalForRequest).flatMap { $0 > 0 ? $0 : nil }
        var followed = 0
        var authentication = BasicAuthentication()
        var challengedSpace: URLProtectionSpace?
        while true {
            let hopURL = current.url ?? url
            state.withLock { $0.url = hopURL }
            let hop = current.httpdnsRequest(
                body: body, additionalHeaders: context.session?.configuration.httpAdditionalHeaders,
                sessionStallTimeout: sessionStall, resourceTimeout: resourceTimeout)
            let collector = HopCollector(
                url: hopURL, method: hop.method, cookies: cookies, streams: context.streamsChunks, download: download, loader: self)
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

            if let accepted = authentication.answered(status: collector.response?.statusCode ?? response?.status ?? 0), let challengedSpace {
                context.store(accepted, for: challengedSpace)
            }
            if let space = collector.challenge, let challenged = collector.response {
                let proposed = authentication.proposedCredential(for: space, in: context.session?.configuration.urlCredentialStorage)
                let answer = await context.answer(authentication.challenge(for: space, proposing: proposed, response: challenged))
                switch authentication.step(for: answer.disposition, credential: answer.credential, proposed: proposed) {
                case .send(let credential):
                    try Task.checkCancellation()
                    challengedSpace = space
                    current.setValue(BasicAuthentication.authorization(credential), forHTTPHeaderField: "Authorization")
                    body = try await replayed(body, url: hopURL)
                    continue
                case .cancel:
                    throw URLError(.cancelled, userInfo: [NSURLErrorFailingURLErrorKey: hopURL])
                case .deliver:
                    deliver { $0.urlProtocol($1, didReceive: challenged, cacheStoragePolicy: .notAllowed) }
                    try await finish(collector, response: challenged, download: download)
                    return
                }
            }
            guard let redirect = collector.redirect, let redirectResponse = collector.response else {
                var final = collector.response
                if final == nil, let response {
                    let head = HTTPURLResponse.httpdns(
                        url: hopURL, head: HTTPResponseHead(status: response.status, headers: response.headers, version: response.version, reasonPhrase: response.reasonPhrase))
                    deliver { $0.urlProtocol($1, didReceive: head, cacheStoragePolicy: .notAllowed) }
                    final = head
                }
                try await finish(collector, response: final, download: download)
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
                try await finish(collector, response: redirectResponse, download: download)
                return
            }
            try Task.checkCancellation()
            body = try await nextBody(for: decided, after: redirect, previous: body)
            current = decided
            followed += 1
        }
    }

    /// Ends the load with `collector`'s body: passed on (what the task has not been given yet),
    /// or for a download written to its file, which then goes to the delegate or completion handler.
    private func finish(_ collector: HopCollector, response: HTTPURLResponse?, download: DownloadFile?) async throws {
        guard let download else {
            if !collector.body.isEmpty { deliver { $0.urlProtocol($1, didLoad: collector.body) } }
            deliver { $0.urlProtocolDidFinishLoading($1) }
            return
        }
        if !collector.body.isEmpty { download.write(collector.body) }
        try await download.finish()
        deliverDownload(download.url, response: response)
    }

    /// The first hop's body: one registered by `httpdnsUpload…`; for an upload task the body
    /// Foundation keeps for it (the delegate's `needNewBodyStream` for a streamed request), never
    /// the request's own; else `httpBody`, else `httpBodyStream` (streamed; `Content-Length` tells
    /// libcurl its length when set).
    /// - Throws: `.uploadBodyUnavailable` when an upload task's body cannot be found,
    ///   `.uploadStreamUnavailable` when the delegate gives a streamed request none.
    private func initialBody(url: URL) async throws -> HTTPRequestBody? {
        if let task = context.task, let registered = UploadBodyRegistry.take(for: task) { return registered }
        let length = request.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) }
        switch taskBody {
        case nil: break
        case .none?: return nil
        case .data(let data)?: return .data(data)
        case .file(let file)?: return .file(file)
        case .stream(let stream)?: return .stream(stream, length: length)
        case .fromDelegate?:
            guard let stream = await context.newBodyStream() else { throw HTTPDNSURLProtocolError.uploadStreamUnavailable(url) }
            return .stream(stream, length: length)
        // Sending the request's own `httpBody` instead would send another body without a word.
        case .notFound?: throw HTTPDNSURLProtocolError.uploadBodyUnavailable(url)
        }
        if let data = request.httpBody { return .data(data) }
        if let stream = request.httpBodyStream { return .stream(stream, length: length) }
        return nil
    }

    /// The body for the hop after `redirect`: the delegate's `httpBody` if it set one, else the
    /// previous body when the redirect keeps it (a stream only through `needNewBodyStream`).
    private func nextBody(for request: URLRequest, after redirect: HTTPRedirect, previous: HTTPRequestBody?) async throws -> HTTPRequestBody? {
        if let data = request.httpBody { return .data(data) }
        guard redirect.keepsBody else { return nil }
        return try await replayed(previous, url: redirect.location)
    }

    /// `previous` to send once more (to `url`): bytes and files as they are, a stream through
    /// `needNewBodyStream`.
    /// - Throws: `.bodyStreamNotReplayable` when the delegate gives no new stream.
    private func replayed(_ previous: HTTPRequestBody?, url: URL) async throws -> HTTPRequestBody? {
        guard case .stream(_, let length)? = previous else { return previous }
        guard let stream = await context.newBodyStream() else { throw HTTPDNSURLProtocolError.bodyStreamNotReplayable(url) }
        return .stream(stream, length: length)
    }
}
