import DNSWire

/// A zone's DNSKEY RRset after `DNSSECValidator.validateKeySet`: the keys that may now verify the
/// zone's other RRsets.
public struct DNSSECTrustedKeySet: Hashable, Sendable {
    /// The zone (text form).
    public var zone: String
    /// The zone's usable keys (zone flag, protocol 3, not revoked), in the order given.
    public var keys: [DNSKEY]
    /// The key that a DS or trust anchor vouches for, and its signature over the set.
    public var proof: DNSSECVerifiedSignature
}

extension DNSSECValidator {
    /// Validates a zone's DNSKEY RRset (RFC 4035 §5.2): trusted when a DS or trust-anchor DNSKEY of
    /// `zone` matches a zone key of the set, and that key's RRSIG over the set verifies.
    ///
    /// RFC 4034 §2.1.1 says the SEP flag must not decide validation, so any zone key the anchor matches
    /// will do. Anchors for other zones are ignored. Per RFC 6840 §5.2, when no anchor of the zone uses
    /// an algorithm and digest type this validator implements, the zone is insecure: the error is then
    /// `.unsupportedAlgorithm` or `.unsupportedDigestType` (`isBogus` is `false`).
    /// - Parameters:
    ///   - keyRecords: The DNSKEY RRset at `zone` (records of other types or owners are refused).
    ///   - signatures: RRSIGs at the apex; those covering DNSKEY by `zone` are tried.
    ///   - zone: The zone (any case).
    ///   - anchors: Validated DS records from the parent, or configured trust anchors.
    /// - Returns: The usable keys and the proof.
    /// - Throws: `.dsMismatch` when no supported anchor matches a key (also when there is no anchor for
    ///   the zone); `.malformedRecord`; or any error of `verify(_:signatures:keys:zone:)` for the set's signature.
    public func validateKeySet(
        _ keyRecords: [DNSResourceRecord], signatures: [RRSIG], zone: String, anchors: [TrustAnchor]
    ) throws(DNSSECValidationError) -> DNSSECTrustedKeySet {
        var keys: [DNSKEY] = []
        for record in keyRecords {
            guard record.type == .dnskey, DNSCanonicalForm.name(record.name) == DNSCanonicalForm.name(zone) else { throw .malformedRecord(.notOneRRset(name: zone, type: .dnskey)) }
            let data: DNSSECRecordData?
            do {
                data = try record.dnssecData()
            } catch {
                throw .malformedRecord(error)
            }
            guard case .dnskey(let key) = data else { throw .malformedRecord(.notRawOctets(type: .dnskey)) }
            keys.append(key)
        }
        let usable = keys.filter(Self.isUsable)
        let zoneAnchors = anchors.filter { DNSCanonicalForm.name($0.zone) == DNSCanonicalForm.name(zone) }

        var vouched: [DNSKEY] = []
        var unsupported: DNSSECValidationError?
        var sawSupported = false
        for anchor in zoneAnchors {
            switch anchor.key {
            case .dnskey(let trusted):
                guard DNSSECAlgorithmSuite(trusted.algorithm) != nil else {
                    unsupported = unsupported ?? .unsupportedAlgorithm(trusted.algorithm, zone: zone)
                    continue
                }
                sawSupported = true
                vouched += usable.filter { $0.algorithm == trusted.algorithm && $0.publicKey == trusted.publicKey }
            case .ds(let ds):
                guard DNSSECAlgorithmSuite(ds.algorithm) != nil else {
                    unsupported = unsupported ?? .unsupportedAlgorithm(ds.algorithm, zone: zone)
                    continue
                }
                guard DSDigest.isSupported(ds.digestType) else {
                    unsupported = unsupported ?? .unsupportedDigestType(ds.digestType, zone: zone)
                    continue
                }
                sawSupported = true
                for key in usable where try matches(ds, key: key, owner: zone) {
                    vouched.append(key)
                }
            }
        }
        if !sawSupported, let unsupported { throw unsupported }
        guard !vouched.isEmpty else { throw .dsMismatch(zone: zone, keyTags: zoneAnchors.map(\.keyTag)) }
        let proof = try verify(keyRecords, signatures: signatures, keys: vouched, zone: zone)
        return DNSSECTrustedKeySet(zone: DNSCanonicalForm.name(zone) ?? zone, keys: usable, proof: proof)
    }
}
