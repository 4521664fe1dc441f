import Foundation
import HTTPDNSCore
import Synchronization

/// Resolves host names over DNS-over-HTTPS (RFC 8484) with a TTL cache, endpoint failover and an
/// optional fallback to the system resolver.
///
/// Order of a lookup: IP literal (returned as is, source `.literal`) → static entry for host and port
/// (`.staticMapping`) → cache (`.cache`, with the remaining TTL) → DoH endpoints in order (`.doh`) →
/// system resolver (`.system`) if `fallbackToSystemResolver`.
///
/// - Positive answers are cached for their TTL clamped to `minimumTTL...maximumTTL`; TTL 0 answers are
///   returned but not cached. NXDOMAIN and NODATA are cached for their negative TTL capped at
///   `negativeCacheTTLCap` and rethrown from the cache. System-resolver answers are not cached.
/// - NXDOMAIN from a DoH endpoint is final: no other endpoint and no system resolver is asked.
/// - Concurrent lookups of one name share one query. Cancelling a waiting lookup makes it throw
///   `CancellationError` at once; the shared query carries on for the others (and fills the cache).
public final class HostResolver: HostResolving {
    /// How this resolver behaves; fixed at creation.
    public let configuration: Configuration

    private let client: DoHClient
    private let systemResolver: any HostResolving
    private let clock: any ResolverClock
    private let staticResolver: StaticHostResolver
    private let state: Mutex<State>

    /// - Parameters:
    ///   - configuration: Endpoints, families, timeouts, fallback, static entries and cache limits.
    ///   - transport: The HTTPS client DoH requests go through.
    ///   - systemResolver: Asked when every endpoint fails and `fallbackToSystemResolver` is set.
    ///   - clock: The time cache expiry is measured on.
    public init(
        configuration: Configuration = .default,
        transport: any DoHTransport,
        systemResolver: any HostResolving = SystemResolver(),
        clock: any ResolverClock = MonotonicClock()
    ) {
        self.configuration = configuration
        self.client = DoHClient(transport: transport, maxResponseBytes: configuration.maxResponseBytes)
        self.systemResolver = systemResolver
        self.clock = clock
        self.staticResolver = StaticHostResolver(entries: configuration.staticEntries, fallback: nil)
        self.state = Mutex(State(cache: ResolutionCache(capacity: configuration.cacheCapacity)))
    }

    /// Resolves `host` for the configured `families`. See `resolve(host:port:families:)`.
    public func resolve(host: String, port: Int) async throws -> HostResolution {
        try await resolve(host: host, port: port, families: configuration.families)
    }

    /// Resolves `host` for a connection to `port`.
    ///
    /// - Parameters:
    ///   - host: A host name (any case, optional trailing dot) or an IP literal (optionally bracketed).
    ///   - port: The port the caller will connect to; only static entries depend on it.
    ///   - families: The address families wanted; cached separately per selection.
    /// - Returns: At least one address, IPv6 before IPv4 for DoH answers; `ttl` is the remaining
    ///   lifetime in seconds for DoH and cached answers, `nil` otherwise.
    /// - Throws: `ResolutionError.invalidHostName` for a name that is not a valid host name;
    ///   `.nameNotFound` (NXDOMAIN) and `.noAddresses` (NODATA) as answered, live or from the cache,
    ///   with the negative TTL in seconds; `.resolverUnavailable` listing each endpoint's failure (and the
    ///   system resolver's) when nothing answered; `CancellationError` when the calling task is cancelled
    ///   while waiting.
    public func resolve(host: String, port: Int, families: AddressFamilies) async throws -> HostResolution {
        guard let name = HostName.normalize(host) else { throw ResolutionError.invalidHostName(host) }
        if let literal = IPAddress(name) {
            return HostResolution(host: name, addresses: [literal], ttl: nil, source: .literal)
        }
        if let addresses = staticResolver.addresses(host: name, port: port) {
            return HostResolution(host: name, addresses: addresses, ttl: nil, source: .staticMapping)
        }
        let key = ResolutionCache.Key(name: name, families: families)
        let now = clock.now()
        if let hit = state.withLock({ $0.cache.value(for: key, now: now) }) {
            return try Self.resolution(from: hit, name: name).get()
        }
        return try await sharedLookup(FlightKey(cacheKey: key, port: port))
    }

    /// The cached addresses for `host` with their remaining TTL (source `.cache`), or `nil` when none are
    /// cached or they have expired. Negative answers are not shown. Asks nothing.
    public func cachedResolution(host: String, families: AddressFamilies? = nil) -> HostResolution? {
        guard let name = HostName.normalize(host) else { return nil }
        let key = ResolutionCache.Key(name: name, families: families ?? configuration.families)
        let now = clock.now()
        guard let hit = state.withLock({ $0.cache.value(for: key, now: now) }),
              case .success(let resolution) = Self.resolution(from: hit, name: name)
        else { return nil }
        return resolution
    }

    /// Forgets every cached answer. Lookups already under way are not cached when they finish.
    public func flush() {
        state.withLock { state in
            state.cache.removeAll()
            state.flightByKey.removeAll()
        }
    }

    /// Forgets the cached answers for `host` (all family selections). A lookup of it already under way
    /// is not cached when it finishes.
    public func flush(host: String) {
        guard let name = HostName.normalize(host) else { return }
        state.withLock { state in
            state.cache.remove(name: name)
            state.flightByKey = state.flightByKey.filter { $0.key.cacheKey.name != name }
        }
    }

    // MARK: - Coalescing

    /// How many lookups wait on queries under way for the normalized `name` (lets tests see that
    /// concurrent lookups joined one query).
    func waitingLookups(name: String) -> Int {
        state.withLock { state in
            state.flights.values.filter { $0.key.cacheKey.name == name }.reduce(0) { $0 + $1.waiters.count }
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

    private struct State {
        var cache: ResolutionCache
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
    private struct Outcome: Sendable {
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

    private func sharedLookup(_ key: FlightKey) async throws -> HostResolution {
        let waiterID = state.withLock { $0.makeID() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                let now = clock.now()
                let admission = state.withLock { state -> Admission in
                    // Checked under the lock: the cancellation handler takes it too, so either it sees
                    // this waiter registered or this sees the task cancelled.
                    if Task.isCancelled { return .cancelled }
                    if let hit = state.cache.value(for: key.cacheKey, now: now) {
                        return .answered(Self.resolution(from: hit, name: key.cacheKey.name))
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
                if let value = outcome.cacheValue, let ttl = outcome.cacheTTL {
                    state.cache.insert(value, for: flight.key.cacheKey, ttl: ttl, now: now)
                }
            }
            return Array(flight.waiters.values)
        }
        let result = outcome.result.mapError { $0 as any Error }
        for waiter in waiters { waiter.resume(with: result) }
    }

    // MARK: - The query

    private func query(_ key: FlightKey) async -> Outcome {
        let name = key.cacheKey.name
        var reasons: [String] = []
        for endpoint in configuration.endpoints {
            do {
                let answer = try await client.lookup(
                    name, families: key.cacheKey.families, endpoint: endpoint, timeout: configuration.requestTimeout)
                return outcome(of: answer, name: name, endpoint: endpoint)
            } catch {
                switch error {
                case .invalidName:
                    return Outcome(result: .failure(.invalidHostName(name)))
                case .endpointFailed:
                    reasons.append(error.description)
                }
            }
        }
        if configuration.endpoints.isEmpty { reasons.append("no DoH endpoint configured") }
        guard configuration.fallbackToSystemResolver else {
            return Outcome(result: .failure(.resolverUnavailable(host: name, reasons: reasons)))
        }
        return await systemQuery(key, dohReasons: reasons)
    }

    private func outcome(of answer: DoHClient.Answer, name: String, endpoint: DoHEndpoint) -> Outcome {
        switch answer {
        case .addresses(let addresses, let ttl):
            let kept = min(max(ttl, configuration.minimumTTL), configuration.maximumTTL)
            let resolution = HostResolution(host: name, addresses: addresses, ttl: kept, source: .doh(endpoint: endpoint.url))
            return Outcome(result: .success(resolution), cacheTTL: kept, cacheValue: .addresses(addresses))
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

    private static func resolution(
        from hit: (value: ResolutionCache.Value, remaining: TimeInterval), name: String
    ) -> Result<HostResolution, ResolutionError> {
        switch hit.value {
        case .addresses(let addresses):
            .success(HostResolution(host: name, addresses: addresses, ttl: hit.remaining, source: .cache))
        case .nameNotFound:
            .failure(.nameNotFound(host: name, negativeTTL: hit.remaining))
        case .noAddresses:
            .failure(.noAddresses(host: name, negativeTTL: hit.remaining))
        }
    }
}
