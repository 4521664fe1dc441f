import Foundation
import HTTPDNSCore

extension HTTPClient {
    /// Sends `request` and follows redirects (RFC 9110 §15.4) above libcurl: every hop is a new
    /// request whose host is resolved again and gets its own SNI, `Host` and certificate check,
    /// with a relative `Location` resolved against the logical URL (never the address).
    ///
    /// Method and body follow `HTTPRedirect`: 301/302 turn POST into GET, 303 turns everything but
    /// HEAD into GET, 307/308 keep both. Credentials, cookies and a caller-supplied `Host` are not
    /// carried to another origin. The bodies of followed redirects are dropped unread by the
    /// destination; a `.file` destination receives only the final body. With
    /// `policy.setsReferer`, each request after a redirect names the URL it came from in `Referer`.
    ///
    /// - Parameters:
    ///   - request: The first request.
    ///   - destination: Where the final body goes.
    ///   - policy: How many redirects to follow.
    ///   - cookies: When given, `Cookie` is added from it for each hop's URL and every hop's
    ///     `Set-Cookie` fields are stored in it for that URL.
    ///   - redirected: Called with each redirect response (its `url` the hop's, its body empty, its
    ///     `connection` where it came from) and the redirect followed, before the next request is
    ///     sent; with nil for the one past `policy.maximumRedirects`, before `.tooManyRedirects`.
    /// - Returns: The final response; its `url` is the last hop's URL.
    /// - Throws: `HTTPClientError` as `execute(_:to:)`, plus `.tooManyRedirects` (curl 47) when
    ///   `policy.maximumRedirects` is exceeded and `.bodyReadFailed` when a 307/308 needs a
    ///   `.stream` body again (a stream cannot be replayed; use `.data` or `.file`).
    public func execute(
        _ request: HTTPRequest, to destination: ResponseBodyDestination = .memory(limit: nil),
        redirects policy: RedirectPolicy, cookies: (any HTTPCookieJar)? = nil,
        redirected: (@Sendable (_ response: HTTPResponse, _ followed: HTTPRedirect?) -> Void)? = nil
    ) async throws -> HTTPResponse {
        try await onLoop { try await follow(request, to: destination, redirects: policy, cookies: cookies, redirected: redirected) }
    }

    private func follow(
        _ request: HTTPRequest, to destination: ResponseBodyDestination, redirects policy: RedirectPolicy,
        cookies: (any HTTPCookieJar)?,
        redirected: (@Sendable (_ response: HTTPResponse, _ followed: HTTPRedirect?) -> Void)?
    ) async throws -> HTTPResponse {
        var current = request
        var followed = 0
        while true {
            var sent = current
            if let cookies, let value = cookies.cookieHeader(for: current.url) {
                let existing = sent.headers[first: "Cookie"]
                sent.headers.replaceOrAdd(name: "Cookie", value: existing.map { "\($0); \(value)" } ?? value)
            }
            let url = current.url, method = current.method
            let redirectHead = RedirectHead()
            let response: HTTPResponse
            do {
                response = try await perform(
                    sent, to: destination,
                    discardingBodyWhen: { head in
                        guard HTTPRedirect(status: head.status, headers: head.headers, url: url, method: method) != nil else { return false }
                        redirectHead.set(head)
                        return true
                    })
            } catch let error as HTTPClientError where error.kind == .transferFailed || error.kind == .bodyReadFailed {
                // A server may answer a redirect before reading the request body and reset the
                // stream; the redirect head is complete: follow it (Documentation/LibcurlNotes.md #8).
                guard let head = redirectHead.head else { throw error }
                response = HTTPResponse(
                    status: head.status, headers: head.headers, version: head.version, reasonPhrase: head.reasonPhrase, body: Data(),
                    connection: ConnectionReport(
                        remoteAddress: nil, remotePort: nil, resolution: nil,
                        reusedConnection: false, tls: nil),
                    url: url)
            }
            cookies?.storeCookies(response.headers[all: "Set-Cookie"], from: url)
            guard let redirect = HTTPRedirect(status: response.status, headers: response.headers, url: url, method: method) else {
                return response
            }
            redirected?(response, followed < policy.maximumRedirects ? redirect : nil)
            guard followed < policy.maximumRedirects else {
                throw HTTPClientError(
                    kind: .tooManyRedirects,
                    message:
                        "stopped after \(followed) redirect\(followed == 1 ? "" : "s"): \(url.redactedString) redirects (\(redirect.status)) to \(redirect.location.redactedString) (the limit is \(policy.maximumRedirects))",
                    url: url, status: redirect.status)
            }
            if redirect.keepsBody, case .stream? = current.body {
                throw HTTPClientError.streamBodyNotReplayable(method: method, url: url, "was redirected (\(redirect.status)) to \(redirect.location.redactedString), which takes the same body")
            }
            followed += 1
            current = redirect.request(after: current)
            if policy.setsReferer { current.headers.replaceOrAdd(name: "Referer", value: HTTPRedirect.referer(for: url)) }
        }
    }
}

/// The head of a redirect whose body was dropped, handed from the transfer thread.
final class RedirectHead: @unchecked Sendable { // `stored` is guarded by `lock`
    private let lock = NSLock()
    private var stored: HTTPResponseHead?

    func set(_ head: HTTPResponseHead) { lock.withLock { stored = head } }
    var head: HTTPResponseHead? { lock.withLock { stored } }
}
