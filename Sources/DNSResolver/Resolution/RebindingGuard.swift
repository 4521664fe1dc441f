import Foundation
import HTTPDNSCore

/// Which answers lose their local addresses: a public resolver has no business answering with an
/// address on the client's own network, and one that does lets a web page or a hostile name reach
/// the client's LAN, loopback or link-local services under a public name (DNS rebinding). dnsmasq's
/// `--stop-dns-rebind` and Chrome's Private Network Access guard against the same.
///
/// A local address is dropped from such an answer and reported (`ResolverObserver.warning`); an
/// answer left with no address becomes "no addresses" (NODATA, cached for the answer's TTL), so the
/// name is not handed to the system resolver to get the same address by another way.
public enum RebindingGuard: Sendable, Hashable {
    /// No answer is screened.
    case off
    /// Answers from the built-in public DoH services (`DoHEndpoint.wellKnown`, and the JSON DoH of
    /// `dns.google` and `cloudflare-dns.com`): the default. An endpoint of your own (a private DoH
    /// server for split-horizon names) is not screened.
    case publicResolvers
    /// Every provider's answers, vendor HTTPDNS APIs and endpoints of your own included.
    case allProviders

    /// The hosts of the built-in public resolvers.
    static let publicResolverHosts: Set<String> = Set(DoHEndpoint.wellKnown.compactMap { $0.url.host() }).union(["dns.google", "cloudflare-dns.com"])

    /// Whether answers from `provider` are screened.
    func screens(_ provider: any ResolutionProvider) -> Bool {
        switch self {
        case .off: false
        case .allProviders: true
        case .publicResolvers: provider.url.host().map { Self.publicResolverHosts.contains($0.lowercased()) } ?? false
        }
    }

    /// `answer` without its local addresses, and the ones it dropped.
    func screen(_ answer: ProviderAnswer) -> (answer: ProviderAnswer, dropped: [IPAddress]) {
        guard case .addresses(let addresses, let ttl) = answer else { return (answer, []) }
        let dropped = addresses.filter(Self.isLocal)
        guard !dropped.isEmpty else { return (answer, []) }
        let kept = addresses.filter { !Self.isLocal($0) }
        return (kept.isEmpty ? .noAddresses(negativeTTL: ttl) : .addresses(kept, ttl: ttl), dropped)
    }

    /// `answer` with the local addresses taken out of its records' `ipv4hint` and `ipv6hint`
    /// (a hint is an address to connect to, as an A record is), and the ones it dropped. A hint
    /// list left empty is removed.
    func screenHints(_ answer: ServiceBindingAnswer) -> (answer: ServiceBindingAnswer, dropped: [IPAddress]) {
        guard case .records(var records, let owner, let ttl) = answer else { return (answer, []) }
        var dropped: [IPAddress] = []
        for index in records.indices {
            for path in [\ServiceParameters.ipv4Hints, \ServiceParameters.ipv6Hints] {
                guard let hints = records[index].parameters[keyPath: path], hints.contains(where: Self.isLocal) else { continue }
                dropped += hints.filter(Self.isLocal)
                let kept = hints.filter { !Self.isLocal($0) }
                records[index].parameters[keyPath: path] = kept.isEmpty ? nil : kept
            }
        }
        return (dropped.isEmpty ? answer : .records(records, owner: owner, ttl: ttl), dropped)
    }

    /// Addresses that name the client's own host or network rather than a public server: IPv4
    /// 0.0.0.0/8, 10/8, 100.64/10 (shared address space, RFC 6598), 127/8, 169.254/16, 172.16/12,
    /// 192.168/16 and 224/4 and above; IPv6 `::`, `::1`, fc00::/7 (unique local), fe80::/10 (link-local),
    /// ff00::/8 (multicast), and IPv4-mapped addresses (`::ffff:0:0/96`) of those (RFC 6890's
    /// registries).
    public static func isLocal(_ address: IPAddress) -> Bool {
        let b = address.bytes
        if address.family == .ipv4 { return isLocalIPv4(b[0], b[1]) }
        if b.prefix(10).allSatisfy({ $0 == 0 }), b[10] == 0xFF, b[11] == 0xFF { return isLocalIPv4(b[12], b[13]) }
        if b.prefix(15).allSatisfy({ $0 == 0 }) { return b[15] <= 1 }
        return b[0] & 0xFE == 0xFC || (b[0] == 0xFE && b[1] & 0xC0 == 0x80) || b[0] == 0xFF
    }

    private static func isLocalIPv4(_ first: UInt8, _ second: UInt8) -> Bool {
        switch first {
        case 0, 10, 127: true
        case 100: second & 0xC0 == 64
        case 169: second == 254
        case 172: second & 0xF0 == 16
        case 192: second == 168
        case 224...: true
        default: false
        }
    }
}
