/// A DS digest type (RFC 4034 §5.1.3, IANA "Delegation Signer (DS) Resource Record Digest Algorithms").
public struct DNSSECDigestType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The digest type number as it appears in DS RDATA.
    public var rawValue: UInt8

    /// Wraps any digest type number.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// 1, SHA-1 (RFC 4034 App. A.2), 20 octets.
    public static let sha1 = DNSSECDigestType(rawValue: 1)
    /// 2, SHA-256 (RFC 4509), 32 octets.
    public static let sha256 = DNSSECDigestType(rawValue: 2)
    /// 4, SHA-384 (RFC 6605), 48 octets.
    public static let sha384 = DNSSECDigestType(rawValue: 4)

    /// The digest length in octets for the types above; `nil` for others.
    public var digestLength: Int? {
        switch rawValue {
        case 1: 20
        case 2: 32
        case 3: 32
        case 4: 48
        default: nil
        }
    }

    /// `SHA-1`, `SHA-256`, `GOST R 34.11-94`, `SHA-384`, or the number.
    public var description: String {
        switch rawValue {
        case 1: "SHA-1"
        case 2: "SHA-256"
        case 3: "GOST R 34.11-94"
        case 4: "SHA-384"
        default: "digest type \(rawValue)"
        }
    }
}
