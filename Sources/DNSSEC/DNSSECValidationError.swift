import DNSWire
#if canImport(Glibc)
    import Glibc
#endif

/// Why an RRset, a key set or a DS could not be validated (RFC 4035 §5).
///
/// Every case but `unsupportedAlgorithm` and `unsupportedDigestType` means the data is bogus: it claims
/// to be signed and the proof fails. Those two mean the validator cannot judge the zone, which RFC 6840
/// §5.2 says to treat as insecure (unsigned), not bogus: see `isBogus`.
public enum DNSSECValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The RRSIG over `owner`/`type` expired at `expiration`; the clock read `now` (seconds since 1970).
    case signatureExpired(owner: String, type: DNSRecordType, expiration: UInt32, now: Int64)
    /// The RRSIG over `owner`/`type` is valid only from `inception`; the clock read `now`.
    case signatureNotYetValid(owner: String, type: DNSRecordType, inception: UInt32, now: Int64)
    /// No DNSKEY of `signer` has the RRSIG's key tag and algorithm, the zone flag and protocol 3.
    case noMatchingKey(owner: String, type: DNSRecordType, signer: String, keyTag: UInt16, algorithm: DNSSECAlgorithm)
    /// The signature over `owner`/`type` does not verify with the key `keyTag` (`algorithm`).
    case badSignature(owner: String, type: DNSRecordType, keyTag: UInt16, algorithm: DNSSECAlgorithm)
    /// The RRset `owner`/`type` has no RRSIG (of the expected signer) to check.
    case missingSignature(owner: String, type: DNSRecordType)
    /// The RRSIG over `owner`/`type` names `signer`, which is not the zone holding the RRset
    /// (the owner must be the signer or below it, and the signer the zone expected; RFC 4035 §5.3.1).
    case wrongSigner(owner: String, type: DNSRecordType, signer: String)
    /// No DS (or trust-anchor key) for `zone` matches a zone key of its DNSKEY RRset that signs that set.
    /// `keyTags` are the DS or anchor key tags that were tried.
    case dsMismatch(zone: String, keyTags: [UInt16])
    /// The DNSKEY RRset of `zone` was not signed by any key that a DS or trust anchor vouches for.
    case keySetNotSigned(zone: String)
    /// The algorithm is not one this validator implements (8, 10, 13, 14, 15): insecure, not bogus
    /// (RFC 6840 §5.2).
    case unsupportedAlgorithm(DNSSECAlgorithm, zone: String)
    /// No DS of `zone` uses a digest type this validator implements (2, 4): insecure, not bogus.
    case unsupportedDigestType(DNSSECDigestType, zone: String)
    /// The DNSKEY `keyTag` (`algorithm`) cannot be loaded as a public key: `reason` says why.
    case invalidKey(keyTag: UInt16, algorithm: DNSSECAlgorithm, reason: String)
    /// A record could not be read or put in canonical form.
    case malformedRecord(DNSSECRecordError)
    /// The trust anchor text or file could not be used: `reason` says which line and why.
    case invalidTrustAnchor(source: String, reason: String)
    /// The NSEC/NSEC3 records do not prove that `name` (or its `type` RRset) does not exist.
    case missingDenialProof(name: String, type: DNSRecordType, DNSSECDenialGap)
    /// OpenSSL failed in `function` for a reason other than a wrong signature.
    case openSSL(function: String, reason: String)

    /// Whether the failure means the data is bogus (`false` for unsupported algorithms and digest
    /// types, which make a zone insecure per RFC 6840 §5.2, and for configuration errors).
    public var isBogus: Bool {
        switch self {
        case .unsupportedAlgorithm, .unsupportedDigestType, .invalidTrustAnchor, .openSSL: false
        case .missingDenialProof(_, _, .unsupportedNSEC3Parameters): false
        default: true
        }
    }

    /// One line saying what failed, for which name, and why: `reason` after "DNSSEC: " (a trust
    /// anchor's failure: "DNSSEC trust anchor SOURCE: ...").
    public var description: String {
        if case .invalidTrustAnchor(let source, let reason) = self { return "DNSSEC trust anchor \(source): \(reason)" }
        return "DNSSEC: \(reason)"
    }

    /// What failed, for which name, and why, without the "DNSSEC: " in front: the reason of a
    /// `DNSSECStatus`, which its display already names as DNSSEC's.
    public var reason: String {
        switch self {
        case .signatureExpired(let owner, let type, let expiration, let now):
            "the RRSIG over \(Self.show(owner)) \(type) expired at \(Self.time(expiration, near: now)) (now \(Self.time(now))): the zone must be re-signed, or the clock is wrong"
        case .signatureNotYetValid(let owner, let type, let inception, let now):
            "the RRSIG over \(Self.show(owner)) \(type) is valid only from \(Self.time(inception, near: now)) (now \(Self.time(now))): check the clock"
        case .noMatchingKey(let owner, let type, let signer, let keyTag, let algorithm):
            "no DNSKEY of \(Self.show(signer)) with key tag \(keyTag) and algorithm \(algorithm) for the RRSIG over \(Self.show(owner)) \(type)"
        case .badSignature(let owner, let type, let keyTag, let algorithm):
            "the signature over \(Self.show(owner)) \(type) does not verify with key \(keyTag) (\(algorithm)): the data was changed or forged"
        case .missingSignature(let owner, let type): "\(Self.show(owner)) \(type) has no RRSIG to check"
        case .wrongSigner(let owner, let type, let signer):
            "the RRSIG over \(Self.show(owner)) \(type) names signer \(Self.show(signer)), which is not its zone (RFC 4035 §5.3.1)"
        case .dsMismatch(let zone, let keyTags):
            "no DNSKEY of \(Self.show(zone)) matches its DS or trust anchor (key tags \(keyTags.map(String.init).joined(separator: ", ")))"
        case .keySetNotSigned(let zone): "the DNSKEY set of \(Self.show(zone)) is not signed by a key its DS or trust anchor vouches for"
        case .unsupportedAlgorithm(let algorithm, let zone):
            "\(Self.show(zone)) uses \(algorithm), which this validator does not implement; treated as unsigned (RFC 6840 §5.2)"
        case .unsupportedDigestType(let digestType, let zone):
            "the DS of \(Self.show(zone)) uses \(digestType), which this validator does not implement; treated as unsigned (RFC 6840 §5.2)"
        case .invalidKey(let keyTag, let algorithm, let reason): "DNSKEY \(keyTag) (\(algorithm)) cannot be loaded: \(reason)"
        case .malformedRecord(let error): "\(error)"
        case .invalidTrustAnchor(let source, let reason): "trust anchor \(source): \(reason)"
        case .missingDenialProof(let name, let type, let gap): "no proof that \(Self.show(name)) \(type) does not exist: \(gap)"
        case .openSSL(let function, let reason): "OpenSSL \(function) failed: \(reason)"
        }
    }

    static func show(_ name: String) -> String { name.isEmpty ? "." : name }

    /// An RRSIG time as its presentation form, YYYYMMDDHHmmSS in UTC (RFC 4034 §3.2): the moment
    /// that the 32-bit value names in serial number arithmetic (§3.1.5) nearest to `now`.
    static func time(_ value: UInt32, near now: Int64) -> String {
        let offset = Int64(Int32(bitPattern: value &- UInt32(truncatingIfNeeded: now)))
        return time(now + offset)
    }

    /// Seconds since 1970 as YYYYMMDDHHmmSS in UTC.
    static func time(_ seconds: Int64) -> String {
        var clock = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&clock, &parts) != nil else { return String(seconds) }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))"
    }
}
