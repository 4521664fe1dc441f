import Foundation
import HTTPDNSCore

/// What one query produced (`HostResolver`'s providers, then the system resolver), and how long to
/// cache it: `cacheTTL` nil or 0 means not at all.
struct LookupOutcome: Sendable {
    var result: Result<HostResolution, ResolutionError>
    var cacheTTL: TimeInterval? = nil
    var cacheValue: ResolutionCache.Value? = nil
    /// What DNSSEC validation made of the answer, kept with it in the cache; nil when not validated.
    var dnssec: DNSSECStatus? = nil
}
