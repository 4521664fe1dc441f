import DNSWire
import Foundation
import HTTPDNSCore

extension HostResolver {
    /// The SVCB or HTTPS records of `host` (RFC 9460 §3): asked of the first available provider that
    /// can carry them (the next on failure), AliasMode records followed up to
    /// `Configuration.serviceBindingAliasLimit`, ServiceMode records ordered by priority.
    ///
    /// Answers are cached per name and type for their TTL (clamped to `minimumTTL...maximumTTL`;
    /// none, for `negativeCacheTTLCap`); a failure is kept for `DoHClient.partialAnswerTTLCap`
    /// seconds, so a cached address answer does not ask again on every use. Concurrent calls for
    /// one name share one query. Each failure of a query is also told to the observer
    /// (`serviceBindingsDropped`). An RRset with an AliasMode record is read as AliasMode, its
    /// ServiceMode records ignored, and SvcParams of AliasMode records are ignored (RFC 9460 §2.4.2).
    ///
    /// - Parameters:
    ///   - host: A host name (normalized as by `resolve(host:port:)`).
    ///   - type: `.https` (default) or `.svcb`.
    /// - Returns: The records, `ttl` the remaining lifetime; `records` empty when the name has none.
    /// - Throws: `ServiceBindingError`: `.invalidHostName` (an IP literal too), `.notCarried` when no
    ///   provider can carry them, `.providersFailed`, `.aliasLoop`, `.aliasChainTooLong`;
    ///   `CancellationError` at once when the calling task is cancelled (the query goes on for the cache).
    public func serviceBindings(host: String, type: DNSRecordType = .https) async throws -> ServiceBindingRecords {
        guard let name = HostName.normalize(host), IPAddress(name) == nil else { throw ServiceBindingError.invalidHostName(host) }
        let key = ServiceBindingState.Key(name: name, type: type.rawValue)
        let waiter = serviceBindingState.withLock { state in
            state.lastWaiter += 1
            return state.lastWaiter
        }
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ServiceBindingState.Outcome?, Never>) in
                let now = clock.now()
                let action = serviceBindingState.withLock { state -> ServiceBindingState.Action in
                    // Checked under the lock the cancellation handler takes: a cancellation either
                    // finds this waiter registered or is seen here.
                    if Task.isCancelled { return .resume(nil) }
                    if let cached = state.cached(key, now: now) { return .resume(cached) }
                    let starts = state.flights[key] == nil
                    state.flights[key, default: [:]][waiter] = continuation
                    return starts ? .start : .wait
                }
                switch action {
                case .resume(let outcome): continuation.resume(returning: outcome)
                case .start: Task { await self.queryServiceBindings(name, type: type, key: key) }
                case .wait: break
                }
            }
        } onCancel: {
            serviceBindingState.withLock { $0.flights[key]?.removeValue(forKey: waiter) }?.resume(returning: nil)
        }
        guard let outcome else { throw CancellationError() }
        return try outcome.get()
    }

    /// `serviceBindings(host:type:)` for a resolution: HTTPS records, or nil when they cannot be had.
    func serviceBindingsForResolution(_ name: String) async -> ServiceBindingRecords? {
        try? await serviceBindings(host: name, type: .https)
    }

    /// For `resolveImmediately`: `.some(records)` when the HTTPS answer (records, none, or a failure:
    /// `.some(nil)`) is cached; nil when it would have to be asked.
    func cachedServiceBindingsForResolution(_ name: String) -> ServiceBindingRecords?? {
        let key = ServiceBindingState.Key(name: name, type: DNSRecordType.https.rawValue)
        let now = clock.now()
        guard let cached = serviceBindingState.withLock({ $0.cached(key, now: now) }) else { return nil }
        return .some(try? cached.get())
    }

    /// The HTTPS records for a cache hit of `name`'s addresses, without waiting: the cached answer
    /// (nil for a cached failure or none); when none is cached, nil, with one query started in the
    /// background (unless one is under way) so that later hits have it, as serve-stale refreshes.
    func serviceBindingsForHit(_ name: String) -> ServiceBindingRecords? {
        let key = ServiceBindingState.Key(name: name, type: DNSRecordType.https.rawValue)
        let now = clock.now()
        let (cached, starts) = serviceBindingState.withLock { state -> (ServiceBindingState.Entry?, Bool) in
            if let entry = state.entries[key], entry.expires > now { return (entry, false) }
            guard state.flights[key] == nil else { return (nil, false) }
            state.flights[key] = [:]
            return (nil, true)
        }
        if starts { Task { await self.queryServiceBindings(name, type: .https, key: key) } }
        guard let cached else { return nil }
        // The next hit finds them in the address entry (one cached after them did not get them).
        let bindings = ResolutionCache.ServiceBindings(records: try? cached.result.get(), expires: cached.expires)
        cache.attach(bindings, name: name)
        return bindings.fresh(at: now) ?? nil
    }

    /// Whether a lookup of `host` asks for its HTTPS records beside the addresses:
    /// `Configuration.asksForServiceBindings`, unless a DNSSEC policy validates `host` (its HTTPS
    /// records would not be validated, and must not steer a connection whose addresses were).
    func asksForServiceBindings(_ host: String) -> Bool {
        guard configuration.asksForServiceBindings else { return false }
        guard configuration.dnssec.validatesAny else { return true }
        return configuration.dnssec.policy(for: HostName.normalize(host) ?? host) == .off
    }

    /// The rest of a lookup (`answerAtOnce`'s `immediate`) that asks for the HTTPS records: a hit
    /// without them gets the cached HTTPS answer, a miss asks both at once; literals, static entries
    /// and system answers get none.
    func resolveWithServiceBindings(_ immediate: Immediate, port: Int) async throws -> HostResolution {
        var resolution: HostResolution
        switch immediate {
        case .hit(let hit, let bindingsKnown):
            if bindingsKnown { return hit }
            resolution = hit
        case .answered(let answer):
            guard answer.source == .cache else { return answer.resolution }
            resolution = answer.resolution
        case .bypassed(let name, let families, let started):
            return try await systemLookup(name, port: port, families: families, started: started)
        case .miss(let key, let started, let stale):
            // Started with the address queries; waited for within `serviceBindingWait` once they are answered.
            let early = Task { await serviceBindingsForResolution(key.name) }
            defer { early.cancel() }
            resolution = try await providerLookup(key, port: port, started: started, stale: stale).reported(to: configuration.observer)
            if resolution.source != .system { resolution.serviceBindingRecords = await serviceBindingsWithinWait(key.name) }
            return resolution
        }
        // A hit never waits for the network: the cached HTTPS answer, else none (one refresh starts).
        resolution.serviceBindingRecords = serviceBindingsForHit(resolution.host)
        return resolution
    }

    /// `serviceBindingsForResolution`, given up after `Configuration.serviceBindingWait` (the query
    /// goes on for the cache: a waiter that stops waiting leaves the flight running).
    func serviceBindingsWithinWait(_ name: String) async -> ServiceBindingRecords? {
        guard let wait = configuration.serviceBindingWait else { return await serviceBindingsForResolution(name) }
        if let cached = cachedServiceBindingsForResolution(name) { return cached }
        let clock = self.clock
        return await withTaskGroup(of: ServiceBindingRecords??.self) { group in
            group.addTask { .some(await self.serviceBindingsForResolution(name)) }
            group.addTask {
                try? await clock.sleep(for: wait)
                return .none
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? nil
        }
    }

    /// One flight: asks, follows AliasMode, caches the outcome, hands it to every waiter and tells
    /// the observer of a failure.
    private func queryServiceBindings(_ name: String, type: DNSRecordType, key: ServiceBindingState.Key) async {
        let result = await followAliases(name, type: type)
        let ttl: TimeInterval
        switch result {
        // No records: their negative TTL; without one (no SOA), as briefly as a failure, so that
        // hits do not ask again for each request.
        case .success(let records) where records.records.isEmpty:
            ttl = records.ttl > 0 ? min(records.ttl, configuration.negativeCacheTTLCap) : DoHClient.partialAnswerTTLCap
        case .success(let records): ttl = min(max(records.ttl, configuration.minimumTTL), configuration.maximumTTL)
        // No provider of this resolver can carry them, now or later: remembered as long as anything.
        case .failure(.notCarried): ttl = configuration.maximumTTL
        case .failure: ttl = DoHClient.partialAnswerTTLCap
        }
        let now = clock.now()
        let waiters = serviceBindingState.withLock { state in
            if ttl > 0 { state.insert(result, for: key, expires: now + ttl, capacity: configuration.cacheCapacity, now: now) }
            return state.flights.removeValue(forKey: key) ?? [:]
        }
        if ttl > 0, type == .https, asksForServiceBindings(name) {
            cache.attach(ResolutionCache.ServiceBindings(records: try? result.get(), expires: now + ttl), name: name)
        }
        if case .failure(let error) = result, !error.isNotCarried {
            configuration.observer?.serviceBindingsDropped(host: name, error: error)
        }
        for waiter in waiters.values { waiter.resume(returning: result) }
    }

    private func followAliases(_ name: String, type: DNSRecordType) async -> Result<ServiceBindingRecords, ServiceBindingError> {
        var current = name
        var chain: [String] = []
        var visited: Set<String> = [name]
        var ttl = TimeInterval.infinity
        while true {
            let answer: ServiceBindingAnswer
            switch await askCarriers(current, type: type) {
            case .success(let got): answer = got
            case .failure(let error): return .failure(error)
            }
            let records: [ServiceBinding]
            let owner: String
            let recordTTL: TimeInterval
            switch answer {
            case .records(let got, let gotOwner, let gotTTL): (records, owner, recordTTL) = (got, gotOwner, gotTTL)
            case .none(let negativeTTL):
                return .success(ServiceBindingRecords(name: current, aliasChain: chain, records: [], ttl: min(ttl, negativeTTL ?? 0)))
            case .nameNotFound(let negativeTTL):
                var none = ServiceBindingRecords(name: current, aliasChain: chain, records: [], ttl: min(ttl, negativeTTL ?? 0))
                none.nameExists = !chain.isEmpty // an alias's missing target is no records of the name asked
                return .success(none)
            }
            ttl = min(ttl, recordTTL)
            visited.insert(owner)
            guard let alias = records.first(where: \.isAliasMode) else {
                // Stable: equal priorities keep their answer order (RFC 9460 §2.4.3 leaves their order to the client).
                let ordered = records.enumerated().sorted { ($0.element.priority, $0.offset) < ($1.element.priority, $1.offset) }.map(\.element)
                return .success(ServiceBindingRecords(name: owner, aliasChain: chain, records: ordered, ttl: ttl))
            }
            // AliasMode to "." : the service does not exist (RFC 9460 §2.5.1).
            if alias.targetName.isEmpty { return .success(ServiceBindingRecords(name: owner, aliasChain: chain, records: [], ttl: ttl)) }
            guard visited.insert(alias.targetName).inserted else { return .failure(.aliasLoop(chain: [name] + chain + [alias.targetName])) }
            guard chain.count < configuration.serviceBindingAliasLimit else {
                return .failure(.aliasChainTooLong(chain: [name] + chain, limit: configuration.serviceBindingAliasLimit))
            }
            chain.append(alias.targetName)
            current = alias.targetName
        }
    }

    /// The first available provider that carries the records and answers; each failure is a reason.
    private func askCarriers(_ name: String, type: DNSRecordType) async -> Result<ServiceBindingAnswer, ServiceBindingError> {
        var reasons: [String] = []
        var kinds: [String] = []
        for index in providers.order(for: name) {
            let provider = providers.providers[index]
            let started = clock.now()
            do {
                if var answer = try await provider.lookupServiceBindings(name, type: type, transport: transport, timeout: configuration.requestTimeout) {
                    if configuration.rebindingGuard.screens(provider) {
                        let screened = configuration.rebindingGuard.screenHints(answer)
                        if !screened.dropped.isEmpty {
                            answer = screened.answer
                            configuration.observer?.warning(
                                "dropped \(screened.dropped.map(\.description).joined(separator: ", ")) from the address hints of \(provider.url.host() ?? provider.url.absoluteString)'s \(type) records for \(name): a local address (DNS rebinding guard)"
                            )
                        }
                    }
                    let count: Int
                    if case .records(let records, _, _) = answer { count = records.count } else { count = 0 }
                    configuration.observer?.serviceBindingsAnswered(
                        host: name, type: type, provider: provider.kind, endpoint: provider.url, latency: clock.now() - started, count: count)
                    return .success(answer)
                }
                kinds.append(provider.kind)
            } catch {
                configuration.observer?.serviceBindingsFailed(host: name, type: type, provider: provider.kind, endpoint: provider.url, reason: error.description)
                reasons.append(error.description)
            }
        }
        if reasons.isEmpty { return .failure(.notCarried(type: type, providers: kinds)) }
        return .failure(.providersFailed(host: name, type: type, reasons: reasons))
    }
}

/// The resolver's SVCB/HTTPS cache and the queries under way, under one lock.
struct ServiceBindingState: Sendable {
    struct Key: Hashable, Sendable {
        var name: String
        var type: UInt16
    }

    struct Entry: Sendable {
        var result: Result<ServiceBindingRecords, ServiceBindingError>
        /// On the resolver's clock, in seconds.
        var expires: TimeInterval
    }

    typealias Outcome = Result<ServiceBindingRecords, ServiceBindingError>

    /// What a caller does after looking at the state.
    enum Action {
        /// Return this at once (nil: cancelled).
        case resume(Outcome?)
        /// Start the query; it resumes the waiters.
        case start
        /// Wait for the query under way.
        case wait
    }

    var entries: [Key: Entry] = [:]
    /// The queries under way, each with the callers waiting for it (by a number of their own).
    var flights: [Key: [UInt64: CheckedContinuation<Outcome?, Never>]] = [:]
    /// The last waiter number handed out.
    var lastWaiter: UInt64 = 0

    /// A fresh entry, its TTL made the remaining lifetime.
    func cached(_ key: Key, now: TimeInterval) -> Result<ServiceBindingRecords, ServiceBindingError>? {
        guard let entry = entries[key], entry.expires > now else { return nil }
        return entry.result.map { records in
            var records = records
            records.ttl = entry.expires - now
            return records
        }
    }

    /// Keeps `result`; when `capacity` is reached, expired entries go first, then the one closest to expiry.
    mutating func insert(_ result: Result<ServiceBindingRecords, ServiceBindingError>, for key: Key, expires: TimeInterval, capacity: Int, now: TimeInterval) {
        guard capacity > 0 else { return }
        if entries[key] == nil, entries.count >= capacity {
            entries = entries.filter { $0.value.expires > now }
            if entries.count >= capacity, let soonest = entries.min(by: { $0.value.expires < $1.value.expires }) {
                entries[soonest.key] = nil
            }
        }
        entries[key] = Entry(result: result, expires: expires)
    }
}

extension ServiceBindingError {
    var isNotCarried: Bool {
        if case .notCarried = self { return true }
        return false
    }
}
