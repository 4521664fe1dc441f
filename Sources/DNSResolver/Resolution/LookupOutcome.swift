import Foundation
import HTTPDNSCore

/// What one query produced (`HostResolver`'s providers, then the system resolver), and how long to
/// cache it: `cacheTTL` nil or 0 means not at all.
struct LookupOutcome: Sendable {
    var result: Result<HostResolution, ResolutionError>
    var cacheTTL: TimeInterval? = nil
    var cacheValue: ResolutionCache.Value? = nil
}
