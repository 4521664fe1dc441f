import Foundation
import HTTPDNSCore

extension HostResolver {
    /// Fills the cache with the file's `rows` (at most `cacheCapacity`, latest expiry first). A row's
    /// wall-clock expiry becomes one on the resolver's clock, capped at `maximumTTL` from now.
    func load(_ rows: [ResolverCacheStore.Row]) {
        let wallNow = Date().timeIntervalSince1970
        let now = clock.now()
        coalescer.ordered {
            for row in rows {
                let remaining = min(row.expires - wallNow, configuration.maximumTTL)
                let key = ResolutionCache.Key(name: row.name, families: row.families)
                cache.insert(.addresses(row.addresses), for: key, expires: now + remaining, provider: row.provider)
            }
        }
    }

    /// Notes an address answer for the cache file (written in the background; negative answers are
    /// short-lived and not kept).
    func persist(_ value: ResolutionCache.Value, for key: ResolutionCache.Key, ttl: TimeInterval, provider: String?) {
        guard let store, case .addresses(let addresses) = value else { return }
        let wallNow = Date().timeIntervalSince1970
        store.record(.init(name: key.name, families: key.families, addresses: addresses, expires: wallNow + ttl, stored: wallNow, provider: provider))
    }

    /// Writes the changes to the cache file not yet written (new answers, flushes) and returns when
    /// they are written. Lookups never wait for the file: a background writer writes changes as they
    /// come; call this before exiting so none is lost. When another process holds the file's lock
    /// for longer than `persistentCacheBusyTimeout`, it returns then, and the observer's warning says
    /// what was not saved (the writer goes on trying while the process runs).
    public func savePersistentCache() {
        store?.writeNow()
    }
}
