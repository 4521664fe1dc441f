import DNSWire

/// Checks DNSSEC signatures (RFC 4035 §5.3) and DS digests (RFC 4035 §5.2) with OpenSSL, against an
/// injected clock.
///
/// Algorithms 8 (RSA/SHA-256), 10 (RSA/SHA-512), 13 (ECDSA P-256/SHA-256), 14 (ECDSA P-384/SHA-384)
/// and 15 (Ed25519) are verified; DS digest types 2 (SHA-256) and 4 (SHA-384) are checked. Anything
/// else is reported as `unsupportedAlgorithm` / `unsupportedDigestType`, which RFC 6840 §5.2 says makes
/// a zone insecure rather than bogus. The validator holds no state besides its clock: OpenSSL objects
/// live for one call.
public struct DNSSECValidator: Sendable {
    /// The clock validity windows are checked against.
    public var clock: any DNSSECClock

    /// A validator reading `clock` (the system's real-time clock by default).
    public init(clock: any DNSSECClock = SystemDNSSECClock()) {
        self.clock = clock
    }

    /// Verifies one RRSIG over an RRset with one DNSKEY (RFC 4035 §5.3.1-§5.3.3).
    ///
    /// Checked in order: the RRset's type is the one covered; its owner is the signer or below it; the
    /// labels field does not exceed the owner's label count; the key has the RRSIG's algorithm and key
    /// tag, the zone flag, protocol 3 and no REVOKE flag; the clock is inside the validity window; the
    /// signature verifies over `RRSIG.signedData(over:)`.
    /// - Parameters:
    ///   - signature: The RRSIG.
    ///   - rrset: Every record of the RRset (one owner, type and class).
    ///   - key: A DNSKEY of the signer's zone.
    /// - Throws: `DNSSECValidationError`: `.wrongSigner`, `.noMatchingKey`, `.signatureExpired`,
    ///   `.signatureNotYetValid`, `.badSignature`, `.unsupportedAlgorithm`, `.invalidKey`, `.malformedRecord`.
    public func verify(_ signature: RRSIG, over rrset: [DNSResourceRecord], with key: DNSKEY) throws(DNSSECValidationError) {
        let owner = rrset.first?.name ?? ""
        let type = rrset.first?.type ?? signature.typeCovered
        guard DNSCanonicalForm.isSameOrAncestor(signature.signerName, of: owner) else {
            throw .wrongSigner(owner: owner, type: type, signer: signature.signerName)
        }
        let signedData: [UInt8]
        do {
            signedData = try signature.signedData(over: rrset)
        } catch {
            throw .malformedRecord(error)
        }
        guard Self.keyFits(key, signature) else {
            throw .noMatchingKey(owner: owner, type: type, signer: signature.signerName, keyTag: signature.keyTag, algorithm: signature.algorithm)
        }
        let now = clock.secondsSince1970()
        switch SignatureValidity(signature).position(at: now) {
        case .valid: break
        case .expired: throw .signatureExpired(owner: owner, type: type, expiration: signature.expiration, now: now)
        case .notYetValid: throw .signatureNotYetValid(owner: owner, type: type, inception: signature.inception, now: now)
        }
        let publicKey = try DNSSECPublicKey(key, zone: signature.signerName)
        let verifier = try SignatureVerifier()
        guard let openssl = publicKey.suite.opensslSignature(signature.signature), verifier.verify(openssl, over: signedData, with: publicKey) else {
            throw .badSignature(owner: owner, type: type, keyTag: signature.keyTag, algorithm: signature.algorithm)
        }
    }

    /// Verifies an RRset against its RRSIGs: it is secure when any RRSIG by `zone` covering its type
    /// verifies with any of `keys` (RFC 4035 §5.3).
    /// - Parameters:
    ///   - rrset: Every record of the RRset.
    ///   - signatures: The RRSIGs at the RRset's owner (others, of other types or signers, are skipped).
    ///   - keys: The trusted DNSKEYs of `zone`.
    ///   - zone: The zone expected to have signed (any case).
    /// - Returns: The RRSIG and key that verified.
    /// - Throws: `.missingSignature` when no RRSIG of `zone` covers the type; otherwise, when none verifies,
    ///   the first failure that makes the data bogus, or `.unsupportedAlgorithm` when every RRSIG uses
    ///   an algorithm this validator does not implement.
    public func verify(_ rrset: [DNSResourceRecord], signatures: [RRSIG], keys: [DNSKEY], zone: String) throws(DNSSECValidationError) -> DNSSECVerifiedSignature {
        let owner = rrset.first?.name ?? ""
        guard let type = rrset.first?.type else { throw .missingSignature(owner: owner, type: signatures.first?.typeCovered ?? .a) }
        let zoneName = DNSCanonicalForm.name(zone)
        let relevant = signatures.filter { $0.typeCovered == type && DNSCanonicalForm.name($0.signerName) == zoneName }
        guard !relevant.isEmpty else { throw .missingSignature(owner: owner, type: type) }
        var bogus: DNSSECValidationError?
        var unsupported: DNSSECValidationError?
        for signature in relevant {
            let candidates = keys.filter { Self.keyFits($0, signature) }
            if candidates.isEmpty {
                let error = DNSSECValidationError.noMatchingKey(
                    owner: owner, type: type, signer: signature.signerName, keyTag: signature.keyTag, algorithm: signature.algorithm)
                if DNSSECAlgorithmSuite(signature.algorithm) == nil { unsupported = unsupported ?? .unsupportedAlgorithm(signature.algorithm, zone: zone) } else { bogus = bogus ?? error }
                continue
            }
            for key in candidates {
                do {
                    try verify(signature, over: rrset, with: key)
                    return DNSSECVerifiedSignature(signature: signature, key: key)
                } catch {
                    if error.isBogus { bogus = bogus ?? error } else { unsupported = unsupported ?? error }
                }
            }
        }
        throw bogus ?? unsupported ?? .missingSignature(owner: owner, type: type)
    }

    /// Whether `key` may have made `signature`: same algorithm and key tag, zone flag set, protocol 3,
    /// not revoked (RFC 4035 §5.3.1, RFC 5011 §2.1).
    static func keyFits(_ key: DNSKEY, _ signature: RRSIG) -> Bool {
        key.algorithm == signature.algorithm && key.keyTag == signature.keyTag && isUsable(key)
    }

    /// A key that may verify anything: zone flag, protocol 3, no REVOKE flag.
    static func isUsable(_ key: DNSKEY) -> Bool {
        key.isZoneKey && key.protocol == 3 && !key.isRevoked
    }

    /// Whether `ds` is a digest of `key` owned by `owner` (RFC 4035 §5.2): key tag, algorithm and
    /// digest all match.
    /// - Throws: `.unsupportedDigestType` for digest types other than 2 and 4; `.malformedRecord` for an
    ///   owner that cannot be encoded.
    public func matches(_ ds: DS, key: DNSKEY, owner: String) throws(DNSSECValidationError) -> Bool {
        let input: [UInt8]
        do {
            input = try DS.digestInput(owner: owner, key: key)
        } catch {
            throw .malformedRecord(error)
        }
        guard let digest = DSDigest.digest(input, type: ds.digestType) else { throw .unsupportedDigestType(ds.digestType, zone: owner) }
        return ds.keyTag == key.keyTag && ds.algorithm == key.algorithm && digest == ds.digest
    }
}

/// The RRSIG and DNSKEY that proved an RRset authentic.
public struct DNSSECVerifiedSignature: Hashable, Sendable {
    /// The RRSIG that verified.
    public var signature: RRSIG
    /// The key it verified with.
    public var key: DNSKEY

    /// How long the RRset may be kept, in seconds (RFC 4035 §5.3.3): the least of its TTL as received,
    /// the RRSIG's original TTL, and the seconds left until the signature expires at `now` (seconds
    /// since 1970; 0 once expired).
    public func cappedTTL(_ ttl: UInt32, now: Int64) -> UInt32 {
        let left = Int32(bitPattern: signature.expiration &- UInt32(truncatingIfNeeded: now))
        return min(ttl, signature.originalTTL, UInt32(max(0, left)))
    }
}
