import Foundation
import HTTPDNSCore

/// Finds the network's NAT64 prefix the way RFC 7050 §3 says: the AAAA records of `ipv4only.arpa`
/// asked of the network's own resolver (a DNS64 synthesizes them from its A records, the
/// well-known addresses 192.0.0.170 and 192.0.0.171), and the prefix read back from where those
/// addresses sit in each answer (RFC 6052 §2.2's lengths). RFC 8880 §7.2 makes `ipv4only.arpa` a
/// name for the network's resolver, never a DoH provider's: only the network's DNS64 knows its prefix.
public struct NAT64PrefixDiscovery: Sendable {
    /// `ipv4only.arpa` (RFC 7050 §2.2, RFC 8880 §2).
    public static let wellKnownName = "ipv4only.arpa"
    /// 192.0.0.170 and 192.0.0.171, its A records (RFC 7050 §2.2).
    public static let wellKnownAddresses = [IPAddress("192.0.0.170")!, IPAddress("192.0.0.171")!]

    /// The network's resolver, asked for AAAA records only. Default: the system resolver
    /// (`getaddrinfo`, `AF_INET6`), which asks the servers of `/etc/resolv.conf`.
    public var resolver: any HostResolving

    public init(resolver: any HostResolving = SystemResolver(families: .ipv6)) {
        self.resolver = resolver
    }

    /// Asks for `ipv4only.arpa`'s AAAA records and reads the prefixes from them.
    /// - Returns: The prefixes found, in the answer's order without repeats; empty when the name
    ///   has no AAAA record (no DNS64 on the network), the lookup failed, or no answer holds a
    ///   well-known address.
    public func discover() async -> [NAT64Prefix] {
        guard let resolution = try? await resolver.resolve(host: Self.wellKnownName, port: 0) else { return [] }
        return Self.prefixes(in: resolution.addresses)
    }

    /// The prefixes `addresses` (AAAA answers for `ipv4only.arpa`) were synthesized in: for each
    /// IPv6 address, the prefix lengths at which a well-known address is embedded. When it fits at
    /// more than one length (a prefix whose own bits repeat its octets), the longest is taken: /96,
    /// the Well-Known Prefix's, is by far the most deployed.
    public static func prefixes(in addresses: [IPAddress]) -> [NAT64Prefix] {
        var found: [NAT64Prefix] = []
        for address in addresses where address.family == .ipv6 {
            let candidates = NAT64Prefix.allowedLengths.reversed().compactMap { length -> NAT64Prefix? in
                guard let prefix = NAT64Prefix(address, length: length), let embedded = prefix.extract(address),
                    wellKnownAddresses.contains(embedded), prefix.synthesize(embedded) == address
                else { return nil }
                return prefix
            }
            if let prefix = candidates.first, !found.contains(prefix) { found.append(prefix) }
        }
        return found
    }
}
