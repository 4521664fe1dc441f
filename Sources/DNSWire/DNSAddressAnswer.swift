import HTTPDNSCore

/// What a response says about the addresses of one name, as `DNSMessage.addressAnswer(for:type:)`
/// reads it. DNS outcomes only: network and parse failures are reported elsewhere.
public enum DNSAddressAnswer: Hashable, Sendable {
    /// The addresses at the end of the CNAME chain, in message order without duplicates (never empty).
    /// `ttl` is in seconds: the minimum over every CNAME used on the chain and the address records.
    /// `canonicalName` is the name that owns the addresses (the query name when there is no CNAME).
    case addresses([IPAddress], ttl: UInt32, canonicalName: String)
    /// NXDOMAIN (RCODE 3): the name, or the end of its CNAME chain, does not exist (RFC 2308 §2.1,
    /// RFC 6604). `negativeTTL` in seconds is the lesser of the authority SOA's TTL and its MINIMUM
    /// (RFC 2308 §5); `nil` when the response carries no SOA for the name.
    case nameError(negativeTTL: UInt32?)
    /// NOERROR but no address of the requested type at the end of the chain (NODATA, RFC 2308 §2.2).
    /// `negativeTTL` as for `nameError`.
    case noData(negativeTTL: UInt32?)
    /// Any other RCODE (SERVFAIL, REFUSED, FORMERR, NOTIMP, …). A CNAME loop in an otherwise NOERROR
    /// answer is reported as `SERVFAIL`, as a recursive resolver would.
    case failure(DNSResponseCode)
    /// The TC bit is set (RFC 1035 §4.1.1): the answer is incomplete and must not be used or cached.
    case truncated
}
