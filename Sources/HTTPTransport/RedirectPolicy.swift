/// Whether and how far `HTTPClient.execute(_:to:redirects:cookies:)` follows redirects.
public struct RedirectPolicy: Sendable, Hashable {
    /// The most redirects followed for one request; one more fails with `.tooManyRedirects`.
    /// 0 follows none and fails on the first redirect (curl's `--max-redirs 0`).
    public var maximumRedirects: Int

    /// - Parameter maximumRedirects: Default 20, as Foundation's URLSession on Apple platforms.
    public init(maximumRedirects: Int = 20) {
        self.maximumRedirects = max(0, maximumRedirects)
    }

    /// Follow up to 20 redirects.
    public static let follow = RedirectPolicy()
}
