import Foundation
import HTTPDNSCore

/// What a provider (RFC 8484 DoH, JSON DoH, a vendor HTTPDNS API) said about a name: a DNS outcome,
/// never a failure of the provider (`ProviderFailure`).
public enum ProviderAnswer: Sendable, Hashable {
    /// The name's addresses, IPv6 first then IPv4, each family in answer order (never empty).
    /// `ttl` in seconds: the least TTL over the records used, from both families when both answered.
    case addresses([IPAddress], ttl: TimeInterval)
    /// NXDOMAIN (RFC 1035 §4.1.1, RFC 2308 §2.1). `negativeTTL` in seconds from the SOA (RFC 2308 §5),
    /// `nil` when the response has none.
    case nameNotFound(negativeTTL: TimeInterval?)
    /// The name exists but has no address of the requested families (NODATA, RFC 2308 §2.2).
    case noAddresses(negativeTTL: TimeInterval?)
}
