/// A DNS response code (RCODE, RFC 1035 §4.1.1), widened to the 12 bits EDNS allows: the header's
/// 4 low bits plus the OPT record's 8 extended bits (RFC 6891 §6.1.3).
///
/// `description` is the IANA mnemonic (`NOERROR`, `NXDOMAIN`, `SERVFAIL`, `REFUSED`, …) or
/// `RCODE<n>` for codes without one.
public struct DNSResponseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The full response code: `(extended << 4) | headerRCODE`, 0…4095.
    public var rawValue: UInt16

    /// Wraps any response code value.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// `NOERROR` (0): no error condition.
    public static let noError = DNSResponseCode(rawValue: 0)
    /// `FORMERR` (1): the server could not interpret the query.
    public static let formatError = DNSResponseCode(rawValue: 1)
    /// `SERVFAIL` (2): the server could not process the query (e.g. upstream failure, DNSSEC bogus).
    public static let serverFailure = DNSResponseCode(rawValue: 2)
    /// `NXDOMAIN` (3): the name does not exist (authoritative "name error", RFC 2308 §2.1).
    public static let nameError = DNSResponseCode(rawValue: 3)
    /// `NOTIMP` (4): the server does not support this kind of query.
    public static let notImplemented = DNSResponseCode(rawValue: 4)
    /// `REFUSED` (5): the server refuses to answer for policy reasons.
    public static let refused = DNSResponseCode(rawValue: 5)
    /// `BADVERS` (16): the EDNS version is not supported (RFC 6891 §6.1.3); needs the OPT record.
    public static let badVersion = DNSResponseCode(rawValue: 16)

    /// The IANA mnemonic, e.g. `NXDOMAIN`, `SERVFAIL`, `REFUSED`, or `RCODE<n>`.
    public var description: String {
        switch rawValue {
        case 0: "NOERROR"
        case 1: "FORMERR"
        case 2: "SERVFAIL"
        case 3: "NXDOMAIN"
        case 4: "NOTIMP"
        case 5: "REFUSED"
        case 6: "YXDOMAIN"
        case 7: "YXRRSET"
        case 8: "NXRRSET"
        case 9: "NOTAUTH"
        case 10: "NOTZONE"
        case 16: "BADVERS"
        case 23: "BADCOOKIE"
        default: "RCODE\(rawValue)"
        }
    }
}
