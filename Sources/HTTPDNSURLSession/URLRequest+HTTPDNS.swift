import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import HTTPDNS

extension URLRequest {
    /// The transport request for this request with `body`.
    ///
    /// Header names keep their case and compare case-insensitively; `Content-Length` is left out
    /// (the body's own length is sent; for `httpBodyStream` the caller's value is its length).
    /// `Transfer-Encoding` goes to `HTTPClient`, which checks it as for any request: `chunked`
    /// is honoured as there (chunked over HTTP/1.1), anything else, or the field without a body, fails with
    /// `.invalidRequest` (see `HTTPRequest.headers`). `additionalHeaders` (the session's
    /// `httpAdditionalHeaders`) fill in names the request does not set.
    /// `timeoutInterval`, or `sessionStallTimeout` (the session's `timeoutIntervalForRequest`) when
    /// shorter, limits connecting (resolving the name included) and stalls; `resourceTimeout` the
    /// whole request.
    func httpdnsRequest(
        body: HTTPRequestBody?, additionalHeaders: [AnyHashable: Any]?,
        sessionStallTimeout: Double? = nil, resourceTimeout: Double?
    ) -> HTTPRequest {
        var headers = HTTPHeaders()
        for (name, value) in (allHTTPHeaderFields ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard !name.caseInsensitiveEquals("Content-Length") else { continue }
            headers.add(name: name, value: value)
        }
        for (key, value) in additionalHeaders ?? [:] {
            guard let name = key as? String, !headers.contains(name: name), !name.caseInsensitiveEquals("Content-Length") else { continue }
            headers.add(name: name, value: value as? String ?? "\(value)")
        }
        var request = HTTPRequest(url: url!, method: httpMethod ?? "GET", headers: headers, body: body)
        // Past `Timeouts.maximum` (24.8 days) an interval is as good as none.
        let stall = [timeoutInterval, sessionStallTimeout ?? .infinity].filter { $0 > 0 && $0 <= Timeouts.maximum }.min()
        request.timeouts = Timeouts(connect: stall, total: resourceTimeout, idle: stall)
        return request
    }

    /// The request for the hop after `redirect` (see `HTTPRedirect`): new URL and method, the body
    /// dropped unless kept, fields as `HTTPRedirect.headers(after:from:)` leaves them.
    func redirected(by redirect: HTTPRedirect) -> URLRequest {
        var next = self
        next.url = redirect.location
        next.httpMethod = redirect.method
        if !redirect.keepsBody {
            next.httpBody = nil
            next.httpBodyStream = nil
        }
        var fields = HTTPHeaders()
        for (name, value) in allHTTPHeaderFields ?? [:] { fields.add(name: name, value: value) }
        var kept: [String: String] = [:]
        for field in redirect.headers(after: fields, from: url!) { kept[field.name] = field.value }
        next.allHTTPHeaderFields = kept
        return next
    }

    /// This request with `Cookie` from `storage` for its URL (RFC 6265 matching), replacing any.
    func withCookies(from storage: HTTPCookieStorage, replacing: Bool) -> URLRequest {
        guard replacing || value(forHTTPHeaderField: "Cookie") == nil else { return self }
        var request = self
        request.setValue(url.flatMap { HTTPCookieStorageJar(storage).cookieHeader(for: $0) }, forHTTPHeaderField: "Cookie")
        return request
    }

    /// The first request's `Cookie`. swift-corelibs-foundation has already set one from the
    /// storage, matching the host only (every path, `Secure` over http too): that one is redone
    /// with RFC 6265 matching. A `Cookie` the caller set (the session overwrites it only when it
    /// has cookies for the host) is kept; without a session one is added when there is none.
    /// The first request without the `Cookie` swift-corelibs-foundation set from `storage` (the
    /// session's) although the request's `httpShouldHandleCookies` is false, as Apple's URLSession
    /// sends none then. A `Cookie` the caller set is kept (unless it is exactly what the storage
    /// holds for the host, which cannot be told apart).
    func withoutSessionCookies(from storage: HTTPCookieStorage) -> URLRequest {
        guard let url, let existing = value(forHTTPHeaderField: "Cookie"),
            existing == HTTPCookie.requestHeaderFields(with: storage.cookies(for: url) ?? [])["Cookie"]
        else { return self }
        var request = self
        request.setValue(nil, forHTTPHeaderField: "Cookie")
        return request
    }

    func withFirstHopCookies(from storage: HTTPCookieStorage, sessionFound: Bool) -> URLRequest {
        guard let url, let existing = value(forHTTPHeaderField: "Cookie") else {
            return withCookies(from: storage, replacing: true)
        }
        let hostOnly = HTTPCookie.requestHeaderFields(with: storage.cookies(for: url) ?? [])["Cookie"]
        return sessionFound && existing == hostOnly ? withCookies(from: storage, replacing: true) : self
    }
}

extension HTTPURLResponse {
    /// The Foundation response for `head`, received for `url` (the logical URL). Repeated fields
    /// are joined with ", " under the first spelling of their name (RFC 9110 §5.3). On Linux a
    /// 401's `WWW-Authenticate` is named `X-HTTPDNS-WWW-Authenticate` (see
    /// `httpdnsAuthenticate`).
    static func httpdns(url: URL, head: HTTPResponseHead) -> HTTPURLResponse {
        var fields: [String: String] = [:]
        var spelling: [String: String] = [:]
        for field in head.headers {
            #if canImport(FoundationNetworking)
                let isChallenge = head.status == 401 && field.name.caseInsensitiveEquals("WWW-Authenticate")
                let field = isChallenge ? HTTPHeaders.Field(name: deliveredChallengeField, value: field.value) : field
            #endif
            let key = field.name.lowercased()
            if let name = spelling[key] {
                fields[name] = fields[name].map { "\($0), \(field.value)" } ?? field.value
            } else {
                spelling[key] = field.name
                fields[field.name] = field.value
            }
        }
        let version = head.version == .unknown ? nil : head.version.rawValue
        return HTTPURLResponse(url: url, statusCode: head.status, httpVersion: version, headerFields: fields)!
    }

    #if canImport(FoundationNetworking)
        /// swift-corelibs-foundation answers every 401 that carries `WWW-Authenticate` itself when
        /// the task completes: it sends the request again through its own stack (system DNS, not
        /// IP-direct) or, without a credential, never completes the task
        /// (swift-corelibs-foundation#5456). The protocol has answered the Basic challenge already,
        /// so the field reaches the task under this name.
        static let deliveredChallengeField = "X-HTTPDNS-WWW-Authenticate"
    #endif

    /// A 401's `WWW-Authenticate` value (RFC 9110 §11.6.1), read the same way on every platform.
    /// On Linux, a response loaded by `HTTPDNSURLProtocol` carries it as
    /// `X-HTTPDNS-WWW-Authenticate`: swift-corelibs-foundation would otherwise answer the challenge
    /// again, through its own stack (system DNS, not IP-direct), or leave the task running for ever
    /// (swift-corelibs-foundation#5456). Elsewhere, and for responses of other stacks, it is
    /// `value(forHTTPHeaderField: "WWW-Authenticate")`.
    public var httpdnsAuthenticate: String? {
        #if canImport(FoundationNetworking)
            if let delivered = value(forHTTPHeaderField: Self.deliveredChallengeField) { return delivered }
        #endif
        return value(forHTTPHeaderField: "WWW-Authenticate")
    }
}

extension String {
    /// ASCII case-insensitive equality, as field names compare.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        lowercased() == other.lowercased()
    }
}
