import Foundation
import HTTPDNSCore

extension HostResolver {
    /// Resolves several names as `resolve(host:port:families:)` resolves each, but asks the first
    /// available provider for the names no literal, static entry, bypass or fresh cache entry
    /// answers in batches, where it has a batch API (`ResolutionProvider.batchLimit` names a
    /// request: Alibaba-style `resolve`, 5; Tencent `dn=a,b,...`, 8). A name the batch leaves out or
    /// fails for is then resolved alone, with the usual failover, fallback and serve-stale.
    /// - Parameters:
    ///   - hosts: Host names or IP literals, in any form `resolve(host:port:)` takes.
    ///   - port: The port the caller will connect to (for static entries).
    ///   - families: The families wanted; nil: `Configuration.families`.
    /// - Returns: One result per host, in order: the resolution, or the error `resolve(host:port:families:)`
    ///   throws for it (`ResolutionError`, `CancellationError`).
    public func resolve(hosts: [String], port: Int, families: AddressFamilies? = nil) async -> [Result<HostResolution, any Error>] {
        let wanted = families ?? configuration.families
        let batchFamilies = concrete(wanted)
        let now = clock.now()
        var pending: [String] = []
        for host in hosts {
            guard let name = HostName.normalize(host), IPAddress(name) == nil, !bypasses(name), !pending.contains(name) else { continue }
            if hasStaticEntries, staticResolver.addresses(host: name, port: port) != nil { continue }
            if cachedValue(for: ResolutionCache.Key(name: name, families: batchFamilies), now: now) == nil { pending.append(name) }
        }
        let outcomes = pending.count > 1 ? await batchOutcomes(pending, families: batchFamilies) : [:]
        var results: [Result<HostResolution, any Error>] = []
        for host in hosts {
            if let name = HostName.normalize(host), let outcome = outcomes[name] {
                results.append(outcome.result.mapError { $0 })
                continue
            }
            do {
                results.append(.success(try await resolve(host: host, port: port, families: wanted)))
            } catch {
                results.append(.failure(error))
            }
        }
        return results
    }

    /// Asks the first available provider for `names` in batches (nothing when it has no batch API),
    /// caches each answer with a TTL above 0 (as `resolve` would), and tells the observer of each.
    /// Names under a DNSSEC policy other than off are left to the validated lookup: the batch APIs
    /// are vendor APIs, which carry no signatures.
    /// - Returns: The outcome for each name the provider answered.
    func batchOutcomes(_ names: [String], families: AddressFamilies) async -> [String: LookupOutcome] {
        let names = dnssecChain == nil ? names : names.filter { configuration.dnssec.policy(for: $0) == .off }
        guard !names.isEmpty else { return [:] }
        let started = clock.now()
        guard let (answers, provider) = await providers.batchLookup(names, families: families) else { return [:] }
        let stamp = clock.now()
        var outcomes: [String: LookupOutcome] = [:]
        for (name, answer) in answers {
            var outcome = policy.outcome(of: answer, name: name, provider: provider)
            if case .success(var resolution) = outcome.result {
                resolution.latency = stamp - started
                outcome.result = .success(resolution)
            }
            outcomes[name] = outcome
            configuration.observer?.providerAnswered(host: name, provider: provider.kind, endpoint: provider.url, latency: stamp - started, answer: answer)
            guard let value = outcome.cacheValue, let ttl = outcome.cacheTTL, ttl > 0 else { continue }
            let key = ResolutionCache.Key(name: name, families: families)
            coalescer.ordered {
                cache.insert(value, for: key, ttl: ttl, now: stamp, provider: provider.kind)
                persist(value, for: key, ttl: ttl, provider: provider.kind)
            }
        }
        return outcomes
    }
}
