import Foundation
import HTTPDNSCore
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Synchronization
import HTTPDNS

extension HTTPDNSURLProtocol {
    /// What every `HTTPDNSURLProtocol` in the process uses; set once with `configure(_:)`.
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

    private static let storage = LockedValue<Configuration?>(nil)

    /// Sets the configuration for every request taken from now on (requests in flight keep theirs).
    public static func configure(_ configuration: Configuration) {
        storage.withLock { $0 = configuration }
    }

    /// The current configuration; nil until `configure(_:)`.
    public static var configuration: Configuration? { storage.withLock { $0 } }
}
