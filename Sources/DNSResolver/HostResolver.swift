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
public final class HostResolver: HostResolving {
    /// How this resolver behaves; fixed at creation.
    public let configuration: Configuration

    let transport: any DoHTransport
    let systemResolver: any HostResolving
    let clock: any ResolverClock
    /// Whether `clock` is the system's `MonotonicClock`, read directly on the hit path rather than
    /// through the protocol.
    private let clockIsMonotonic: Bool
    private let staticResolver: StaticHostResolver
    private let hasStaticEntries: Bool
    /// `bypassList` normalized once: names that match exactly, and suffixes (with their leading dot).
    private let bypassNames: [[UInt8]]
    private let bypassSuffixes: [[UInt8]]
    /// Answers; its own locks, so that a cache hit takes no other. Changes other than a hit's are
    /// made under `state`'s lock too, ordered with the flights.
    private let cache: ResolutionCache
    private let state: LockedValue<State>
    /// The cache file, when one is configured and usable.
    private let store: ResolverCacheStore?
    /// Background refreshes under way, by flight, so `waitForRefresh` can await them.
    private let refreshTasks = LockedValue<[FlightKey: Task<Void, Never>]>([:])

    /// - Parameters:
    ///   - configuration: Providers, families, timeouts, fallback, static entries, cache policy.
    ///   - transport: The HTTPS client provider requests go through.
    ///   - systemResolver: Asked when every provider fails and `fallbackToSystemResolver` is set, for
    ///     bypassed names, and for hijack checks.
    ///   - clock: The time cache expiry and provider back-off are measured on.
    public init(
        configuration: Configuration = .default,
        transport: any DoHTransport,
        systemResolver: any HostResolving = SystemResolver(),
        clock: any ResolverClock = MonotonicClock()
    ) {
        self.configuration = configuration
        self.transport = transport
        self.systemResolver = systemResolver
        self.clock = clock
        self.clockIsMonotonic = clock is MonotonicClock
        self.staticResolver = StaticHostResolver(entries: configuration.staticEntries, fallback: nil)
        self.hasStaticEntries = !configuration.staticEntries.isEmpty
        (bypassNames, bypassSuffixes) = Self.bypassPatterns(configuration.bypassList)
        self.cache = ResolutionCache(capacity: configuration.cacheCapacity)
        self.state = LockedValue(State(
            health: Array(repeating: ProviderHealth(), count: configuration.providers.count)))
        let observer = configuration.observer
        self.store = configuration.persistentCacheFile.flatMap { file in
            ResolverCacheStore.open(file, busyTimeout: configuration.persistentCacheBusyTimeout,
                                    maximumAge: configuration.persistentCacheMaximumAge) { observer?.warning($0) }
        }
        loadPersistentCache()
        if !configuration.preResolveHosts.isEmpty {
            let hosts = configuration.preResolveHosts
            Task { _ = await self.preResolve(hosts) }
        }
    }

    /// Resolves `host` for the configured `families`. See `resolve(host:port:families:)`.
    public func resolve(host: String, port: Int) async throws -> HostResolution {
        // A cache hit is answered here without entering another async function.
        switch try answerAtOnce(host: host, port: port, families: configuration.families) {
        case .answered(let answer): answer.resolution
        case .bypassed(let name, let families, let started): try await systemLookup(name, port: port, families: families, started: started)
        case .miss(let key, let started): try await providerLookup(key, port: port, started: started)
        }
    }

    /// Resolves `host` for a connection to `port`.
    ///
    /// - Parameters:
    ///   - host: A host name (any case, optional trailing dot, Unicode allowed: converted to A-labels)
    ///     or an IP literal (optionally bracketed).
    ///   - port: The port the caller will connect to; only static entries depend on it.
    ///   - families: The address families wanted; cached separately per selection.
    /// - Returns: At least one address, IPv6 before IPv4 for provider answers; `ttl` is the remaining
    ///   lifetime in seconds for provider and cached answers (0 for a stale one), `nil` otherwise;
    ///   `provider` and `latency` say who answered and how long it took.
    /// - Throws: `ResolutionError.invalidHostName` for a name that is not a valid host name;
    ///   `.nameNotFound` (NXDOMAIN) and `.noAddresses` (NODATA) as answered, live or from the cache,
    ///   with the negative TTL in seconds; `.resolverUnavailable` listing each provider's failure (and the
    ///   system resolver's) when nothing answered; `CancellationError` when the calling task is cancelled
    ///   while waiting.
    public func resolve(host: String, port: Int, families: AddressFamilies) async throws -> HostResolution {
        switch try answerAtOnce(host: host, port: port, families: families) {
        case .answered(let answer): answer.resolution
        case .bypassed(let name, let families, let started): try await systemLookup(name, port: port, families: families, started: started)
        case .miss(let key, let started): try await providerLookup(key, port: port, started: started)
        }
    }

    /// The answer for `host` when it is known without waiting: an IP literal, a static entry or a
    /// cache hit (a stale one too, within `maximumStaleness`, which starts its refresh), with the
    /// observer told as by `resolve(host:port:)`; nil when the providers or the system resolver
    /// would be asked.
    /// - Throws: `ResolutionError.invalidHostName`; a cached `.nameNotFound` or `.noAddresses`.
    public func resolveImmediately(host: String, port: Int) throws -> HostResolution? {
        guard case .answered(let answer) = try answerAtOnce(host: host, port: port, families: configuration.families) else { return nil }
        return answer.resolution
    }

    /// What a lookup can tell before waiting for anything.
    private enum Immediate {
        /// A literal, a static entry or a cache hit (fresh or stale).
        case answered(Answer)
        /// The normalized name goes to the system resolver.
        case bypassed(name: String, families: AddressFamilies, started: TimeInterval)
        /// Nothing usable is cached: the providers are asked.
        case miss(ResolutionCache.Key, started: TimeInterval)
    }

    /// An answer known at once, in parts. A `HostResolution` is copied through its value witnesses
    /// (its source may hold a URL), so it is made only where it is returned: one made here and
    /// returned inside `Immediate` was copied and destroyed again on every cache hit.
    private struct Answer {
        enum Source { case literal, staticMapping, cache }
        var host: String
        var addresses: [IPAddress]
        var ttl: TimeInterval?
        var source: Source
        var provider: String?
        var latency: TimeInterval?
        var isStale = false

        var resolution: HostResolution {
            let source: ResolutionSource = switch self.source {
            case .literal: .literal
            case .staticMapping: .staticMapping
            case .cache: .cache
            }
            return HostResolution(host: host, addresses: addresses, ttl: ttl, source: source, provider: provider, latency: latency, isStale: isStale)
        }
    }

    /// The synchronous part of a lookup, in order: IP literal, static entry, bypass, cache. It runs for
    /// every request, so a hit reads the clock twice in all (expiry, latency) and takes one lock.
    private func answerAtOnce(host: String, port: Int, families: AddressFamilies) throws -> Immediate {
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
        let staleLimit = configuration.maximumStaleness
        guard let hit = cache.lookup(key, now: started, staleLimit: staleLimit) else {
            return .miss(key, started: started)
        }
        guard case .addresses(let addresses) = hit.value else {
            let result = Self.answer(from: hit, name: name)
            if case .failure(let error) = result { configuration.observer?.negativeCacheHit(host: name, error: error) }
            return .answered(try result.get())
        }
        let answer = Answer(host: name, addresses: addresses, ttl: max(0, hit.remaining), source: .cache,
                            provider: hit.provider, latency: now() - started, isStale: hit.isStale)
        if hit.isStale {
            configuration.observer?.staleAnswerServed(host: name, resolution: answer.resolution, expiredFor: -hit.remaining)
            refreshInBackground(FlightKey(cacheKey: key, port: port), reason: .stale)
        } else {
            configuration.observer?.cacheHit(host: name, resolution: answer.resolution)
            if let window = configuration.refreshAheadWindow, hit.remaining <= window {
                refreshInBackground(FlightKey(cacheKey: key, port: port), reason: .refreshAhead)
            }
        }
        return .answered(answer)
    }

    /// `clock.now()`, without the protocol's dispatch for the system clock (a hit reads it twice).
    private func now() -> TimeInterval {
        clockIsMonotonic ? MonotonicClock.now() : clock.now()
    }

    /// A bypassed name, through the system resolver.
    private func systemLookup(_ name: String, port: Int, families: AddressFamilies, started: TimeInterval) async throws -> HostResolution {
        configuration.observer?.bypassed(host: name)
        var resolution = try await systemResolver.resolve(host: name, port: port)
        resolution.addresses = resolution.addresses.filter { families.includes($0.family) }
        guard !resolution.addresses.isEmpty else { throw ResolutionError.noAddresses(host: name, negativeTTL: nil) }
        resolution.provider = "system"
        resolution.latency = clock.now() - started
        return resolution
    }

    /// A cache miss: the providers are asked (one query shared by concurrent lookups of `key`).
    private func providerLookup(_ key: ResolutionCache.Key, port: Int, started: TimeInterval) async throws -> HostResolution {
        configuration.observer?.cacheMiss(host: key.name)
        var resolution = try await sharedLookup(FlightKey(cacheKey: key, port: port))
        if resolution.source != .cache { resolution.latency = clock.now() - started }
        return resolution
    }

    /// The cached addresses for `host` with their remaining TTL (source `.cache`), or `nil` when none are
    /// cached or they have expired. Negative answers are not shown. Asks nothing.
    public func cachedResolution(host: String, families: AddressFamilies? = nil) -> HostResolution? {
        guard let name = HostName.normalize(host) else { return nil }
        let key = ResolutionCache.Key(name: name, families: concrete(families ?? configuration.families))
        let now = clock.now()
        guard let hit = cache.value(for: key, now: now),
              case .success(let resolution) = Self.resolution(from: .init(value: hit.value, remaining: hit.remaining, provider: nil), name: name)
        else { return nil }
        return resolution
    }

    /// Forgets every cached answer (call it when the network changes). Lookups already under way are not
    /// cached when they finish. Every row of the cache file, if any, is deleted (in the background:
    /// `savePersistentCache()` waits for it), so a new resolver on the file does not answer from it.
    public func flush() {
        state.withLock { state in
            cache.removeAll()
            state.flightByKey.removeAll()
            store?.removeAll()
        }
    }

    /// Forgets the cached answers for `host` (all family selections), in memory and in the cache file.
    /// A lookup of it already under way is not cached when it finishes.
    public func flush(host: String) {
        guard let name = HostName.normalize(host) else { return }
        state.withLock { state in
            cache.remove(name: name)
            state.flightByKey = state.flightByKey.filter { $0.key.cacheKey.name != name }
            store?.remove(name: name)
        }
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
        families == .auto ? configuration.routeProbe.families() : families
    }

    // MARK: - Coalescing

    /// How many lookups wait on queries under way for the normalized `name` (lets tests see that
    /// concurrent lookups joined one query).
    func waitingLookups(name: String) -> Int {
        state.withLock { state in
            state.flights.values.filter { $0.key.cacheKey.name == name }.reduce(0) { $0 + $1.waiters.count }
        }
    }

    /// Whether a query for `host` is under way (a lookup's or a background refresh's).
    public func isRefreshing(host: String) -> Bool {
        guard let name = HostName.normalize(host) else { return false }
        return state.withLock { $0.flightByKey.keys.contains { $0.cacheKey.name == name } }
    }

    /// Waits for the background refreshes of `host` started so far (for tests and orderly shutdown),
    /// for at most `limit` seconds when given (the refreshes go on; only the wait ends).
    /// - Returns: false when `limit` passed first.
    @discardableResult
    public func waitForRefresh(host: String, within limit: TimeInterval? = nil) async -> Bool {
        guard let name = HostName.normalize(host) else { return true }
        let tasks = refreshTasks.withLock { tasks in tasks.filter { $0.key.cacheKey.name == name }.map(\.value) }
        guard let limit else {
            for task in tasks { await task.value }
            return true
        }
        // Not a task group: it would wait for its children, and awaiting a task's value does not
        // stop when cancelled.
        return await withCheckedContinuation { continuation in
            let pending = LockedValue<CheckedContinuation<Bool, Never>?>(continuation)
            @Sendable func finish(_ done: Bool) {
                pending.withLock { waiter in
                    waiter?.resume(returning: done)
                    waiter = nil
                }
            }
            let timer = Task {
                try? await Task.sleep(for: .seconds(max(0, limit)))
                finish(false)
            }
            Task {
                for task in tasks { await task.value }
                timer.cancel()
                finish(true)
            }
        }
    }

    /// Lookups are shared per name, families and port (the port matters only to a system resolver
    /// that maps per port, but sharing across ports would hand one port's answer to another).
    struct FlightKey: Hashable {
        var cacheKey: ResolutionCache.Key
        var port: Int
    }

    private typealias Waiter = CheckedContinuation<HostResolution, any Error>

    /// One query under way and the lookups waiting for it.
    private struct Flight {
        var key: FlightKey
        var waiters: [UInt64: Waiter] = [:]
    }

    /// Consecutive failures of one provider and when it may be asked again.
    struct ProviderHealth {
        var consecutiveFailures = 0
        var skipUntil: TimeInterval = 0
        /// Where the bootstrap address list starts (rotated after each failure).
        var bootstrapOffset = 0
    }

    private struct State {
        var health: [ProviderHealth]
        var flights: [UInt64: Flight] = [:]
        /// The flight new lookups of a key join; `flush` detaches flights so they are not cached.
        var flightByKey: [FlightKey: UInt64] = [:]
        var flightOfWaiter: [UInt64: UInt64] = [:]
        var nextID: UInt64 = 0

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }
    }

    /// What a query produced, and how long to cache it (`nil`: not at all).
    struct Outcome: Sendable {
        var result: Result<HostResolution, ResolutionError>
        var cacheTTL: TimeInterval? = nil
        var cacheValue: ResolutionCache.Value? = nil
    }

    private enum Admission {
        case answered(Result<HostResolution, ResolutionError>)
        case cancelled
        case joined
        case started(UInt64)
    }

    /// Starts a query for `key` with nobody waiting, unless one is under way; its answer fills the cache.
    private func refreshInBackground(_ key: FlightKey, reason: RefreshReason) {
        let flightID = state.withLock { state -> UInt64? in
            guard state.flightByKey[key] == nil else { return nil }
            let flightID = state.makeID()
            state.flights[flightID] = Flight(key: key)
            state.flightByKey[key] = flightID
            return flightID
        }
        guard let flightID else { return }
        configuration.observer?.refreshStarted(host: key.cacheKey.name, reason: reason)
        refreshTasks.withLock { tasks in
            tasks[key] = Task {
                let outcome = await self.query(key)
                self.finish(flightID, outcome: outcome)
                _ = self.refreshTasks.withLock { $0.removeValue(forKey: key) }
            }
        }
    }

    private func sharedLookup(_ key: FlightKey) async throws -> HostResolution {
        let waiterID = state.withLock { $0.makeID() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                let now = clock.now()
                let admission = state.withLock { state -> Admission in
                    // Checked under the lock: the cancellation handler takes it too, so either it sees
                    // this waiter registered or this sees the task cancelled.
                    if Task.isCancelled { return .cancelled }
                    if let hit = cache.value(for: key.cacheKey, now: now) {
                        return .answered(Self.resolution(from: .init(value: hit.value, remaining: hit.remaining, provider: nil), name: key.cacheKey.name))
                    }
                    if let flightID = state.flightByKey[key] {
                        state.flights[flightID]?.waiters[waiterID] = waiter
                        state.flightOfWaiter[waiterID] = flightID
                        return .joined
                    }
                    let flightID = state.makeID()
                    state.flights[flightID] = Flight(key: key, waiters: [waiterID: waiter])
                    state.flightByKey[key] = flightID
                    state.flightOfWaiter[waiterID] = flightID
                    return .started(flightID)
                }
                switch admission {
                case .answered(let result):
                    waiter.resume(with: result.mapError { $0 as any Error })
                case .cancelled:
                    waiter.resume(throwing: CancellationError())
                case .joined:
                    break
                case .started(let flightID):
                    // Unstructured on purpose: the query must not inherit the cancellation of the
                    // lookup that happened to start it.
                    Task {
                        let outcome = await self.query(key)
                        self.finish(flightID, outcome: outcome)
                    }
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let flightID = state.flightOfWaiter.removeValue(forKey: waiterID) else { return nil }
                return state.flights[flightID]?.waiters.removeValue(forKey: waiterID)
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    private func finish(_ flightID: UInt64, outcome: Outcome) {
        let now = clock.now()
        let waiters = state.withLock { state -> [Waiter] in
            guard let flight = state.flights.removeValue(forKey: flightID) else { return [] }
            for waiterID in flight.waiters.keys { state.flightOfWaiter[waiterID] = nil }
            if state.flightByKey[flight.key] == flightID {
                state.flightByKey[flight.key] = nil
                if let value = outcome.cacheValue, let ttl = outcome.cacheTTL, ttl > 0 {
                    let provider = try? outcome.result.get().provider
                    cache.insert(value, for: flight.key.cacheKey, ttl: ttl, now: now, provider: provider)
                    persist(value, for: flight.key.cacheKey, ttl: ttl, provider: provider)
                }
            }
            return Array(flight.waiters.values)
        }
        let result = outcome.result.mapError { $0 as any Error }
        for waiter in waiters { waiter.resume(with: result) }
    }

    // MARK: - The query

    /// Asks the providers for `key` (failover, health, racing), then the system resolver if allowed.
    func query(_ key: FlightKey) async -> Outcome {
        let name = key.cacheKey.name
        var reasons: [String] = []
        let order = providerOrder(for: name)
        var remaining = order[...]
        if configuration.racesFirstTwoProviders, remaining.count >= 2 {
            let pair = Array(remaining.prefix(2))
            remaining = remaining.dropFirst(2)
            if let outcome = await race(pair, key: key, reasons: &reasons) { return outcome }
        }
        for index in remaining {
            switch await ask(index, key: key) {
            case .answered(let outcome): return outcome
            case .failed(let reason): reasons.append(reason)
            }
        }
        if configuration.providers.isEmpty { reasons.append("no DoH endpoint configured") }
        guard configuration.fallbackToSystemResolver else {
            return Outcome(result: .failure(.resolverUnavailable(host: name, reasons: reasons)))
        }
        configuration.observer?.fellBackToSystemResolver(host: name, reasons: reasons)
        return await systemQuery(key, dohReasons: reasons)
    }

    /// Provider indices to try: those not in back-off, in order; all of them when every one is.
    private func providerOrder(for name: String) -> [Int] {
        let now = clock.now()
        let health = state.withLock { $0.health }
        var available: [Int] = []
        for index in configuration.providers.indices {
            let entry = health[index]
            if entry.skipUntil > now {
                configuration.observer?.endpointSkipped(
                    host: name, endpoint: configuration.providers[index].url,
                    consecutiveFailures: entry.consecutiveFailures, retryAfter: entry.skipUntil)
            } else {
                available.append(index)
            }
        }
        return available.isEmpty ? Array(configuration.providers.indices) : available
    }

    private enum Attempt: Sendable {
        case answered(Outcome)
        case failed(String)
    }

    /// Asks the first two providers at once; the first answer wins and the other is cancelled.
    private func race(_ pair: [Int], key: FlightKey, reasons: inout [String]) async -> Outcome? {
        await withTaskGroup(of: (Int, Attempt).self) { group -> Outcome? in
            for index in pair {
                group.addTask { (index, await self.ask(index, key: key)) }
            }
            var failures: [Int: String] = [:]
            for await (index, attempt) in group {
                switch attempt {
                case .answered(let outcome):
                    group.cancelAll()
                    return outcome
                case .failed(let reason):
                    failures[index] = reason
                }
            }
            reasons += pair.compactMap { failures[$0] }
            return nil
        }
    }

    /// One provider's attempt, with its health and bootstrap rotation updated.
    private func ask(_ index: Int, key: FlightKey) async -> Attempt {
        let name = key.cacheKey.name
        var provider = configuration.providers[index]
        let offset = state.withLock { $0.health[index].bootstrapOffset }
        let bootstrap = provider.bootstrapAddresses
        if bootstrap.count > 1 {
            let start = offset % bootstrap.count
            provider.bootstrapAddresses = Array(bootstrap[start...] + bootstrap[..<start])
        }
        let started = clock.now()
        do {
            let answer = try await provider.lookup(name, families: key.cacheKey.families, transport: transport, timeout: configuration.requestTimeout)
            let latency = clock.now() - started
            state.withLock { $0.health[index].consecutiveFailures = 0; $0.health[index].skipUntil = 0 }
            configuration.observer?.providerAnswered(host: name, provider: provider.kind, endpoint: provider.url, latency: latency, answer: answer)
            return .answered(outcome(of: answer, name: name, provider: provider))
        } catch {
            switch error {
            case .invalidName:
                return .answered(Outcome(result: .failure(.invalidHostName(name))))
            case .endpointFailed where Task.isCancelled:
                // Cancelled, not failed: the race's loser, or a lookup nobody waits for any more.
                // Its health and bootstrap order stay as they were.
                return .failed(error.description)
            case .endpointFailed:
                let latency = clock.now() - started
                let now = clock.now()
                state.withLock { state in
                    state.health[index].consecutiveFailures += 1
                    state.health[index].bootstrapOffset += 1
                    let threshold = configuration.failureThreshold
                    if threshold > 0, state.health[index].consecutiveFailures >= threshold {
                        state.health[index].skipUntil = now + configuration.failureBackoff
                    }
                }
                configuration.observer?.endpointFailed(host: name, provider: provider.kind, endpoint: provider.url, reason: error.description, latency: latency)
                return .failed(error.description)
            }
        }
    }

    /// The health of each provider, in configuration order (for diagnostics and tests).
    public func providerHealth() -> [(consecutiveFailures: Int, skippedUntil: TimeInterval?)] {
        let now = clock.now()
        return state.withLock { $0.health }.map { ($0.consecutiveFailures, $0.skipUntil > now ? $0.skipUntil : nil) }
    }

    func outcome(of answer: DoHClient.Answer, name: String, provider: any ResolutionProvider) -> Outcome {
        switch answer {
        case .addresses(let addresses, let ttl):
            let kept = min(max(ttl, configuration.minimumTTL), configuration.maximumTTL)
            // TTL 0 means "use once" (RFC 1035 §3.2.1): the minimum does not make it cacheable.
            let cached = ttl <= 0 ? 0 : kept
            let resolution = HostResolution(host: name, addresses: addresses, ttl: ttl <= 0 ? 0 : kept, source: provider.source, provider: provider.kind)
            return Outcome(result: .success(resolution), cacheTTL: cached, cacheValue: .addresses(addresses))
        case .nameNotFound(let negativeTTL):
            let kept = negativeTTL.map { min($0, configuration.negativeCacheTTLCap) }
            return Outcome(result: .failure(.nameNotFound(host: name, negativeTTL: kept)), cacheTTL: kept, cacheValue: .nameNotFound)
        case .noAddresses(let negativeTTL):
            let kept = negativeTTL.map { min($0, configuration.negativeCacheTTLCap) }
            return Outcome(result: .failure(.noAddresses(host: name, negativeTTL: kept)), cacheTTL: kept, cacheValue: .noAddresses)
        }
    }

    private func systemQuery(_ key: FlightKey, dohReasons: [String]) async -> Outcome {
        let name = key.cacheKey.name
        let families = key.cacheKey.families
        do {
            var resolution = try await systemResolver.resolve(host: name, port: key.port)
            resolution.addresses = resolution.addresses.filter { families.includes($0.family) }
            resolution.provider = "system"
            guard !resolution.addresses.isEmpty else {
                let reason = "system resolver: no addresses of the requested type"
                return Outcome(result: .failure(.resolverUnavailable(host: name, reasons: dohReasons + [reason])))
            }
            resolution.fallbackReasons = dohReasons
            return Outcome(result: .success(resolution))
        } catch ResolutionError.resolverUnavailable(_, let reasons) {
            let system = reasons.isEmpty ? ["system resolver: no answer"] : reasons.map { "system resolver: \($0)" }
            return Outcome(result: .failure(.resolverUnavailable(host: name, reasons: dohReasons + system)))
        } catch ResolutionError.nameNotFound {
            // The trusted resolvers gave no answer; what the untrusted one says is reported beside
            // their failures rather than as the answer.
            return Outcome(result: .failure(.resolverUnavailable(host: name, reasons: dohReasons + ["system resolver: name does not exist"])))
        } catch ResolutionError.noAddresses {
            let reason = "system resolver: no addresses of the requested type"
            return Outcome(result: .failure(.resolverUnavailable(host: name, reasons: dohReasons + [reason])))
        } catch let error as ResolutionError {
            return Outcome(result: .failure(error))
        } catch {
            let reason = "system resolver: \(error)"
            return Outcome(result: .failure(.resolverUnavailable(host: name, reasons: dohReasons + [reason])))
        }
    }

    private static func resolution(from hit: ResolutionCache.Hit, name: String) -> Result<HostResolution, ResolutionError> {
        answer(from: hit, name: name).map(\.resolution)
    }

    private static func answer(from hit: ResolutionCache.Hit, name: String) -> Result<Answer, ResolutionError> {
        switch hit.value {
        case .addresses(let addresses):
            .success(Answer(host: name, addresses: addresses, ttl: max(0, hit.remaining), source: .cache,
                            provider: hit.provider, isStale: hit.isStale))
        case .nameNotFound:
            .failure(.nameNotFound(host: name, negativeTTL: hit.remaining))
        case .noAddresses:
            .failure(.noAddresses(host: name, negativeTTL: hit.remaining))
        }
    }

    // MARK: - Pre-resolution

    /// Resolves `hosts` into the cache ahead of use, in batches where the first available provider has
    /// a batch API (Alibaba-style `/resolve`, 5 names a request), else one by one concurrently. Names
    /// already cached are skipped.
    /// - Returns: The names now cached with addresses (normalized).
    @discardableResult
    public func preResolve(_ hosts: [String], families: AddressFamilies? = nil) async -> [String] {
        let families = concrete(families ?? configuration.families)
        let now = clock.now()
        var names: [String] = []
        for host in hosts {
            guard let name = HostName.normalize(host), IPAddress(name) == nil, !bypasses(name), !names.contains(name) else { continue }
            let key = ResolutionCache.Key(name: name, families: families)
            if cache.value(for: key, now: now) == nil { names.append(name) }
        }
        if let first = providerOrder(for: names.first ?? "").first, first < configuration.providers.count {
            let provider = configuration.providers[first]
            if provider.batchLimit > 1 {
                var start = 0
                while start < names.count {
                    let batch = Array(names[start..<min(start + provider.batchLimit, names.count)])
                    start += batch.count
                    guard let answers = try? await provider.lookup(batch: batch, families: families, transport: transport, timeout: configuration.requestTimeout) else { continue }
                    let stamp = clock.now()
                    for (name, answer) in answers {
                        let outcome = outcome(of: answer, name: name, provider: provider)
                        guard let value = outcome.cacheValue, let ttl = outcome.cacheTTL, ttl > 0 else { continue }
                        let key = ResolutionCache.Key(name: name, families: families)
                        state.withLock { _ in
                            cache.insert(value, for: key, ttl: ttl, now: stamp, provider: provider.kind)
                            persist(value, for: key, ttl: ttl, provider: provider.kind)
                        }
                    }
                }
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for name in names where cachedResolution(host: name, families: families) == nil {
                group.addTask { _ = try? await self.resolve(host: name, port: 443, families: families) }
            }
        }
        return names.filter { cachedResolution(host: $0, families: families) != nil }
    }

    // MARK: - Persistent cache

    private func loadPersistentCache() {
        guard let store else { return }
        let rows = store.load(limit: configuration.cacheCapacity)
        let wallNow = Date().timeIntervalSince1970
        let now = clock.now()
        state.withLock { _ in
            for row in rows {
                let remaining = row.expires - wallNow
                let key = ResolutionCache.Key(name: row.name, families: row.families)
                cache.insert(.addresses(row.addresses), for: key, expires: now + min(remaining, configuration.maximumTTL), provider: row.provider)
            }
        }
    }

    /// Notes an address answer for the cache file (written in the background; negative answers are
    /// short-lived and not kept).
    private func persist(_ value: ResolutionCache.Value, for key: ResolutionCache.Key, ttl: TimeInterval, provider: String?) {
        guard let store, case .addresses(let addresses) = value else { return }
        let wallNow = Date().timeIntervalSince1970
        store.record(.init(name: key.name, families: key.families, addresses: addresses, expires: wallNow + ttl, stored: wallNow, provider: provider))
    }

    /// Writes the changes to the cache file not yet written (new answers, flushes) and returns when
    /// they are written. Lookups never wait for the file: a background writer writes changes as they
    /// come; call this before exiting so none is lost. Failures are reported to the observer.
    public func savePersistentCache() {
        store?.writeNow()
    }
}
