import DNSWire
import Foundation
import HTTPDNSCore

/// Receives what a `HostResolver` does, for logging and metrics. Every method has a no-op default, so
/// an observer implements only what it needs. Called synchronously on the resolving task: return quickly.
public protocol ResolverObserver: Sendable {
    /// An answer within its TTL came from the cache (`resolution.source == .cache`).
    func cacheHit(host: String, resolution: HostResolution)
    /// A negative answer within its negative TTL (RFC 2308) came from the cache: `error` is
    /// `.nameNotFound` or `.noAddresses`, thrown to the caller without asking anyone.
    func negativeCacheHit(host: String, error: ResolutionError)
    /// Nothing usable was cached; a provider will be asked.
    func cacheMiss(host: String)
    /// An expired answer was served (stale reuse) while a refresh runs in the background.
    func staleAnswerServed(host: String, resolution: HostResolution, expiredFor: TimeInterval)
    /// An expired answer was served, `expiredFor` seconds past its expiry, for `reason`. Called for
    /// every stale answer; the default calls `staleAnswerServed(host:resolution:expiredFor:)`.
    func staleAnswerServed(host: String, resolution: HostResolution, expiredFor: TimeInterval, reason: StaleAnswerReason)
    /// A cached answer close to expiry was used and a refresh was started (refresh-ahead).
    func refreshStarted(host: String, reason: RefreshReason)
    /// A provider answered (addresses or a DNS negative), after `latency` seconds.
    func providerAnswered(host: String, provider: String, endpoint: URL, latency: TimeInterval, answer: ProviderAnswer)
    /// A provider gave no answer; the next is tried.
    func endpointFailed(host: String, provider: String, endpoint: URL, reason: String, latency: TimeInterval)
    /// An endpoint was skipped: it failed `consecutiveFailures` times in a row and is in back-off until
    /// `retryAfter` seconds on the resolver's clock.
    func endpointSkipped(host: String, endpoint: URL, consecutiveFailures: Int, retryAfter: TimeInterval)
    /// Every provider failed; the system resolver is asked.
    func fellBackToSystemResolver(host: String, reasons: [String])
    /// The name bypasses the providers (localhost, bypass list) and goes to the system resolver.
    func bypassed(host: String)
    /// Something worth a warning happened that is not an error of a lookup. Cache-file problems come
    /// through `cacheFileWarning(file:message:)`, which passes them here by default; a configuration
    /// value the resolver does not take is never a warning: `HostResolver.init` throws.
    func warning(_ message: String)
    /// The cache file (`Configuration.persistentCacheFile`, here `file`) could not be used as asked:
    /// unusable, read-only, locked past the busy timeout, rows skipped, migrated from JSON.
    /// `message` is a sentence naming the file. The default passes it to `warning(_:)`.
    func cacheFileWarning(file: URL, message: String)
    /// The HTTPS (or SVCB) records of `host` could not be had and are left out of its resolution (the
    /// addresses stand): `error` says why (a provider failure, a malformed record, an alias loop).
    func serviceBindingsDropped(host: String, error: ServiceBindingError)
    /// DNSSEC validation (`Configuration.dnssec`) judged a provider's answer for `host`; told again
    /// for a negative answer (NXDOMAIN, NODATA) served from the cache, which has no `HostResolution`
    /// to carry it (a positive hit carries it in `HostResolution.dnssec`).
    func dnssecValidated(host: String, status: DNSSECStatus)
    /// A provider answered an SVCB or HTTPS query for `host` (`type`) after `latency` seconds, with
    /// `count` records (AliasMode included; 0: none of the type, or NXDOMAIN).
    func serviceBindingsAnswered(host: String, type: DNSRecordType, provider: String, endpoint: URL, latency: TimeInterval, count: Int)
    /// A provider failed an SVCB or HTTPS query for `host` (`type`); the next that carries them is tried.
    func serviceBindingsFailed(host: String, type: DNSRecordType, provider: String, endpoint: URL, reason: String)
    /// The network changed (`HostResolver.networkChanged(_:)`): the families were probed again
    /// (`families`) and `policy` is about to be applied to the cache.
    func networkChanged(_ change: NetworkChange, families: AddressFamilies, policy: NetworkChangePolicy)
}

/// Why a background refresh started.
public enum RefreshReason: String, Sendable {
    /// A stale answer was served.
    case stale
    /// A fresh answer was used close to its expiry.
    case refreshAhead = "refresh-ahead"
    /// Nothing was cached and the caller did not wait (`resolveWithoutWaiting`).
    case miss
}

/// Why a stale answer was served.
public enum StaleAnswerReason: String, Sendable {
    /// Stale reuse (`Configuration.maximumStaleness`): served at once.
    case staleReuse = "stale-reuse"
    /// RFC 8767 client response timer: the fresh lookup had not answered in time; it goes on.
    case clientResponseTimeout = "client-response-timeout"
    /// RFC 8767: the fresh lookup reached no resolver.
    case lookupFailed = "lookup-failed"
    /// RFC 8767 failure recheck timer: a recent lookup failed, so none is made yet.
    case failureRecheck = "failure-recheck"
    /// A non-blocking lookup (`resolveWithoutWaiting`) found only a stale answer; a lookup started.
    case withoutWaiting = "without-waiting"
}

extension ResolverObserver {
    public func staleAnswerServed(host: String, resolution: HostResolution, expiredFor: TimeInterval, reason: StaleAnswerReason) {
        staleAnswerServed(host: host, resolution: resolution, expiredFor: expiredFor)
    }
    public func cacheHit(host: String, resolution: HostResolution) {}
    public func negativeCacheHit(host: String, error: ResolutionError) {}
    public func cacheMiss(host: String) {}
    public func staleAnswerServed(host: String, resolution: HostResolution, expiredFor: TimeInterval) {}
    public func refreshStarted(host: String, reason: RefreshReason) {}
    public func providerAnswered(host: String, provider: String, endpoint: URL, latency: TimeInterval, answer: ProviderAnswer) {}
    public func endpointFailed(host: String, provider: String, endpoint: URL, reason: String, latency: TimeInterval) {}
    public func endpointSkipped(host: String, endpoint: URL, consecutiveFailures: Int, retryAfter: TimeInterval) {}
    public func fellBackToSystemResolver(host: String, reasons: [String]) {}
    public func bypassed(host: String) {}
    public func warning(_ message: String) {}
    public func cacheFileWarning(file: URL, message: String) { warning(message) }
    public func serviceBindingsDropped(host: String, error: ServiceBindingError) {}
    public func dnssecValidated(host: String, status: DNSSECStatus) {}
    public func serviceBindingsAnswered(host: String, type: DNSRecordType, provider: String, endpoint: URL, latency: TimeInterval, count: Int) {}
    public func serviceBindingsFailed(host: String, type: DNSRecordType, provider: String, endpoint: URL, reason: String) {}
    public func networkChanged(_ change: NetworkChange, families: AddressFamilies, policy: NetworkChangePolicy) {}
}
