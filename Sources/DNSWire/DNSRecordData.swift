import HTTPDNSCore

/// The decoded RDATA of a resource record (RFC 1035 §3.3, §4.1.3).
///
/// Only the types an address lookup needs are decoded; everything else is kept as its raw RDATA
/// octets. The names inside NS, PTR, MX, SRV, DNAME and the other types of RFC 3597 §4 are written
/// out uncompressed and lower-case, so the octets stand alone; DNSSEC types are read from them with
/// `DNSResourceRecord.dnssecData()`.
public enum DNSRecordData: Hashable, Sendable {
    /// Class `IN` type `A`: an IPv4 address (exactly 4 octets of RDATA, RFC 1035 §3.4.1).
    case a(IPAddress)
    /// Class `IN` type `AAAA`: an IPv6 address (exactly 16 octets of RDATA, RFC 3596 §2.2).
    case aaaa(IPAddress)
    /// `CNAME`: the canonical name (lower-case, no trailing dot; RFC 1035 §3.3.1).
    case cname(String)
    /// `SOA`: zone authority data (RFC 1035 §3.3.13).
    case soa(DNSSOA)
    /// `SVCB` (64) or `HTTPS` (65): a service binding (RFC 9460 §2.2), any class; the record's type says which.
    case serviceBinding(ServiceBinding)
    /// Any other type (including `OPT`, and `A`/`AAAA` outside class `IN`): the RDATA octets as received.
    case other([UInt8])
}
