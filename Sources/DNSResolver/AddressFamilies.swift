import HTTPDNSCore

/// Which address families to look up: A (IPv4, RFC 1035 §3.4.1), AAAA (IPv6, RFC 3596 §2.2), both, or
/// `auto`: the families this host has a route for (decided by `HostResolver` when it looks up).
public enum AddressFamilies: String, Sendable, Hashable, CaseIterable {
    case ipv4
    case ipv6
    case both
    /// The families with a route from this host, like `AI_ADDRCONFIG` but by route rather than by
    /// configured address (see `RouteProbe`); `both` when neither or both have one.
    case auto

    /// Whether addresses of `family` are wanted.
    public func includes(_ family: IPAddress.Family) -> Bool {
        switch self {
        case .both, .auto: true
        case .ipv4: family == .ipv4
        case .ipv6: family == .ipv6
        }
    }
}
