import Foundation
import HTTPDNSCore

extension HostResolver {
    /// Fills the cache from the file: at most `cacheCapacity` rows, latest expiry first. A row's wall-clock
    /// expiry becomes one on the resolver's clock, capped at `maximumTTL` from now.
    func loadPersistentCache() {
        guard let store else { return }
        let rows = store.load(limit: configuration.cacheCapacity)
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
    /// come; call this before exiting so none is lost. Failures are reported to the observer.
    public func savePersistentCache() {
        store?.writeNow()
    }
}
