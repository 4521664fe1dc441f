/// The RDATA of a `DNSKEY` record (RFC 4034 §2): a zone's public key.
///
/// Wire form: flags (2 octets), protocol (1), algorithm (1), public key (the rest, in the algorithm's
/// own format: RFC 3110 for RSA, RFC 6605 §4 for ECDSA, RFC 8080 §3 for Ed25519).
public struct DNSKEY: Hashable, Sendable {
    /// The Zone Key flag (bit 7, RFC 4034 §2.1.1): only keys with it set may verify RRSIGs.
    public static let zoneKeyFlag: UInt16 = 0x0100
    /// The REVOKE flag (bit 8, RFC 5011 §3): the key must not be used.
    public static let revokeFlag: UInt16 = 0x0080
    /// The Secure Entry Point flag (bit 15, RFC 4034 §2.1.1): a hint that the key is a KSK; not
    /// significant for validation (RFC 4034 §2.1.1 says validators must not rely on it).
    public static let secureEntryPointFlag: UInt16 = 0x0001

    /// FLAGS.
    public var flags: UInt16
    /// PROTOCOL: must be 3; a key with another value is invalid for verification (RFC 4034 §2.1.2).
    public var `protocol`: UInt8
    /// ALGORITHM.
    public var algorithm: DNSSECAlgorithm
    /// The public key octets, in the algorithm's format.
    public var publicKey: [UInt8]

    /// A DNSKEY from its fields; `protocol` defaults to 3.
    public init(flags: UInt16, protocol: UInt8 = 3, algorithm: DNSSECAlgorithm, publicKey: [UInt8]) {
        self.flags = flags
        self.protocol = `protocol`
        self.algorithm = algorithm
        self.publicKey = publicKey
    }

    /// Parses DNSKEY RDATA (at least the 4 fixed octets; the key may be empty here, the validator
    /// rejects a key it cannot load).
    /// - Throws: `DNSSECRecordError.truncated`.
    public init(rdata: [UInt8]) throws(DNSSECRecordError) {
        var reader = DNSSECRDataReader(rdata, type: .dnskey)
        flags = try reader.readUInt16(field: "flags")
        `protocol` = try reader.readUInt8(field: "protocol")
        algorithm = DNSSECAlgorithm(rawValue: try reader.readUInt8(field: "algorithm"))
        publicKey = reader.readRest()
    }

    /// Whether the Zone Key flag is set.
    public var isZoneKey: Bool { flags & Self.zoneKeyFlag != 0 }
    /// Whether the REVOKE flag is set (RFC 5011).
    public var isRevoked: Bool { flags & Self.revokeFlag != 0 }
    /// Whether the Secure Entry Point flag is set (a KSK by convention).
    public var isSecureEntryPoint: Bool { flags & Self.secureEntryPointFlag != 0 }

    /// The RDATA in wire form, as RRSIG verification, DS digests and the key tag use it.
    public var rdata: [UInt8] {
        [UInt8(flags >> 8), UInt8(flags & 0xFF), `protocol`, algorithm.rawValue] + publicKey
    }

    /// The key tag (RFC 4034 Appendix B): the 16-bit checksum RRSIG and DS records name the key by.
    ///
    /// For algorithm 1 (RSA/MD5) it is the third- and second-to-last octets of the modulus
    /// (App. B.1); for every other algorithm the one's-complement-style sum of App. B.
    public var keyTag: UInt16 {
        let octets = rdata
        if algorithm == .rsaMD5 {
            guard publicKey.count >= 3 else { return 0 }
            return UInt16(publicKey[publicKey.count - 3]) << 8 | UInt16(publicKey[publicKey.count - 2])
        }
        var accumulator: UInt32 = 0
        for (index, octet) in octets.enumerated() {
            accumulator += index & 1 == 0 ? UInt32(octet) << 8 : UInt32(octet)
        }
        accumulator += accumulator >> 16 & 0xFFFF
        return UInt16(accumulator & 0xFFFF)
    }
}
