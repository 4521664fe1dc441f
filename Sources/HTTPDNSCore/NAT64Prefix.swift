/// An IPv6 prefix that a NAT64 translator maps to the IPv4 internet, and the rule that embeds an
/// IPv4 address in it (RFC 6052 §2.2), so that an IPv6-only host reaches an IPv4-only server.
///
/// The prefix is 32, 40, 48, 56, 64 or 96 bits long. The IPv4 address's 32 bits follow it, except
/// that bits 64 to 71 (the "u" octet) are always zero and are skipped; the bits after the address
/// (the suffix) are zero. For /96 the address fills the last 32 bits:
///
/// | length | bytes of the IPv6 address holding the IPv4 octets |
/// | --- | --- |
/// | 32 | 4, 5, 6, 7 |
/// | 40 | 5, 6, 7, 9 |
/// | 48 | 6, 7, 9, 10 |
/// | 56 | 7, 9, 10, 11 |
/// | 64 | 9, 10, 11, 12 |
/// | 96 | 12, 13, 14, 15 |
public struct NAT64Prefix: Sendable, Hashable, CustomStringConvertible {
    /// The prefix lengths RFC 6052 §2.2 allows, in bits.
    public static let allowedLengths = [32, 40, 48, 56, 64, 96]
    /// The Well-Known Prefix, 64:ff9b::/96 (RFC 6052 §2.1).
    public static let wellKnown = NAT64Prefix(IPAddress("64:ff9b::")!, length: 96)!

    /// The prefix's address, bits past `length` zero.
    public let address: IPAddress
    /// The prefix length in bits: one of `allowedLengths`.
    public let length: Int

    /// - Returns: nil when `address` is not IPv6, `length` is not one of `allowedLengths`, or a /96
    ///   prefix's bits 64 to 71 are not zero (RFC 6052 §2.2: the "u" octet). Bits past `length`
    ///   are cleared.
    public init?(_ address: IPAddress, length: Int) {
        guard address.family == .ipv6, Self.allowedLengths.contains(length) else { return nil }
        var bytes = address.bytes
        for index in (length / 8)..<16 { bytes[index] = 0 }
        guard bytes[8] == 0, let masked = IPAddress(bytes: bytes) else { return nil }
        self.address = masked
        self.length = length
    }

    /// Parses `ADDRESS/LENGTH`, as `64:ff9b::/96`. nil for anything `init(_:length:)` refuses.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let address = IPAddress(parts[0]), let length = Int(parts[1]) else { return nil }
        self.init(address, length: length)
    }

    /// `64:ff9b::/96`.
    public var description: String { "\(address)/\(length)" }

    /// The bytes of the IPv6 address that hold the IPv4 octets, in order (the table above).
    var embeddingBytes: [Int] {
        length == 96 ? [12, 13, 14, 15] : (length / 8..<17).filter { $0 != 8 }.prefix(4).map { $0 }
    }

    /// The IPv4-embedded IPv6 address of `ipv4` (RFC 6052 §2.3); nil when `ipv4` is not IPv4.
    public func synthesize(_ ipv4: IPAddress) -> IPAddress? {
        guard ipv4.family == .ipv4 else { return nil }
        var bytes = address.bytes
        for (octet, index) in zip(ipv4.bytes, embeddingBytes) { bytes[index] = octet }
        return IPAddress(bytes: bytes)
    }

    /// The IPv4 address embedded in `ipv6` (RFC 6052 §2.3's extraction), when `ipv6` is under this
    /// prefix; nil otherwise.
    public func extract(_ ipv6: IPAddress) -> IPAddress? {
        guard ipv6.family == .ipv6, Array(ipv6.bytes[0..<(length / 8)]) == Array(address.bytes[0..<(length / 8)]) else { return nil }
        return IPAddress(bytes: embeddingBytes.map { ipv6.bytes[$0] })
    }
}
