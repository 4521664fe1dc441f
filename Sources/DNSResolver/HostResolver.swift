import Foundation
import HTTPDNSCore
import Synchronization

/// Resolves host names through trusted providers (RFC 8484 DoH, JSON DoH, HTTPDNS service APIs) with
/// a TTL cache, provider failover with health tracking, and an optional fallback to the system resolver.
///
/// Order of a lookup: IP literal (returned as is, source `.literal`) → static entry for host and port
/// (`.staticMapping`) → bypass (`localhost`, `bypassList`: system resolver) → cache (`.cache`, with the
/// remaining TTL; stale when allowed) → providers in order, skipping those in back-off → system resolver
/// (`.system`) if `fallbackToSystemResolver`.
///
/// - Positive answers are cached for their TTL clamped to `minimumTTL...maximumTTL`; TTL 0 answers are
///   returned but not cached. NXDOMAIN and NODATA are cached for their negative TTL capped at
///   `negativeCacheTTLCap` and rethrown from the cache. System-resolver answers are not cached.
/// - NXDOMAIN from a provider is final: no other provider and no system resolver is asked. Anything
///   that is not an answer (HTTP 429/5xx, timeouts, garbage) fails over to the next provider.
/// - Concurrent lookups of one name share one query. Cancelling a waiting lookup makes it throw
///   `CancellationError` at once; the shared query carries on for the others (and fills the cache).
/// - With `serveStale` (RFC 8767), an expired answer is served when the fresh lookup fails or is slow.
///
/// A facade over its parts: `ResolutionCache` (answers in memory), `CachePolicy` (what is kept and
/// served), `LookupCoalescer` (one query per name), `ProviderPool` (failover and health) and
/// `ResolverCacheStore` (the SQLite cache file).
public final class HostResolver: HostResolving {
    /// How this resolver behaves; fixed at creation.
    public let configuration: Configuration

    let transport: any DoHTransport
    let systemResolver: any HostResolving
    let clock: any ResolverClock
    /// Whether `clock` is the system's `MonotonicClock`, read directly on the hit path rather than
    /// through the protocol.
    private let clockIsMonotonic: Bool
    let staticResolver: StaticHostResolver
    let hasStaticEntries: Bool
    /// `bypassList` normalized once: names that match exactly, and suffixes (with their leading dot).
    private let bypassNames: [[UInt8]]
    private let bypassSuffixes: [[UInt8]]
    /// Answers; its own locks, so that a cache hit takes no other. Changes other than a hit's are
    /// made under the coalescer's lock too, ordered with the flights.
    let cache: ResolutionCache
    let policy: CachePolicy
    /// `policy.staleRetention`, read on every hit.
    private let staleRetention: TimeInterval?
    let providers: ProviderPool
    let coalescer = LookupCoalescer()
    /// The cache file, when one is configured and usable.
    let store: ResolverCacheStore?
    /// RFC 8767 failure recheck: until when, on the resolver's clock, a name's stale answer is served
    /// without a new lookup (after one failed).
    let staleHolds = LockedValue<[ResolutionCache.Key: TimeInterval]>([:])
    /// The pre-resolution of `preResolveHosts` started at creation, if any.
    let preResolution = LockedValue<Task<Void, Never>?>(nil)
    /// SVCB/HTTPS answers and queries (`HostResolver+ServiceBindings.swift`).
    let serviceBindingState = LockedValue(ServiceBindingState())
    /// The families `reprobeFamilies()` last found, used for `.auto` instead of a probe per lookup;
    /// nil until it is first called (a network watcher calls it).
    let probedFamilies = LockedValue<AddressFamilies?>(nil)
    /// Whether `configuration.nat64` is on, read on every lookup.
    let synthesizesNAT64: Bool
    /// The RFC 7050 discovery of the NAT64 prefix, once started (`HostResolver+NAT64.swift`).
    let nat64Discovery = LockedValue(NAT64DiscoveryState())
    /// The re-resolution the last network change started (`HostResolver+NetworkChange.swift`).
    let networkReresolution = LockedValue<Task<Void, Never>?>(nil)
    /// The DNSSEC chain and its cache, when `configuration.dnssec` validates.
    let dnssecChain: DNSSECChain?

    /// - Parameters:
    ///   - configuration: Providers, families, timeouts, fallback, static entries, cache policy.
    ///   - transport: The HTTPS client provider requests go through.
    ///   - systemResolver: Asked when every provider fails and `fallbackToSystemResolver` is set, for
    ///     bypassed names, and for hijack checks.
    ///   - clock: The time cache expiry, provider back-off and the serve-stale timer are measured on.
    /// - Throws: `InvalidDurationError` naming the first duration of `configuration` that its setting
    ///   does not accept (negative, NaN, infinite, 0 where 0 means nothing; each setting says).
    ///   Nothing is started then: no cache file opened, no name pre-resolved.
    public init(
        configuration: Configuration = .default,
        transport: any DoHTransport,
        systemResolver: any HostResolving = SystemResolver(),
        clock: any ResolverClock = MonotonicClock()
    ) throws(InvalidDurationError) {
        try configuration.checkDurations()
        self.configuration = configuration
        self.synthesizesNAT64 = configuration.nat64 != .off
        self.transport = transport
        self.systemResolver = systemResolver
        self.clock = clock
        self.clockIsMonotonic = clock is MonotonicClock
        self.staticResolver = StaticHostResolver(entries: configuration.staticEntries, fallback: nil)
        self.hasStaticEntries = !configuration.staticEntries.isEmpty
        (bypassNames, bypassSuffixes) = Self.bypassPatterns(configuration.bypassList)
        self.cache = ResolutionCache(capacity: configuration.cacheCapacity)
        self.policy = CachePolicy(configuration)
        self.staleRetention = policy.staleRetention
        self.providers = ProviderPool(configuration: configuration, transport: transport, clock: clock)
        self.dnssecChain = DNSSECChain(configuration, transport: transport)
        let observer = configuration.observer
        let opened = configuration.persistentCacheFile.flatMap { file in
            ResolverCacheStore.open(
                file, busyTimeout: configuration.persistentCacheBusyTimeout,
                maximumAge: configuration.persistentCacheMaximumAge,
                loadLimit: configuration.cacheCapacity
            ) { observer?.cacheFileWarning(file: file, message: $0) }
        }
        self.store = opened?.store
        if let rows = opened?.rows { load(rows) }
        if !configuration.preResolveHosts.isEmpty {
            let hosts = configuration.preResolveHosts
            preResolution.withLock { $0 = Task { _ = await self.preResolve(hosts) } }
        }
    }

    /// Resolves `host` for the configured `families`. See `resolve(host:port:families:)`.
    public func resolve(host: String, port: Int) async throws -> HostResolution {
        if synthesizesNAT64, let prefix = await nat64PrefixForLookup(configuration.families) {
            return Self.synthesized(try await resolveAsAnswered(host: host, port: port, families: .both), in: prefix)
        }
        let immediate = try answerAtOnce(host: host, port: port, families: configuration.families)
        // A cache hit is answered here without entering another async function.
        if case .hit(let resolution, let bindingsKnown) = immediate, isComplete(bindingsKnown: bindingsKnown) { return resolution }
        return try await resolve(immediate, host: host, port: port)
    }

    /// Resolves `host` for a connection to `port`.
    ///
    /// - Parameters:
    ///   - host: A host name (any case, optional trailing dot, Unicode allowed: converted to A-labels)
    ///     or an IP literal (optionally bracketed).
    ///   - port: The port the caller will connect to; only static entries depend on it.
    ///   - families: The address families wanted; cached separately per selection, and an IPv4-only
    ///     or IPv6-only lookup is also answered from a cached both-families answer that has addresses
    ///     of its family (those alone).
    /// - Returns: At least one address, IPv6 before IPv4 for provider answers; `ttl` is the remaining
    ///   lifetime in seconds for provider and cached answers (0 for a stale one, `ServeStale`'s stale
    ///   answer TTL under serve-stale), `nil` otherwise; `provider` and `latency` say who answered and
    ///   how long it took.
    /// - Throws: `ResolutionError.invalidHostName` for a name that is not a valid host name;
    ///   `.nameNotFound` (NXDOMAIN) and `.noAddresses` (NODATA) as answered, live or from the cache,
    ///   with the negative TTL in seconds; `.resolverUnavailable` listing each provider's failure (and the
    ///   system resolver's) when nothing answered; `CancellationError` when the calling task is cancelled
    ///   while waiting.
    ///
    /// With `Configuration.nat64` on, on a network with an IPv6 route and no IPv4 one, both
    /// families are asked and IPv4-only answers come back synthesized in the NAT64 prefix
    /// (`NAT64Synthesis`, `HostResolution.nat64Prefix`); `.ipv4` lookups are left alone.
    public func resolve(host: String, port: Int, families: AddressFamilies) async throws -> HostResolution {
        if synthesizesNAT64, let prefix = await nat64PrefixForLookup(families) {
            return Self.synthesized(try await resolveAsAnswered(host: host, port: port, families: .both), in: prefix)
        }
        return try await resolveAsAnswered(host: host, port: port, families: families)
    }

    /// `resolve(host:port:families:)` without NAT64 synthesis.
    private func resolveAsAnswered(host: String, port: Int, families: AddressFamilies) async throws -> HostResolution {
        let immediate = try answerAtOnce(host: host, port: port, families: families)
        if case .hit(let resolution, let bindingsKnown) = immediate, isComplete(bindingsKnown: bindingsKnown) { return resolution }
        return try await resolve(immediate, host: host, port: port)
    }

    /// Whether a fresh hit is the whole answer: it carried the name's HTTPS answer, or none is asked
    /// for. (A host a DNSSEC policy validates gets none either: `resolve(_:host:port:)` says so.)
    @inline(__always)
    private func isComplete(bindingsKnown: Bool) -> Bool {
        bindingsKnown || !configuration.asksForServiceBindings
    }

    /// The rest of a lookup that `answerAtOnce` began: the HTTPS answer for a hit, the providers or
    /// the system resolver for a miss.
    private func resolve(_ immediate: Immediate, host: String, port: Int) async throws -> HostResolution {
        if asksForServiceBindings(host) { return try await resolveWithServiceBindings(immediate, port: port) }
        return switch immediate {
        case .hit(let resolution, _): resolution
        case .answered(let answer): answer.resolution
        case .bypassed(let name, let families, let started): try await systemLookup(name, port: port, families: families, started: started)
        case .miss(let key, let started, let stale):
            try await providerLookup(key, port: port, started: started, stale: stale).reported(to: configuration.observer)
        }
    }

    /// The answer for `host` when it is known without waiting: an IP literal, a static entry or a
    /// cache hit (a stale one too, within `maximumStaleness`, which starts its refresh), with the
    /// observer told as by `resolve(host:port:)`; nil when the providers or the system resolver
    /// would be asked. Starts nothing on a miss (`resolveWithoutWaiting` does).
    /// - Throws: `ResolutionError.invalidHostName`; a cached `.nameNotFound` or `.noAddresses`.
    public func resolveImmediately(host: String, port: Int) throws -> HostResolution? {
        if synthesizesNAT64, configuration.families != .ipv4, concrete(.auto) == .ipv6 {
            // Unknown until the discovery has ended: the lookup then waits for it.
            guard let known = nat64PrefixIfKnown() else { return nil }
            if let prefix = known {
                return try resolveImmediatelyAsAnswered(host: host, port: port, families: .both).map { Self.synthesized($0, in: prefix) }
            }
        }
        return try resolveImmediatelyAsAnswered(host: host, port: port, families: configuration.families)
    }

    /// `resolveImmediately(host:port:)` without NAT64 synthesis, for `families`.
    private func resolveImmediatelyAsAnswered(host: String, port: Int, families: AddressFamilies) throws -> HostResolution? {
        switch try answerAtOnce(host: host, port: port, families: families) {
        case .hit(var resolution, let bindingsKnown):
            guard !bindingsKnown, asksForServiceBindings(host) else { return resolution }
            resolution.serviceBindingRecords = serviceBindingsForHit(resolution.host)
            return resolution
        case .answered(let answer):
            var resolution = answer.resolution
            guard asksForServiceBindings(host), answer.source == .cache else { return resolution }
            resolution.serviceBindingRecords = serviceBindingsForHit(resolution.host)
            return resolution
        case .bypassed, .miss: return nil
        }
    }

    /// What a lookup can tell before waiting for anything.
    enum Immediate {
        /// A literal, a static entry or a stale cache hit.
        case answered(Answer)
        /// A fresh cache hit, made as it is returned. `bindingsKnown`: the entry carried the name's
        /// HTTPS answer, fresh, and it is set on the resolution (`ResolutionCache.attach`).
        case hit(HostResolution, bindingsKnown: Bool)
        /// The normalized name goes to the system resolver.
        case bypassed(name: String, families: AddressFamilies, started: TimeInterval)
        /// Nothing usable at once is cached: the providers are asked. `stale`: an expired answer that
        /// serve-stale may give if they fail or are slow.
        case miss(ResolutionCache.Key, started: TimeInterval, stale: Answer?)
    }

    /// An answer known at once other than a fresh hit (a literal, a static entry, a stale hit), in
    /// parts: a stale one may yet be served or not, with a TTL decided later.
    struct Answer {
        enum Source { case literal, staticMapping, cache }
        var host: String
        var addresses: [IPAddress]
        var ttl: TimeInterval?
        var source: Source
        var provider: String?
        var latency: TimeInterval?
        var isStale = false
        /// For a stale answer: seconds since it expired.
        var expiredFor: TimeInterval = 0
        /// A cached answer's DNSSEC outcome, when it was validated.
        var dnssec: DNSSECStatus? = nil

        var resolution: HostResolution {
            let source: ResolutionSource =
                switch self.source {
                case .literal: .literal
                case .staticMapping: .staticMapping
                case .cache: .cache
                }
            var resolution = HostResolution(host: host, addresses: addresses, ttl: ttl, source: source, provider: provider, latency: latency, isStale: isStale)
            resolution.dnssec = dnssec
            return resolution
        }
    }

    /// The synchronous part of a lookup, in order: IP literal, static entry, bypass, cache. It runs for
    /// every request, so a hit reads the clock twice in all (expiry, latency) and takes one lock.
    func answerAtOnce(host: String, port: Int, families: AddressFamilies) throws -> Immediate {
        let started = now()
        guard let name = HostName.normalize(host) else { throw ResolutionError.invalidHostName(host) }
        if IPAddress.mayBeLiteral(name), let literal = IPAddress(name) {
            return .answered(Answer(host: name, addresses: [literal], ttl: nil, source: .literal))
        }
        if hasStaticEntries, let addresses = staticResolver.addresses(host: name, port: port) {
            return .answered(Answer(host: name, addresses: addresses, ttl: nil, source: .staticMapping))
        }
        let families = concrete(families)
        if bypasses(name) { return .bypassed(name: name, families: families, started: started) }
        let key = ResolutionCache.Key(name: name, families: families)
        var found = cache.lookup(key, now: started, staleLimit: staleRetention)
        // A flag rather than the key found: a copy of the key costs the hit path a retain and a release.
        var fromBothFamilies = false
        if families != .both, found?.isStale ?? true, let other = bothFamiliesHit(name, families, now: started),
            found == nil || !other.isStale
        {
            (found, fromBothFamilies) = (other, true)
        }
        // Under a validating policy an entry must carry an outcome the policy accepts (one the file
        // loaded was never validated here); checked only when it holds no secure verdict.
        guard let hit = found, dnssecChain == nil || acceptsCached(hit.dnssec, name: name) else {
            return .miss(key, started: started, stale: nil)
        }
        guard case .addresses(let addresses) = hit.value else {
            let result = Self.answer(from: hit, name: name)
            if case .failure(let error) = result {
                if let status = hit.dnssec { configuration.observer?.dnssecValidated(host: name, status: status) }
                configuration.observer?.negativeCacheHit(host: name, error: error)
            }
            return .answered(try result.get())
        }
        // The fresh hit decided here rather than by `policy.use`: this is the path every request takes.
        if !hit.isStale {
            let latency = now() - started
            // Made where it is returned, and again for an observer: one made before the call and
            // returned after it was copied and destroyed again on every hit.
            if let observer = configuration.observer {
                var resolution = HostResolution(host: name, addresses: addresses, ttl: hit.remaining, source: .cache, provider: hit.provider, latency: latency)
                resolution.dnssec = hit.dnssec
                observer.cacheHit(host: name, resolution: resolution)
            }
            if let window = configuration.refreshAheadWindow, hit.remaining <= window {
                refreshInBackground(LookupCoalescer.Key(cacheKey: fromBothFamilies ? ResolutionCache.Key(name: name, families: .both) : key, port: port), reason: .refreshAhead)
            }
            var resolution = HostResolution(host: name, addresses: addresses, ttl: hit.remaining, source: .cache, provider: hit.provider, latency: latency)
            resolution.dnssec = hit.dnssec
            guard let bindings = hit.serviceBindings else { return .hit(resolution, bindingsKnown: false) }
            resolution.serviceBindingRecords = bindings
            return .hit(resolution, bindingsKnown: true)
        }
        var answer = Answer(
            host: name, addresses: addresses, ttl: 0, source: .cache,
            provider: hit.provider, latency: now() - started, isStale: true, dnssec: hit.dnssec)
        switch policy.use(remaining: hit.remaining) {
        case .fresh:
            break
        case .staleNow:
            configuration.observer?.staleAnswerServed(host: name, resolution: answer.resolution, expiredFor: -hit.remaining, reason: .staleReuse)
            refreshInBackground(LookupCoalescer.Key(cacheKey: fromBothFamilies ? ResolutionCache.Key(name: name, families: .both) : key, port: port), reason: .stale)
        case .staleIfNoAnswer:
            answer.ttl = policy.serveStale?.staleAnswerTTL ?? 0
            answer.expiredFor = -hit.remaining
            return .miss(key, started: started, stale: answer)
        case .expired:
            return .miss(key, started: started, stale: nil)
        }
        return .answered(answer)
    }

    /// For an IPv4-only or IPv6-only lookup that found nothing fresh: the name's both-families entry,
    /// its addresses of `family` alone (an A or AAAA query would have answered them, with the same
    /// TTL or less); nil when it holds none of them (the other family's query may have failed).
    private func bothFamiliesHit(_ name: String, _ family: AddressFamilies, now: TimeInterval) -> ResolutionCache.Hit? {
        guard var hit = cache.lookup(ResolutionCache.Key(name: name, families: .both), now: now, staleLimit: staleRetention),
            case .addresses(let addresses) = hit.value
        else { return nil }
        let wanted = addresses.filter { family.includes($0.family) }
        guard !wanted.isEmpty else { return nil }
        hit.value = .addresses(wanted)
        return hit
    }

    /// The live cache entry for `key` (`ResolutionCache.value(for:now:)`), when its DNSSEC outcome
    /// lets it answer under the name's policy.
    func cachedValue(for key: ResolutionCache.Key, now: TimeInterval) -> (value: ResolutionCache.Value, remaining: TimeInterval, dnssec: DNSSECStatus?)? {
        guard let entry = cache.value(for: key, now: now), dnssecChain == nil || acceptsCached(entry.dnssec, name: key.name) else { return nil }
        return entry
    }

    /// Whether a cached entry with DNSSEC outcome `status` may answer `name` under its policy: one
    /// that was never validated only where the policy is off (the file's rows, answers kept before),
    /// a bogus one never under `require`. A secure, insecure or indeterminate one always may.
    private func acceptsCached(_ status: DNSSECStatus?, name: String) -> Bool {
        switch status {
        case .secure?, .insecure?, .indeterminate?: true
        case .bogus?: configuration.dnssec.policy(for: name) != .require
        case nil: configuration.dnssec.policy(for: name) == .off
        }
    }

    /// `clock.now()`, without the protocol's dispatch for the system clock (a hit reads it twice).
    private func now() -> TimeInterval {
        clockIsMonotonic ? MonotonicClock.now() : clock.now()
    }

    /// A cache miss: the providers are asked (one query shared by concurrent lookups of `key`); with a
    /// serve-stale candidate, under RFC 8767's timers (`HostResolver+ServeStale.swift`).
    func providerLookup(_ key: ResolutionCache.Key, port: Int, started: TimeInterval, stale: Answer?) async throws -> Served {
        configuration.observer?.cacheMiss(host: key.name)
        let flight = LookupCoalescer.Key(cacheKey: key, port: port)
        if let stale { return try await lookupServingStale(flight, stale: stale, started: started) }
        var resolution = try await sharedLookup(flight)
        if resolution.source != .cache { resolution.latency = clock.now() - started }
        return Served(resolution: resolution)
    }

    /// The cached addresses for `host` with their remaining TTL (source `.cache`), or `nil` when none are
    /// cached or they have expired; for `.ipv4` or `.ipv6`, a both-families answer's addresses of that
    /// family count. Negative answers are not shown. Asks nothing.
    public func cachedResolution(host: String, families: AddressFamilies? = nil) -> HostResolution? {
        guard let name = HostName.normalize(host) else { return nil }
        let families = concrete(families ?? configuration.families)
        let now = clock.now()
        var found = cachedValue(for: ResolutionCache.Key(name: name, families: families), now: now).map {
            ResolutionCache.Hit(value: $0.value, remaining: $0.remaining, provider: nil, dnssec: $0.dnssec)
        }
        if found == nil, families != .both, let other = bothFamiliesHit(name, families, now: now), !other.isStale {
            found = ResolutionCache.Hit(value: other.value, remaining: other.remaining, provider: nil, dnssec: other.dnssec)
        }
        guard let hit = found, dnssecChain == nil || acceptsCached(hit.dnssec, name: name), case .success(let resolution) = Self.resolution(from: hit, name: name) else { return nil }
        return resolution
    }

    /// Forgets every cached answer (call it when the network changes). Lookups already under way are not
    /// cached when they finish. Every row of the cache file, if any, is deleted (in the background:
    /// `savePersistentCache()` waits for it), so a new resolver on the file does not answer from it.
    public func flush() {
        coalescer.detach(
            where: { _ in true },
            then: {
                cache.removeAll()
                store?.removeAll()
            })
        staleHolds.withLock { $0.removeAll() }
        serviceBindingState.withLock { $0.entries.removeAll() }
    }

    /// Forgets the cached answers for `host` (all family selections), in memory and in the cache file.
    /// A lookup of it already under way is not cached when it finishes.
    public func flush(host: String) {
        guard let name = HostName.normalize(host) else { return }
        coalescer.detach(
            where: { $0.name == name },
            then: {
                cache.remove(name: name)
                store?.remove(name: name)
            })
        staleHolds.withLock { holds in holds = holds.filter { $0.key.name != name } }
        serviceBindingState.withLock { state in state.entries = state.entries.filter { $0.key.name != name } }
    }

    /// How many answers (positive and negative, fresh and stale) the cache holds.
    public var cachedCount: Int { cache.count }

    // MARK: - Bypass and families

    /// Whether `name` (normalized) goes straight to the system resolver.
    public func bypasses(_ name: String) -> Bool {
        // Byte-wise, from the end (normalized names are ASCII): String's Character-wise comparisons
        // cost more, and this runs on every lookup. Over the string's own bytes when it has them
        // contiguously, which a native string does: its UTF-8 view's indices cost more again.
        name.utf8.withContiguousStorageIfAvailable(bypasses) ?? bypasses(Array(name.utf8))
    }

    private func bypasses<Bytes: BidirectionalCollection<UInt8>>(_ bytes: Bytes) -> Bool {
        bypassNames.contains { $0.count == bytes.count && Self.endsWith(bytes, $0) }
            || bypassSuffixes.contains { $0.count <= bytes.count && Self.endsWith(bytes, $0) }
    }

    private static func endsWith<Bytes: BidirectionalCollection<UInt8>>(_ bytes: Bytes, _ suffix: [UInt8]) -> Bool {
        var index = bytes.endIndex
        for byte in suffix.reversed() {
            bytes.formIndex(before: &index)
            if bytes[index] != byte { return false }
        }
        return true
    }

    /// `localhost`, `*.localhost` and `bypassList`, lower-cased and normalized, as bytes: `name` and
    /// `.suffix` (or `*.suffix`) entries become exact names, and `.suffix` entries suffixes too.
    private static func bypassPatterns(_ list: [String]) -> (names: [[UInt8]], suffixes: [[UInt8]]) {
        var names = ["localhost"]
        var suffixes = [".localhost"]
        for entry in list {
            var pattern = entry.lowercased()
            if pattern.hasPrefix("*.") { pattern.removeFirst() }
            if pattern.hasPrefix(".") {
                let suffix = HostName.normalize(String(pattern.dropFirst())) ?? String(pattern.dropFirst())
                names.append(suffix)
                suffixes.append("." + suffix)
            } else {
                names.append(HostName.normalize(pattern) ?? pattern)
            }
        }
        return (names.map { Array($0.utf8) }, suffixes.map { Array($0.utf8) })
    }

    func concrete(_ families: AddressFamilies) -> AddressFamilies {
        guard families == .auto else { return families }
        return probedFamilies.withLock { $0 } ?? configuration.routeProbe.families()
    }

    // MARK: - Coalescing

    /// How many lookups wait on queries under way for the normalized `name` (lets tests see that
    /// concurrent lookups joined one query).
    func waitingLookups(name: String) -> Int { coalescer.waitingLookups(name: name) }

    /// Whether a query for `host` is under way (a lookup's or a background refresh's).
    public func isRefreshing(host: String) -> Bool {
        guard let name = HostName.normalize(host) else { return false }
        return coalescer.isQuerying(name: name)
    }

    /// Waits for the background refreshes of `host` started so far (for tests and orderly shutdown),
    /// for at most `limit` seconds when given (the refreshes go on; only the wait ends).
    /// - Returns: false when `limit` passed first.
    @discardableResult
    public func waitForRefresh(host: String, within limit: TimeInterval? = nil) async -> Bool {
        guard let name = HostName.normalize(host) else { return true }
        return await coalescer.waitForBackground(name: name, within: limit)
    }

    /// What the coalescer's flights do: ask the providers, and keep the answer in the cache and file.
    private var work: LookupCoalescer.Work {
        LookupCoalescer.Work(query: { key in await self.query(key) }, store: { key, outcome in self.keep(outcome, for: key.cacheKey) })
    }

    /// Starts a query for `key` with nobody waiting, unless one is under way; its answer fills the cache.
    func refreshInBackground(_ key: LookupCoalescer.Key, reason: RefreshReason) {
        if coalescer.startInBackground(key, work: work) {
            configuration.observer?.refreshStarted(host: key.name, reason: reason)
        }
    }

    /// The answer for `key` from the query under way or a new one (or the cache, filled meanwhile).
    func sharedLookup(_ key: LookupCoalescer.Key) async throws -> HostResolution {
        try await coalescer.lookup(key, work: work) { [self] in
            guard let hit = cachedValue(for: key.cacheKey, now: clock.now()) else { return nil }
            return Self.resolution(from: .init(value: hit.value, remaining: hit.remaining, provider: nil, dnssec: hit.dnssec), name: key.name)
        }
    }

    /// Keeps a query's outcome in the cache (and the file), unless it is not to be cached.
    private func keep(_ outcome: LookupOutcome, for key: ResolutionCache.Key) {
        guard let value = outcome.cacheValue, let ttl = outcome.cacheTTL, ttl > 0 else { return }
        let provider = try? outcome.result.get().provider
        cache.insert(value, for: key, ttl: ttl, now: clock.now(), provider: provider, dnssec: outcome.dnssec)
        persist(value, for: key, ttl: ttl, provider: provider)
        staleHolds.withLock { _ = $0.removeValue(forKey: key) }
    }

    // MARK: - The query

    /// Asks the providers for `key` (failover, health, racing), then the system resolver if allowed.
    func query(_ key: LookupCoalescer.Key) async -> LookupOutcome {
        let name = key.name
        if let dnssecChain {
            let dnssecPolicy = configuration.dnssec.policy(for: name)
            if dnssecPolicy != .off { return await validatedQuery(key, chain: dnssecChain, policy: dnssecPolicy) }
        }
        let reasons: [String]
        switch await providers.query(name, families: key.cacheKey.families) {
        case .answered(let answer, let provider):
            return policy.outcome(of: answer, name: name, provider: provider)
        case .invalidName:
            return LookupOutcome(result: .failure(.invalidHostName(name)))
        case .failed(let failures):
            reasons = failures
        }
        guard configuration.fallbackToSystemResolver else {
            return LookupOutcome(result: .failure(.resolverUnavailable(host: name, reasons: reasons)))
        }
        configuration.observer?.fellBackToSystemResolver(host: name, reasons: reasons)
        return await systemQuery(key, dohReasons: reasons)
    }

    /// The health of each provider, in configuration order (for diagnostics and tests).
    public func providerHealth() -> [(consecutiveFailures: Int, skippedUntil: TimeInterval?)] {
        let now = clock.now()
        return providers.snapshot.map { ($0.consecutiveFailures, $0.skipUntil > now ? $0.skipUntil : nil) }
    }

    static func resolution(from hit: ResolutionCache.Hit, name: String) -> Result<HostResolution, ResolutionError> {
        answer(from: hit, name: name).map(\.resolution)
    }

    private static func answer(from hit: ResolutionCache.Hit, name: String) -> Result<Answer, ResolutionError> {
        switch hit.value {
        case .addresses(let addresses):
            .success(
                Answer(
                    host: name, addresses: addresses, ttl: max(0, hit.remaining), source: .cache,
                    provider: hit.provider, isStale: hit.isStale, dnssec: hit.dnssec))
        case .nameNotFound:
            .failure(.nameNotFound(host: name, negativeTTL: hit.remaining))
        case .noAddresses:
            .failure(.noAddresses(host: name, negativeTTL: hit.remaining))
        }
    }
}
