import Foundation
import HTTPDNSCore

/// What a provider said about a name's SVCB or HTTPS records (one query, no alias followed).
public enum ServiceBindingAnswer: Sendable, Hashable {
    /// The RRset owned by `owner` (the name asked for, or the end of its CNAME chain), in answer
    /// order, AliasMode records included; never empty. `ttl` in seconds.
    case records([ServiceBinding], owner: String, ttl: TimeInterval)
    /// No record of the type: NODATA. `negativeTTL` in seconds from the SOA (RFC 2308 §5), `nil`
    /// without one.
    case none(negativeTTL: TimeInterval?)
    /// NXDOMAIN (RFC 2308 §2.1): the name does not exist. `negativeTTL` as for `.none`.
    case nameNotFound(negativeTTL: TimeInterval?)
}
