import HTTPDNSCore

/// Whether `HostResolver` synthesizes IPv6 addresses from a name's IPv4 ones on an IPv6-only
/// network (one with an IPv6 route and no IPv4 route, by `Configuration.routeProbe`), so that a
/// connection to an IPv4-only server goes through the network's NAT64 (RFC 6146) without a DNS64.
///
/// When it applies, a lookup asks for both families; an answer with IPv6 addresses keeps those
/// alone, one with only IPv4 addresses gets each embedded in the prefix (RFC 6052 §2.3), and
/// `HostResolution.nat64Prefix` says so. IPv4 literals are synthesized too (RFC 8305 §7.1). The
/// cache keeps the answer as the provider gave it; synthesis happens as it is returned.
public enum NAT64Synthesis: Sendable, Hashable {
    /// Never (the default).
    case off
    /// With the prefix RFC 7050 discovery finds (`NAT64PrefixDiscovery`), asked once when first
    /// needed and again after each network change (`HostResolver.networkChanged(_:)`); nothing is
    /// synthesized when it finds none.
    case discover
    /// With this prefix, e.g. `NAT64Prefix.wellKnown`.
    case prefix(NAT64Prefix)
}
