/// Whether and how far `HTTPClient.execute(_:to:redirects:cookies:)` follows redirects.
public struct RedirectPolicy: Sendable, Hashable {
    /// The most redirects followed for one request; one more fails with `.tooManyRedirects`.
    /// 0 follows none and fails on the first redirect (curl's `--max-redirs 0`).
    public var maximumRedirects: Int
    /// Whether each request after a redirect carries `Referer`: the URL it was redirected from,
    /// without credentials or fragment (RFC 9110 §10.1.3), replacing the request's own, as
    /// CURLOPT_AUTOREFERER (curl's `-e ';auto'`). Like curl, and unlike browsers, it is sent from
    /// https to http too. Default false: the request's fields go on unchanged.
    public var setsReferer: Bool

    /// - Parameters:
    ///   - maximumRedirects: Default 20, as Foundation's URLSession on Apple platforms.
    ///   - setsReferer: See `setsReferer`.
    public init(maximumRedirects: Int = 20, setsReferer: Bool = false) {
        self.maximumRedirects = max(0, maximumRedirects)
        self.setsReferer = setsReferer
    }

    /// Follow up to 20 redirects.
    public static let follow = RedirectPolicy()
}
