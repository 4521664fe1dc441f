import Foundation
import HTTPDNSCore

extension HostResolver {
    /// RFC 8767 serve-stale: a lookup of a name whose answer expired (within `maximumStaleAge`).
    ///
    /// During the failure recheck interval after a failed lookup, the stale answer is served at once
    /// (§4). Otherwise the fresh lookup (shared with any other) is raced against the client response
    /// timer on the resolver's clock (§5): a fresh answer, NXDOMAIN or NODATA wins as usual; when the
    /// timer fires first, or no resolver could be reached, the stale answer is served and the lookup
    /// goes on in the background to refresh the cache.
    func lookupServingStale(_ key: LookupCoalescer.Key, stale: Answer, started: TimeInterval) async throws -> HostResolution {
        guard let settings = policy.serveStale else { return try await sharedLookup(key) }
        if let until = staleHolds.withLock({ $0[key.cacheKey] }), clock.now() < until {
            return serve(stale, started: started, reason: .failureRecheck)
        }
        enum Race: Sendable {
            case fresh(HostResolution)
            case failed(any Error)
            case timer
            case cancelled
        }
        let first = await withTaskGroup(of: Race.self) { group -> Race in
            group.addTask {
                do { return .fresh(try await self.sharedLookup(key)) } catch { return .failed(error) }
            }
            group.addTask {
                do {
                    try await self.clock.sleep(for: settings.clientResponseTimeout)
                    return .timer
                } catch {
                    return .cancelled
                }
            }
            let first = await group.next() ?? .cancelled
            // Leaving the shared lookup does not stop it: it refreshes the cache for later lookups.
            group.cancelAll()
            return first
        }
        switch first {
        case .fresh(var resolution):
            if resolution.source != .cache { resolution.latency = clock.now() - started }
            return resolution
        case .failed(let error) where CachePolicy.servesStale(after: error):
            staleHolds.withLock { $0[key.cacheKey] = clock.now() + settings.failureRecheckInterval }
            return serve(stale, started: started, reason: .lookupFailed)
        case .failed(let error):
            throw error
        case .timer:
            return serve(stale, started: started, reason: .clientResponseTimeout)
        case .cancelled:
            throw CancellationError()
        }
    }

    /// `stale` as the lookup's answer, with the observer told why.
    func serve(_ stale: Answer, started: TimeInterval, reason: StaleAnswerReason) -> HostResolution {
        var answer = stale
        answer.latency = clock.now() - started
        let resolution = answer.resolution
        configuration.observer?.staleAnswerServed(host: answer.host, resolution: resolution, expiredFor: answer.expiredFor, reason: reason)
        return resolution
    }
}
