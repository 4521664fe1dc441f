import Foundation
import HTTPDNSCore

extension HostResolver {
    /// Applies `Configuration.networkChangePolicy` to the cache after the host's network changed,
    /// and probes the address families again (`reprobeFamilies()`) first, on the calling thread;
    /// a discovered NAT64 prefix is forgotten (the next lookup that needs one asks again).
    ///
    /// With `.reresolve` the names cached with addresses are collected, the cache is flushed, and a
    /// background task resolves `Configuration.preResolveHosts` (all of them, cached or not), then
    /// the other collected names (16 at a time), for `Configuration.families` (probed afresh for `.auto`);
    /// `waitForNetworkChangeReresolution(within:)` waits for it. A re-resolution still running from
    /// an earlier change is cancelled. The observer is told (`networkChanged`) before any of it.
    /// - Parameter change: What the monitor saw; the policy does not depend on it (every change of
    ///   address or route counts), the observer gets it.
    public func networkChanged(_ change: NetworkChange) {
        let families = reprobeFamilies()
        forgetNAT64Prefix()
        let policy = configuration.networkChangePolicy
        configuration.observer?.networkChanged(change, families: families, policy: policy)
        switch policy {
        case .none:
            return
        case .flush:
            flush()
        case .reresolve:
            let first = configuration.preResolveHosts.compactMap(HostName.normalize)
            var others: [String] = []
            for (key, entry) in cache.entries {
                guard case .addresses = entry.value, !first.contains(key.name), !others.contains(key.name) else { continue }
                others.append(key.name)
            }
            flush()
            let task = Task {
                _ = await self.preResolve(first)
                // In groups, so a full cache does not start a thousand lookups at once.
                let rest = others.sorted()
                for start in stride(from: 0, to: rest.count, by: Self.reresolutionGroup) {
                    guard !Task.isCancelled else { return }
                    _ = await self.preResolve(Array(rest[start..<min(rest.count, start + Self.reresolutionGroup)]))
                }
            }
            networkReresolution.withLock { running in
                running?.cancel()
                running = task
            }
        }
    }

    /// How many names of the cache `.reresolve` resolves at once (the pre-resolve list goes first, whole).
    static let reresolutionGroup = 16

    /// Probes which address families have a route (`Configuration.routeProbe`), on the calling
    /// thread (so in its network namespace), and keeps the result for `AddressFamilies.auto`: from
    /// then on a lookup of `.auto` uses it instead of probing, until the next call.
    /// - Returns: The families probed: `.ipv4`, `.ipv6` or `.both`.
    @discardableResult
    public func reprobeFamilies() -> AddressFamilies {
        let families = configuration.routeProbe.families()
        probedFamilies.withLock { $0 = families }
        return families
    }

    /// Waits for the re-resolution the last network change started (`.reresolve`), for at most
    /// `limit` seconds when given (it goes on; only the wait ends).
    /// - Returns: false when `limit` passed first.
    @discardableResult
    public func waitForNetworkChangeReresolution(within limit: TimeInterval? = nil) async -> Bool {
        guard let task = networkReresolution.withLock({ $0 }) else { return true }
        return await waitForAll([task], within: limit)
    }
}
