import Foundation
import HTTPDNSCore
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Synchronization
import HTTPDNS

extension HTTPDNSURLProtocol {
    /// What a protocol class uses for the requests it takes: set with `configure(_:)`, or given
    /// to `makeClass(for:)`.
    public struct Configuration: Sendable {
        /// Sends the requests: its resolver, trust policy, HTTP version preference and
        /// `User-Agent` apply to every request (its timeouts do not: each request's
        /// `timeoutInterval` does).
        public var client: HTTPClient
        /// The most redirects followed for one request. Default 20.
        public var maximumRedirects: Int
        /// Which requests to take; those it returns false for are left to the other protocol
        /// classes of the session (Foundation's own stack, with the system resolver). Default: all.
        ///
        /// ```swift
        /// configuration.handles = { request in request.url?.host != "localhost" }
        /// ```
        public var handles: @Sendable (URLRequest) -> Bool
        /// Cookies for a task whose session cannot be found (see `SessionContext`): nil handles
        /// none. Default: `HTTPCookieStorage.shared`, the storage of `URLSessionConfiguration.default`.
        public var fallbackCookieStorage: HTTPCookieStorage?
        /// Where download tasks write their bodies (one file each, created for the task, readable
        /// only by this user) until `urlSession(_:downloadTask:didFinishDownloadingTo:)` or the
        /// completion handler takes them. nil, the default: the temporary directory
        /// (`FileManager.default.temporaryDirectory`, `TMPDIR`) when each download starts. A
        /// directory on the destination's file system lets the file be moved without a copy.
        public var downloadsDirectory: URL?

        /// - Parameters:
        ///   - client: The IP-direct client (resolver and trust policy set there).
        ///   - maximumRedirects: Default 20.
        ///   - handles: Which requests to take. Default: every http/https request.
        public init(
            client: HTTPClient, maximumRedirects: Int = 20,
            handles: @escaping @Sendable (URLRequest) -> Bool = { _ in true }
        ) {
            self.client = client
            self.maximumRedirects = max(0, maximumRedirects)
            self.handles = handles
            self.fallbackCookieStorage = .shared
        }

        /// A client over `resolver` that trusts `trust`, HTTP/2 by ALPN.
        public init(resolver: any HostResolving, trust: TrustPolicy = .system, maximumRedirects: Int = 20) {
            // Only the trust is set: the default durations are valid.
            self.init(client: HTTPClient(checkedConfiguration: .init(trust: trust), resolver: resolver), maximumRedirects: maximumRedirects)
        }
    }

    /// The configuration of each class that has its own, by class: `HTTPDNSURLProtocol` itself
    /// (the process default), subclasses that called `configure(_:)`, and `makeClass(for:)`'s.
    private static let storage = LockedValue<[ObjectIdentifier: Configuration]>([:])
    /// How many classes `makeClass(for:)` has made; the next one's index.
    private static let madeClasses = LockedValue(0)

    /// Sets the configuration of the class it is called on for every request taken from now on
    /// (requests in flight keep theirs).
    ///
    /// `HTTPDNSURLProtocol.configure(_:)` sets the process default, which every class without a
    /// configuration of its own uses. On a subclass, or a class from `makeClass(for:)`, it sets
    /// that class's own, so that sessions listing different classes use different clients.
    public static func configure(_ configuration: Configuration) {
        let key = ObjectIdentifier(self)
        storage.withLock { $0[key] = configuration }
    }

    /// The configuration of the class it is called on: its own, else the process default
    /// (`HTTPDNSURLProtocol.configure(_:)`); nil when neither was set.
    public static var configuration: Configuration? {
        let own = ObjectIdentifier(self), fallback = ObjectIdentifier(HTTPDNSURLProtocol.self)
        return storage.withLock { $0[own] ?? $0[fallback] }
    }

    /// A protocol class of its own that uses `configuration`, for sessions that need another client
    /// (trust policy, client certificate, resolver) than the process default, side by side in one
    /// process: list it in the session configuration's `protocolClasses` instead of
    /// `HTTPDNSURLProtocol.self`. It works wherever a `URLSessionConfiguration` goes, Alamofire's
    /// `Session(configuration:)` included.
    ///
    /// ```swift
    /// let pinned = HTTPDNSURLProtocol.makeClass(for: .init(client: pinnedClient))
    /// let configuration = URLSessionConfiguration.default
    /// configuration.protocolClasses = [pinned]
    /// let session = URLSession(configuration: configuration)
    /// ```
    ///
    /// Each call makes a new class, which lives as long as the process (Swift cannot unload a
    /// class), with its configuration: make one per configuration and keep it, rather than one
    /// per session. `configure(_:)` on the class replaces its configuration.
    /// - Parameter configuration: What the class's requests use.
    /// - Returns: A subclass of `HTTPDNSURLProtocol` that no other call returns.
    public static func makeClass(for configuration: Configuration) -> HTTPDNSURLProtocol.Type {
        let index = madeClasses.withLock { count in
            defer { count += 1 }
            return count
        }
        let made = ConfiguredURLProtocol<IndexEnd>.forIndex(index)
        made.configure(configuration)
        return made
    }
}
