/// A SvcParamKey of an SVCB or HTTPS record (RFC 9460 §14.3.2), as its 16-bit code.
///
/// Any code can be represented; the named constants are the keys this package decodes. Keys order by
/// their code, the order the wire format requires (RFC 9460 §2.2). `description` is the registered
/// name (`alpn`, `port`, …) or the generic `key<n>` form (RFC 9460 §2.1).
public struct ServiceParameterKey: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The 16-bit SvcParamKey code as it appears on the wire.
    public var rawValue: UInt16

    /// Wraps any 16-bit SvcParamKey code.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// `mandatory` (0): keys a client must understand to use the record (RFC 9460 §8).
    public static let mandatory = ServiceParameterKey(rawValue: 0)
    /// `alpn` (1): the ALPN protocol identifiers the service supports (RFC 9460 §7.1).
    public static let alpn = ServiceParameterKey(rawValue: 1)
    /// `no-default-alpn` (2): the scheme's default protocol (HTTP/1.1 for HTTPS) is not supported (RFC 9460 §7.1).
    public static let noDefaultALPN = ServiceParameterKey(rawValue: 2)
    /// `port` (3): the TCP or UDP port to connect to (RFC 9460 §7.2).
    public static let port = ServiceParameterKey(rawValue: 3)
    /// `ipv4hint` (4): IPv4 addresses of the TargetName (RFC 9460 §7.3).
    public static let ipv4Hint = ServiceParameterKey(rawValue: 4)
    /// `ech` (5): a TLS Encrypted ClientHello configuration list (draft-ietf-tls-svcb-ech).
    public static let ech = ServiceParameterKey(rawValue: 5)
    /// `ipv6hint` (6): IPv6 addresses of the TargetName (RFC 9460 §7.3).
    public static let ipv6Hint = ServiceParameterKey(rawValue: 6)
    /// `dohpath` (7): the URI template of a DNS-over-HTTPS service (RFC 9461 §5).
    public static let dohPath = ServiceParameterKey(rawValue: 7)

    /// Whether this key is one of the eight that `ServiceParameters` decodes into typed fields.
    public var isDecoded: Bool { rawValue <= 7 }

    /// The registered name (`mandatory`, `alpn`, `no-default-alpn`, `port`, `ipv4hint`, `ech`,
    /// `ipv6hint`, `dohpath`) or `key<n>` for other codes (RFC 9460 §2.1).
    public var description: String {
        switch rawValue {
        case 0: "mandatory"
        case 1: "alpn"
        case 2: "no-default-alpn"
        case 3: "port"
        case 4: "ipv4hint"
        case 5: "ech"
        case 6: "ipv6hint"
        case 7: "dohpath"
        default: "key\(rawValue)"
        }
    }

    /// Orders keys by their code (RFC 9460 §2.2: strictly increasing on the wire).
    public static func < (lhs: ServiceParameterKey, rhs: ServiceParameterKey) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
