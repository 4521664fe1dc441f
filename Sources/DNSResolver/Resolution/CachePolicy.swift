import Foundation
import HTTPDNSCore

/// What the resolver keeps and what it serves, as pure functions of its configuration and the time
/// left on an entry: TTL clamping (RFC 1035 §3.2.1 TTL 0, RFC 2308 §5 negative TTLs), refresh-ahead,
/// stale reuse, and RFC 8767 serve-stale.
struct CachePolicy: Sendable {
    var minimumTTL: TimeInterval
    var maximumTTL: TimeInterval
    var negativeCacheTTLCap: TimeInterval
    var maximumStaleness: TimeInterval?
    var refreshAheadWindow: TimeInterval?
    /// As configured: `HostResolver.init` refused any time it does not take.
    var serveStale: HostResolver.Configuration.ServeStale?

    init(_ configuration: HostResolver.Configuration) {
        minimumTTL = configuration.minimumTTL
        maximumTTL = configuration.maximumTTL
        negativeCacheTTLCap = configuration.negativeCacheTTLCap
        maximumStaleness = configuration.maximumStaleness
        refreshAheadWindow = configuration.refreshAheadWindow
        serveStale = configuration.serveStale
    }

    /// How long past expiry, in seconds, an address entry stays usable in some way (nil: not at all).
    var staleRetention: TimeInterval? {
        switch (maximumStaleness, serveStale?.maximumStaleAge) {
        case (let reuse?, let serve?): max(reuse, serve)
        case (let reuse?, nil): reuse
        case (nil, let serve?): serve
        case (nil, nil): nil
        }
    }

    /// How a cached address entry with `remaining` seconds to live (negative: expired) is used.
    enum Use: Equatable {
        /// Fresh: answered from the cache; `refresh` when within the refresh-ahead window.
        case fresh(refresh: Bool)
        /// Stale reuse (`maximumStaleness`): answered at once while a refresh runs.
        case staleNow
        /// Serve-stale (RFC 8767): a fresh lookup is tried first; this answer is served if it fails
        /// or has not answered within the client response timer.
        case staleIfNoAnswer
        /// Too old to use: a lookup as for a miss.
        case expired
    }

    func use(remaining: TimeInterval) -> Use {
        if remaining > 0 {
            return .fresh(refresh: refreshAheadWindow.map { remaining <= $0 } ?? false)
        }
        if let maximumStaleness, -remaining <= maximumStaleness { return .staleNow }
        if let serveStale, -remaining <= serveStale.maximumStaleAge { return .staleIfNoAnswer }
        return .expired
    }

    /// A provider's answer as the lookup's result and what to cache: positive TTLs clamped to
    /// `minimumTTL...maximumTTL` (TTL 0 means use once, RFC 1035 §3.2.1, and is not cached), negative
    /// TTLs capped at `negativeCacheTTLCap` (none without an SOA, RFC 2308 §5).
    func outcome(of answer: ProviderAnswer, name: String, provider: any ResolutionProvider) -> LookupOutcome {
        switch answer {
        case .addresses(let addresses, let ttl):
            let kept = ttl <= 0 ? 0 : min(max(ttl, minimumTTL), maximumTTL)
            let resolution = HostResolution(host: name, addresses: addresses, ttl: kept, source: provider.source, provider: provider.kind)
            return LookupOutcome(result: .success(resolution), cacheTTL: kept, cacheValue: .addresses(addresses))
        case .nameNotFound(let negativeTTL):
            let kept = negativeTTL.map { min($0, negativeCacheTTLCap) }
            return LookupOutcome(result: .failure(.nameNotFound(host: name, negativeTTL: kept)), cacheTTL: kept, cacheValue: .nameNotFound)
        case .noAddresses(let negativeTTL):
            let kept = negativeTTL.map { min($0, negativeCacheTTLCap) }
            return LookupOutcome(result: .failure(.noAddresses(host: name, negativeTTL: kept)), cacheTTL: kept, cacheValue: .noAddresses)
        }
    }

    /// Whether a lookup that failed with `error` may be answered with stale data (RFC 8767 §4: when
    /// the resolvers cannot be reached; NXDOMAIN and NODATA are answers, not failures).
    static func servesStale(after error: any Error) -> Bool {
        if case ResolutionError.resolverUnavailable = error { return true }
        return false
    }
}
