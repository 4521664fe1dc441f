import Foundation
import HTTPDNSCore

extension HostResolver {
    /// RFC 8767 serve-stale: a lookup of a name whose answer expired (within `maximumStaleAge`).
    ///
    /// During the failure recheck interval after a failed lookup, the stale answer is served at once
    /// (§4). Otherwise the fresh lookup (shared with any other) is raced against the client response
    /// timer on the resolver's clock (§5): a fresh answer, NXDOMAIN or NODATA wins as usual; when the
    /// timer fires first, or no resolver could be reached, the stale answer is served and the lookup
    /// goes on in the background to refresh the cache. A stale answer is reported to the observer by
    /// whoever hands it to the caller (`Served.reported(to:)`).
    func lookupServingStale(_ key: LookupCoalescer.Key, stale: Answer, started: TimeInterval) async throws -> Served {
        guard let settings = policy.serveStale else { return Served(resolution: try await sharedLookup(key)) }
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
            // An infinite timer is none: only a failure is answered stale.
            if settings.clientResponseTimeout.isFinite {
                group.addTask {
                    do {
                        try await self.clock.sleep(for: settings.clientResponseTimeout)
                        return .timer
                    } catch {
                        return .cancelled
                    }
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
            return Served(resolution: resolution)
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

    /// `stale` as the lookup's answer, with why, for the observer.
    func serve(_ stale: Answer, started: TimeInterval, reason: StaleAnswerReason) -> Served {
        var answer = stale
        answer.latency = clock.now() - started
        return Served(resolution: answer.resolution, staleReason: reason, expiredFor: answer.expiredFor)
    }

    /// A lookup's answer and, for a stale one, what the observer is to be told once the caller has it:
    /// `resolveBlocking` does not tell it of an answer that came after its caller gave up.
    struct Served: Sendable {
        var resolution: HostResolution
        var staleReason: StaleAnswerReason?
        /// For a stale answer: seconds since it expired.
        var expiredFor: TimeInterval = 0

        /// `resolution`, the observer told of it first if it is stale.
        func reported(to observer: (any ResolverObserver)?) -> HostResolution {
            if let staleReason {
                observer?.staleAnswerServed(host: resolution.host, resolution: resolution, expiredFor: expiredFor, reason: staleReason)
            }
            return resolution
        }
    }
}
