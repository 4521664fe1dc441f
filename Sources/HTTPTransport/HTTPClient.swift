import Foundation
import HTTPDNSCore
import TLSTrust

/// An HTTP/1.1 and HTTP/2 client on libcurl that connects to the addresses its resolver chooses
/// while SNI, `Host` and certificate verification use the URL's host name.
///
/// All clients in a process share one transfer thread (libcurl multi interface). Connections and
/// TLS sessions are pooled per trust policy and reused only for the same host, port and address
/// set. A client is cheap; create one per configuration.
///
/// ```swift
/// let client = HTTPClient(resolver: resolver)
/// let response = try await client.execute(HTTPRequest(url: URL(string: "https://example.com/")!))
/// ```
public final class HTTPClient: Sendable {
    /// Client-wide settings; requests may override some of them.
    public struct Configuration: Sendable {
        /// What server certificates must chain to. Default: system roots.
        public var trust: TrustPolicy
        /// Connect and total time limits, in seconds. Default: 10 s to connect, no total limit.
        public var timeouts: Timeouts
        /// HTTP version preference. Default: HTTP/2 by ALPN, else HTTP/1.1.
        public var httpVersion: HTTPVersionPreference
        /// `User-Agent` sent unless a request sets one; nil sends none.
        public var userAgent: String?
        /// Advertise every content coding libcurl supports and decode responses
        /// (CURLOPT_ACCEPT_ENCODING ""). Default: true.
        public var decompressesResponses: Bool

        public init(
            trust: TrustPolicy = .system,
            timeouts: Timeouts = Timeouts(),
            httpVersion: HTTPVersionPreference = .http2,
            userAgent: String? = "httpdns/1.0",
            decompressesResponses: Bool = true
        ) {
            self.trust = trust
            self.timeouts = timeouts
            self.httpVersion = httpVersion
            self.userAgent = userAgent
            self.decompressesResponses = decompressesResponses
        }
    }

    public let configuration: Configuration
    /// Turns host names into addresses for every request without `connectTo`.
    public let resolver: any HostResolving
    private let pool: PoolDescriptor
    private let engine: TransferEngine

    /// - Parameters:
    ///   - configuration: Trust, timeouts, versions.
    ///   - resolver: Where addresses come from (a DoH resolver, the system resolver, static entries).
    public init(configuration: Configuration = Configuration(), resolver: any HostResolving) {
        self.configuration = configuration
        self.resolver = resolver
        self.engine = .shared
        self.pool = engine.pool(for: configuration.trust, version: configuration.httpVersion)
    }

    /// Sends `request` and returns the final response.
    ///
    /// The host is resolved by `resolver` (unless `request.connectTo` is set or the host is an IP
    /// literal), and the connection goes to those addresses in order with Happy Eyeballs between
    /// families, keeping SNI, `Host` and verification on the name. Redirects are not followed.
    ///
    /// - Parameters:
    ///   - request: What to send.
    ///   - destination: Where the body goes. Default: collected in memory without limit.
    /// - Returns: The response; `body` is filled only for `.memory`.
    /// - Throws: `HTTPClientError` (its `kind` tells resolution, connection, TLS, verification,
    ///   timeout and I/O failures apart), or `CancellationError` when the task is cancelled, which
    ///   stops the transfer.
    public func execute(_ request: HTTPRequest, to destination: ResponseBodyDestination = .memory(limit: nil)) async throws -> HTTPResponse {
        try await perform(request, to: destination, discardingBodyWhen: nil)
    }

    /// One request without redirects; `discardsBody` (see `Transfer.discardsBody`) lets the
    /// redirect loop drop the bodies of redirects it will follow.
    func perform(_ request: HTTPRequest, to destination: ResponseBodyDestination,
                 discardingBodyWhen discardsBody: (@Sendable (HTTPResponseHead) -> Bool)?) async throws -> HTTPResponse {
        let target = try RequestTarget(url: request.url)
        var resolution: HostResolution?
        var addresses = request.connectTo
        if addresses == nil, !target.isIPLiteral {
            do {
                let resolved = try await resolver.resolve(host: target.host, port: target.port)
                resolution = resolved
                addresses = resolved.addresses
            } catch let error as ResolutionError {
                throw HTTPClientError(kind: .couldNotResolve, message: error.description, url: request.url, resolutionError: error)
            }
        }
        try Task.checkCancellation()
        let engine = self.engine
        let version = request.httpVersion ?? configuration.httpVersion
        let pool = request.trust == nil && version == configuration.httpVersion
            ? self.pool : engine.pool(for: request.trust ?? configuration.trust, version: version)
        let transfer = try Transfer(request: request, target: target, addresses: addresses, resolution: resolution,
                                    configuration: configuration, destination: destination, pool: pool)
        transfer.discardsBody = discardsBody
        var response = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.continuation = continuation
                engine.submit(transfer)
            }
        } onCancel: {
            engine.cancel(transfer)
        }
        response.url = request.url
        return response
    }
}
