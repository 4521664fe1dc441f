/// The SvcParams of an SVCB or HTTPS record (RFC 9460 §2.2, §7; RFC 9461 §5), decoded.
///
/// A field is `nil` (or `false`) when its key is absent. The wire codec in `DNSWire` enforces the
/// RFC's rules when it reads or writes these (non-empty values, exact lengths, `mandatory` listing
/// only keys that are present, `no-default-alpn` only beside `alpn`, a `dohpath` template with a
/// `dns` variable); a value built by hand is only checked when it is encoded.
public struct ServiceParameters: Hashable, Sendable {
    /// `mandatory` (key 0): keys a client must understand to use the record, ascending, never
    /// `mandatory` itself (RFC 9460 §8).
    public var mandatory: [ServiceParameterKey]?
    /// `alpn` (key 1): ALPN protocol identifiers as octets (opaque per RFC 7301 §6), in the
    /// server's order of preference; each is 1–255 octets. See `alpnProtocols` for text.
    public var alpn: [[UInt8]]?
    /// `no-default-alpn` (key 2): the scheme's default protocol (HTTP/1.1 for HTTPS records) is
    /// not offered; only `alpn`'s protocols are (RFC 9460 §7.1.2).
    public var noDefaultALPN: Bool
    /// `port` (key 3): the port to connect to instead of the scheme's default (RFC 9460 §7.2).
    public var port: UInt16?
    /// `ipv4hint` (key 4): IPv4 addresses of the TargetName, for use before its A answer arrives (RFC 9460 §7.3).
    public var ipv4Hints: [IPAddress]?
    /// `ech` (key 5): the ECHConfigList octets, kept as received (draft-ietf-tls-svcb-ech).
    public var ech: [UInt8]?
    /// `ipv6hint` (key 6): IPv6 addresses of the TargetName, for use before its AAAA answer arrives (RFC 9460 §7.3).
    public var ipv6Hints: [IPAddress]?
    /// `dohpath` (key 7): a relative URI template such as `/dns-query{?dns}` (RFC 9461 §5).
    public var dohPath: String?
    /// Keys this package does not decode (8 and above), with their values' octets as received.
    /// Keys 0–7 are rejected here by the encoder; set the typed field instead.
    public var unknown: [ServiceParameterKey: [UInt8]]

    /// Parameters with the given fields; every key defaults to absent.
    public init(
        mandatory: [ServiceParameterKey]? = nil,
        alpn: [[UInt8]]? = nil,
        noDefaultALPN: Bool = false,
        port: UInt16? = nil,
        ipv4Hints: [IPAddress]? = nil,
        ech: [UInt8]? = nil,
        ipv6Hints: [IPAddress]? = nil,
        dohPath: String? = nil,
        unknown: [ServiceParameterKey: [UInt8]] = [:]
    ) {
        self.mandatory = mandatory
        self.alpn = alpn
        self.noDefaultALPN = noDefaultALPN
        self.port = port
        self.ipv4Hints = ipv4Hints
        self.ech = ech
        self.ipv6Hints = ipv6Hints
        self.dohPath = dohPath
        self.unknown = unknown
    }

    /// Parameters with `alpn` set from protocol names such as `"h2"` and `"http/1.1"`, and the other fields given.
    public init(alpnProtocols: [String], port: UInt16? = nil, ipv4Hints: [IPAddress]? = nil, ipv6Hints: [IPAddress]? = nil) {
        self.init(alpn: alpnProtocols.map { Array($0.utf8) }, port: port, ipv4Hints: ipv4Hints, ipv6Hints: ipv6Hints)
    }

    /// `alpn` as text (`["h2", "h3"]`); empty when `alpn` is absent. Identifiers that are not
    /// UTF-8 are decoded with replacement characters, so match on `alpn` to compare exactly.
    public var alpnProtocols: [String] {
        (alpn ?? []).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The keys present, ascending (the wire order, RFC 9460 §2.2).
    public var keys: [ServiceParameterKey] {
        var keys: [ServiceParameterKey] = []
        if mandatory != nil { keys.append(.mandatory) }
        if alpn != nil { keys.append(.alpn) }
        if noDefaultALPN { keys.append(.noDefaultALPN) }
        if port != nil { keys.append(.port) }
        if ipv4Hints != nil { keys.append(.ipv4Hint) }
        if ech != nil { keys.append(.ech) }
        if ipv6Hints != nil { keys.append(.ipv6Hint) }
        if dohPath != nil { keys.append(.dohPath) }
        return (keys + unknown.keys.filter { !$0.isDecoded }).sorted()
    }

    /// Whether no key is present.
    public var isEmpty: Bool { keys.isEmpty && unknown.isEmpty }

    /// Whether `key` is present.
    public func contains(_ key: ServiceParameterKey) -> Bool {
        switch key {
        case .mandatory: mandatory != nil
        case .alpn: alpn != nil
        case .noDefaultALPN: noDefaultALPN
        case .port: port != nil
        case .ipv4Hint: ipv4Hints != nil
        case .ech: ech != nil
        case .ipv6Hint: ipv6Hints != nil
        case .dohPath: dohPath != nil
        default: unknown[key] != nil
        }
    }
}

extension ServiceParameters {
    /// The keys this client can honour when a record makes them `mandatory` (RFC 9460 §8): every
    /// decoded key but `ech`, which it reads but cannot use (OpenSSL 3.0 has no Encrypted ClientHello).
    package static let supportedMandatoryKeys: Set<ServiceParameterKey> = [.mandatory, .alpn, .noDefaultALPN, .port, .ipv4Hint, .ipv6Hint, .dohPath]

    /// The first key of `mandatory` this client cannot honour, so that the record must be passed
    /// over (RFC 9460 §8); nil when it can use them all.
    package var unsupportedMandatoryKey: ServiceParameterKey? {
        mandatory?.first { !Self.supportedMandatoryKeys.contains($0) }
    }
}
