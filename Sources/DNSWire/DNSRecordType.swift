/// A resource record TYPE or question QTYPE (RFC 1035 §3.2.2, §3.2.3), as its 16-bit code.
///
/// Any code can be represented; the named constants cover the types this package reads or writes.
/// `description` is the mnemonic (`A`, `AAAA`, `CNAME`) or the RFC 3597 §5 generic form `TYPE123`.
public struct DNSRecordType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 16-bit TYPE code as it appears on the wire.
    public var rawValue: UInt16

    /// Wraps any 16-bit TYPE code.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// `A` (1): an IPv4 address, 4 octets of RDATA (RFC 1035 §3.4.1).
    public static let a = DNSRecordType(rawValue: 1)
    /// `NS` (2): an authoritative name server (RFC 1035 §3.3.11).
    public static let ns = DNSRecordType(rawValue: 2)
    /// `CNAME` (5): the canonical name for an alias (RFC 1035 §3.3.1).
    public static let cname = DNSRecordType(rawValue: 5)
    /// `SOA` (6): start of a zone of authority; carries the negative-caching TTL (RFC 1035 §3.3.13, RFC 2308 §4).
    public static let soa = DNSRecordType(rawValue: 6)
    /// `PTR` (12): a domain name pointer (RFC 1035 §3.3.12).
    public static let ptr = DNSRecordType(rawValue: 12)
    /// `MX` (15): mail exchange (RFC 1035 §3.3.9).
    public static let mx = DNSRecordType(rawValue: 15)
    /// `TXT` (16): text strings (RFC 1035 §3.3.14).
    public static let txt = DNSRecordType(rawValue: 16)
    /// `AAAA` (28): an IPv6 address, 16 octets of RDATA (RFC 3596 §2.2).
    public static let aaaa = DNSRecordType(rawValue: 28)
    /// `SRV` (33): service location (RFC 2782).
    public static let srv = DNSRecordType(rawValue: 33)
    /// `DNAME` (39): redirection of a subtree (RFC 6672).
    public static let dname = DNSRecordType(rawValue: 39)
    /// `OPT` (41): the EDNS(0) pseudo-record in the additional section (RFC 6891 §6.1).
    public static let opt = DNSRecordType(rawValue: 41)
    /// `DS` (43): delegation signer, a parent's digest of a child's DNSKEY (RFC 4034 §5).
    public static let ds = DNSRecordType(rawValue: 43)
    /// `RRSIG` (46): a signature over an RRset (RFC 4034 §3).
    public static let rrsig = DNSRecordType(rawValue: 46)
    /// `NSEC` (47): authenticated denial of existence (RFC 4034 §4).
    public static let nsec = DNSRecordType(rawValue: 47)
    /// `DNSKEY` (48): a zone's public key (RFC 4034 §2).
    public static let dnskey = DNSRecordType(rawValue: 48)
    /// `NSEC3` (50): hashed authenticated denial of existence (RFC 5155 §3).
    public static let nsec3 = DNSRecordType(rawValue: 50)
    /// `NSEC3PARAM` (51): NSEC3 parameters for authoritative servers (RFC 5155 §4).
    public static let nsec3param = DNSRecordType(rawValue: 51)
    /// `SVCB` (64): service binding (RFC 9460).
    public static let svcb = DNSRecordType(rawValue: 64)
    /// `HTTPS` (65): service binding for HTTPS origins (RFC 9460 §9).
    public static let https = DNSRecordType(rawValue: 65)

    /// The mnemonic (`A`, `AAAA`, `CNAME`, …) or `TYPE<n>` for codes without one (RFC 3597 §5).
    public var description: String {
        switch rawValue {
        case 1: "A"
        case 2: "NS"
        case 5: "CNAME"
        case 6: "SOA"
        case 12: "PTR"
        case 15: "MX"
        case 16: "TXT"
        case 28: "AAAA"
        case 33: "SRV"
        case 39: "DNAME"
        case 41: "OPT"
        case 43: "DS"
        case 46: "RRSIG"
        case 47: "NSEC"
        case 48: "DNSKEY"
        case 50: "NSEC3"
        case 51: "NSEC3PARAM"
        case 64: "SVCB"
        case 65: "HTTPS"
        default: "TYPE\(rawValue)"
        }
    }
}
