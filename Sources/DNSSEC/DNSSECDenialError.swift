import DNSWire

/// What a denial of existence (RFC 4035 §5.4, RFC 5155 §8) lacks, as `DNSSECValidationError.missingDenialProof` reports it.
public enum DNSSECDenialGap: Hashable, Sendable, CustomStringConvertible {
    /// No NSEC or NSEC3 record of the zone was given.
    case noRecords
    /// No NSEC or NSEC3 record covers (or matches) the name.
    case nameNotCovered(String)
    /// The name exists: a record matches it, so it cannot be NXDOMAIN.
    case nameExists(String)
    /// The wildcard at the closest encloser (`*.<encloser>`) is not shown absent.
    case wildcardNotDenied(String)
    /// The record at the name lists the type asked for.
    case typeExists(DNSRecordType)
    /// The record at the name lists CNAME, so the answer should have followed it.
    case cnameExists
    /// The only record at the name is the parent side of a delegation (NS without SOA), which proves
    /// nothing about the child (RFC 6840 §4.1), or a DNAME redirects the name.
    case delegationOrDNAME(String)
    /// No NSEC3 matches an ancestor of the name: the closest encloser is not proven (RFC 5155 §8.3).
    case noClosestEncloser
    /// NSEC3 records use a hash algorithm other than SHA-1, or more than `NSEC3Hash.maximumIterations`
    /// iterations: insecure, not bogus (RFC 5155 §8.1, RFC 9276 §3.2).
    case unsupportedNSEC3Parameters(hashAlgorithm: UInt8, iterations: UInt16)
    /// The name has no DS but is not a delegation (its record lacks NS, or has SOA): an unsigned
    /// answer below it cannot be insecure (RFC 4035 §5.2).
    case notADelegation(String)

    /// The gap as the end of a sentence.
    public var description: String {
        switch self {
        case .noRecords: "no NSEC or NSEC3 record was given"
        case .nameNotCovered(let name): "no NSEC or NSEC3 record covers \(DNSSECValidationError.show(name))"
        case .nameExists(let name): "a record matches \(DNSSECValidationError.show(name)), so the name exists"
        case .wildcardNotDenied(let name): "nothing shows that the wildcard \(name) does not exist"
        case .typeExists(let type): "the record at the name lists \(type)"
        case .cnameExists: "the record at the name lists CNAME"
        case .delegationOrDNAME(let name): "the record at \(DNSSECValidationError.show(name)) is a delegation (NS without SOA) or has a DNAME"
        case .noClosestEncloser: "no NSEC3 record proves the closest encloser (RFC 5155 §8.3)"
        case .unsupportedNSEC3Parameters(let algorithm, let iterations):
            "NSEC3 hash algorithm \(algorithm) with \(iterations) iterations is not supported (RFC 9276 §3.2)"
        case .notADelegation(let name): "\(DNSSECValidationError.show(name)) has no DS but is no delegation either (no NS, or an SOA)"
        }
    }
}
