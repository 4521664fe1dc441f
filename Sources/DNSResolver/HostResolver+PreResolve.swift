import Foundation
import HTTPDNSCore

extension HostResolver {
    /// Resolves `hosts` into the cache ahead of use, in batches where the first available provider has
    /// a batch API (Alibaba-style `/resolve`, 5 names a request), else one by one concurrently. Names
    /// already cached are skipped. Replaces the vendor SDKs' pre-resolve calls (Alibaba EMAS
    /// HTTPDNS's `setPreResolveHosts`, Tencent Cloud HTTPDNS's `DnsConfig.Builder.preLookupDomains`).
    /// - Returns: The names now cached with addresses (normalized).
    @discardableResult
    public func preResolve(_ hosts: [String], families: AddressFamilies? = nil) async -> [String] {
        let families = concrete(families ?? configuration.families)
        let now = clock.now()
        var names: [String] = []
        for host in hosts {
            guard let name = HostName.normalize(host), IPAddress(name) == nil, !bypasses(name), !names.contains(name) else { continue }
            if cachedValue(for: ResolutionCache.Key(name: name, families: families), now: now) == nil { names.append(name) }
        }
        _ = await batchOutcomes(names, families: families)
        await withTaskGroup(of: Void.self) { group in
            for name in names where cachedResolution(host: name, families: families) == nil {
                group.addTask { _ = try? await self.resolve(host: name, port: 443, families: families) }
            }
        }
        return names.filter { cachedResolution(host: $0, families: families) != nil }
    }

    /// Waits for the pre-resolution of `Configuration.preResolveHosts` (started at creation) to end,
    /// for at most `limit` seconds when given (it goes on; only the wait ends). For a process about
    /// to exit, so the answers reach the cache file.
    /// - Returns: false when `limit` passed first.
    @discardableResult
    public func waitForPreResolution(within limit: TimeInterval? = nil) async -> Bool {
        guard let task = preResolution.withLock({ $0 }) else { return true }
        return await waitForAll([task], within: limit)
    }
}
