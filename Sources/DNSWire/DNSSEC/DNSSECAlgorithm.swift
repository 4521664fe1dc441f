/// A DNSSEC signing algorithm number (RFC 4034 Appendix A.1, IANA "DNS Security Algorithm Numbers").
///
/// Any 8-bit value can be represented; the constants name the ones in use. Which of them a validator
/// can check is its own decision (see `DNSSECValidator` in the DNSSEC module).
public struct DNSSECAlgorithm: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The algorithm number as it appears in DNSKEY, RRSIG and DS RDATA.
    public var rawValue: UInt8

    /// Wraps any algorithm number.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// 1, RSA/MD5 (RFC 4034 App. A.1): deprecated; its key tag is computed differently (App. B.1).
    public static let rsaMD5 = DNSSECAlgorithm(rawValue: 1)
    /// 5, RSA/SHA-1 (RFC 3110).
    public static let rsaSHA1 = DNSSECAlgorithm(rawValue: 5)
    /// 7, RSA/SHA-1 for NSEC3 zones (RFC 5155 §2).
    public static let rsaSHA1NSEC3SHA1 = DNSSECAlgorithm(rawValue: 7)
    /// 8, RSA/SHA-256 (RFC 5702).
    public static let rsaSHA256 = DNSSECAlgorithm(rawValue: 8)
    /// 10, RSA/SHA-512 (RFC 5702).
    public static let rsaSHA512 = DNSSECAlgorithm(rawValue: 10)
    /// 13, ECDSA on P-256 with SHA-256 (RFC 6605).
    public static let ecdsaP256SHA256 = DNSSECAlgorithm(rawValue: 13)
    /// 14, ECDSA on P-384 with SHA-384 (RFC 6605).
    public static let ecdsaP384SHA384 = DNSSECAlgorithm(rawValue: 14)
    /// 15, Ed25519 (RFC 8080).
    public static let ed25519 = DNSSECAlgorithm(rawValue: 15)
    /// 16, Ed448 (RFC 8080).
    public static let ed448 = DNSSECAlgorithm(rawValue: 16)

    /// The IANA mnemonic (`RSASHA256`, `ECDSAP256SHA256`, `ED25519`, …) or the number.
    public var description: String {
        switch rawValue {
        case 1: "RSAMD5"
        case 3: "DSA"
        case 5: "RSASHA1"
        case 6: "DSA-NSEC3-SHA1"
        case 7: "RSASHA1-NSEC3-SHA1"
        case 8: "RSASHA256"
        case 10: "RSASHA512"
        case 12: "ECC-GOST"
        case 13: "ECDSAP256SHA256"
        case 14: "ECDSAP384SHA384"
        case 15: "ED25519"
        case 16: "ED448"
        default: "algorithm \(rawValue)"
        }
    }
}
