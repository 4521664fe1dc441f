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
    var serveStale: HostResolver.Configuration.ServeStale?
    /// What in the configuration was not usable as given, and what is used instead (for the observer).
    var problems: [String] = []

    init(_ configuration: HostResolver.Configuration) {
        minimumTTL = configuration.minimumTTL
        maximumTTL = configuration.maximumTTL
        negativeCacheTTLCap = configuration.negativeCacheTTLCap
        maximumStaleness = configuration.maximumStaleness
        refreshAheadWindow = configuration.refreshAheadWindow
        serveStale = configuration.serveStale.map { Self.checked($0, problems: &problems) }
    }

    /// `settings` with each time that is not a number of seconds, 0 or more, replaced as
    /// `ServeStale` documents: a negative one by 0, NaN by RFC 8767's value; infinity is kept for the
    /// client response timer (no timer) and the maximum stale age (no limit), and replaced by RFC
    /// 8767's value for the stale answer TTL and the failure recheck timer (one would never expire,
    /// the other never ask again).
    static func checked(_ settings: HostResolver.Configuration.ServeStale, problems: inout [String]) -> HostResolver.Configuration.ServeStale {
        let rfc = HostResolver.Configuration.ServeStale.rfc8767
        var checked = settings
        func check(_ value: inout TimeInterval, _ name: String, default fallback: TimeInterval, infinityAllowed: Bool) {
            let valid = value >= 0 && (value.isFinite || infinityAllowed)
            guard !valid else { return }
            let used = value < 0 ? 0 : fallback
            let accepted = infinityAllowed ? "0 or more, or .infinity" : "0 or more"
            let why = used == 0 ? "" : ", RFC 8767's value,"
            problems.append("serveStale.\(name) is \(value), not a number of seconds (\(accepted)); \(HostResolver.seconds(used)) s\(why) is used")
            value = used
        }
        check(&checked.clientResponseTimeout, "clientResponseTimeout", default: rfc.clientResponseTimeout, infinityAllowed: true)
        check(&checked.staleAnswerTTL, "staleAnswerTTL", default: rfc.staleAnswerTTL, infinityAllowed: false)
        check(&checked.maximumStaleAge, "maximumStaleAge", default: rfc.maximumStaleAge, infinityAllowed: true)
        check(&checked.failureRecheckInterval, "failureRecheckInterval", default: rfc.failureRecheckInterval, infinityAllowed: false)
        return checked
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
