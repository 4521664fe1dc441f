import HTTPDNSCore

/// The EDNS Client Subnet option of a query (RFC 7871 §6): the part of a client's address a
/// resolver may use to pick an answer near it, or, with a source prefix of 0, a request that the
/// resolver use none of the client's address (§7.1.2).
///
/// Sent only when configured (`DoHEndpoint.clientSubnet`): RFC 7871 §11.1 warns that it reveals the
/// client's network to every server on the way. The defaults keep to its advice: 24 bits of an IPv4
/// address, 56 of an IPv6 address.
public struct EDNSClientSubnet: Sendable, Hashable, CustomStringConvertible {
    /// The EDNS option code (RFC 7871 §6).
    public static let optionCode: UInt16 = 8

    /// The address with every bit past `sourcePrefixLength` cleared (§6: they MUST be zero).
    public let address: IPAddress
    /// How many leading bits of `address` the resolver may use: 0...32 (IPv4) or 0...128 (IPv6).
    public let sourcePrefixLength: Int

    /// Why an option cannot be made.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// A prefix longer than the family's address (32 or 128 bits), or negative.
        case prefixLength(Int, family: IPAddress.Family)

        public var description: String {
            switch self {
            case .prefixLength(let length, let family):
                "a client-subnet prefix length must be 0...\(family == .ipv4 ? 32 : 128) for \(family == .ipv4 ? "IPv4" : "IPv6"), not \(length)"
            }
        }
    }

    /// - Parameters:
    ///   - address: The client's address (or any address of its network).
    ///   - sourcePrefixLength: Leading bits to reveal; nil: 24 for IPv4, 56 for IPv6 (RFC 7871 §11.1).
    /// - Throws: `Problem.prefixLength` for a length outside the family's range.
    public init(address: IPAddress, sourcePrefixLength: Int? = nil) throws(Problem) {
        let bits = address.family == .ipv4 ? 32 : 128
        let length = sourcePrefixLength ?? (address.family == .ipv4 ? 24 : 56)
        guard (0...bits).contains(length) else { throw .prefixLength(length, family: address.family) }
        var bytes = address.bytes
        for index in bytes.indices {
            let kept = max(0, min(8, length - index * 8))
            bytes[index] &= kept == 8 ? 0xFF : ~(0xFF >> kept)
        }
        self.address = IPAddress(bytes: bytes)!
        self.sourcePrefixLength = length
    }

    /// Parses `ADDRESS` or `ADDRESS/PREFIX` (`192.0.2.0/24`, `2001:db8::/56`).
    /// - Throws: `Problem.prefixLength`, or nil when the text is not of that form.
    public init?(parsing text: String) throws(Problem) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else { return nil }
        var length: Int?
        if parts.count == 2 {
            guard !parts[1].isEmpty, parts[1].utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), parts[1].utf8.count <= 3,
                let value = Int(parts[1])
            else { return nil }
            length = value
        }
        try self.init(address: address, sourcePrefixLength: length)
    }

    /// The option that asks the resolver to use none of the client's address: family 1, source prefix 0
    /// (RFC 7871 §7.1.2).
    public static let optOut = try! EDNSClientSubnet(address: IPAddress(bytes: [0, 0, 0, 0])!, sourcePrefixLength: 0)

    /// `ADDRESS/PREFIX`.
    public var description: String { "\(address)/\(sourcePrefixLength)" }

    /// The option's data: FAMILY (1 IPv4, 2 IPv6), SOURCE PREFIX-LENGTH, SCOPE PREFIX-LENGTH 0, and the
    /// address cut to the fewest octets that hold the prefix (§6).
    public var optionData: [UInt8] {
        let family: UInt16 = address.family == .ipv4 ? 1 : 2
        return [UInt8(family >> 8), UInt8(family & 0xFF), UInt8(sourcePrefixLength), 0] + address.bytes.prefix((sourcePrefixLength + 7) / 8)
    }
}
