import HTTPDNSCore

/// Which address families to look up: A (IPv4, RFC 1035 §3.4.1), AAAA (IPv6, RFC 3596 §2.2), or both.
public enum AddressFamilies: String, Sendable, Hashable, CaseIterable {
    case ipv4
    case ipv6
    case both

    /// Whether addresses of `family` are wanted.
    public func includes(_ family: IPAddress.Family) -> Bool {
        switch self {
        case .both: true
        case .ipv4: family == .ipv4
        case .ipv6: family == .ipv6
        }
    }
}
