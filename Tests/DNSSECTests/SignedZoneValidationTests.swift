import Foundation
import Testing
import DNSSEC
import DNSWire

/// Zones signed at test time with ldns for every supported algorithm, validated from their DS down to
/// their records; and the bad cases: outside the validity window, a changed signature or record, a
/// key or DS of another zone, an algorithm the validator does not implement.
@Suite struct SignedZoneValidationTests {
    static let algorithms = ["RSASHA256", "RSASHA512", "ECDSAP256SHA256", "ECDSAP384SHA384", "ED25519"]
    /// One zone per algorithm, signed once for the whole suite.
    static let zones: [String: Result<SignedZone, any Error>] = Dictionary(
        uniqueKeysWithValues: algorithms.map { name in (name, Result { try SignedZone.make(algorithm: name) }) })

    static func zone(_ algorithm: String) throws -> SignedZone {
        try #require(zones[algorithm]).get()
    }

    static let validator = DNSSECValidator(clock: FixedDNSSECClock(SignedZone.insideWindow))

    @Test(arguments: algorithms) func keySetIsTrustedThroughItsDS(algorithm: String) throws {
        let zone = try Self.zone(algorithm)
        let trusted = try zone.trustedKeys()
        #expect(trusted.keys.count == 2)
        #expect(trusted.proof.key.isSecureEntryPoint)
        #expect(trusted.zone == "test")
    }

    @Test(arguments: algorithms) func everySignedRRsetOfTheZoneVerifies(algorithm: String) throws {
        let zone = try Self.zone(algorithm)
        let keys = try zone.trustedKeys().keys
        let rrsets = Dictionary(grouping: zone.records.filter { $0.type != .rrsig }) { "\($0.name) \($0.type.rawValue)" }
        #expect(rrsets.count >= 9)
        for rrset in rrsets.values {
            let verified = try Self.validator.verify(rrset, signatures: zone.signatures(rrset[0].name, covering: rrset[0].type), keys: keys, zone: "test.")
            #expect(verified.signature.algorithm.description == algorithm)
        }
    }

    @Test(arguments: algorithms) func wildcardExpansionVerifiesWithTheWildcardsSignature(algorithm: String) throws {
        let zone = try Self.zone(algorithm)
        let keys = try zone.trustedKeys().keys
        let expanded = zone.rrset("*.wild.test", .a).map { DNSResourceRecord(name: "anything.wild.test", type: .a, ttl: $0.ttl, data: $0.data) }
        let signatures = try zone.signatures("*.wild.test", covering: .a)
        #expect(signatures.first?.labels == 2)
        _ = try Self.validator.verify(expanded, signatures: signatures, keys: keys, zone: "test")
    }

    @Test func ttlIsCappedByTheOriginalTTLAndTheTimeLeftBeforeExpiration() throws {
        let zone = try Self.zone("ED25519")
        let verified = try Self.validator.verify(zone.rrset("www.test", .a), signatures: zone.signatures("www.test", covering: .a), keys: zone.trustedKeys().keys, zone: "test")
        #expect(verified.signature.originalTTL == 3600)
        #expect(verified.cappedTTL(86400, now: SignedZone.insideWindow) == 3600)
        #expect(verified.cappedTTL(60, now: SignedZone.insideWindow) == 60)
        #expect(verified.cappedTTL(3600, now: SignedZone.expirationTime - 100) == 100)
        #expect(verified.cappedTTL(3600, now: SignedZone.expirationTime + 1) == 0)
    }

    @Test(arguments: algorithms) func signatureAfterItsExpirationIsExpired(algorithm: String) throws {
        let zone = try Self.zone(algorithm)
        let late = DNSSECValidator(clock: FixedDNSSECClock(SignedZone.expirationTime + 1))
        #expect(throws: DNSSECValidationError.signatureExpired(owner: "www.test", type: .a, expiration: UInt32(SignedZone.expirationTime), now: SignedZone.expirationTime + 1)) {
            try late.verify(zone.rrset("www.test", .a), signatures: zone.signatures("www.test", covering: .a), keys: zone.keys(), zone: "test")
        }
        #expect(throws: DNSSECValidationError.signatureExpired(owner: "test", type: .dnskey, expiration: UInt32(SignedZone.expirationTime), now: SignedZone.expirationTime + 1)) {
            try zone.trustedKeys(at: SignedZone.expirationTime + 1)
        }
    }

    @Test(arguments: algorithms) func signatureBeforeItsInceptionIsNotYetValid(algorithm: String) throws {
        let zone = try Self.zone(algorithm)
        let early = DNSSECValidator(clock: FixedDNSSECClock(SignedZone.inceptionTime - 1))
        #expect(throws: DNSSECValidationError.signatureNotYetValid(owner: "www.test", type: .a, inception: UInt32(SignedZone.inceptionTime), now: SignedZone.inceptionTime - 1)) {
            try early.verify(zone.rrset("www.test", .a), signatures: zone.signatures("www.test", covering: .a), keys: zone.keys(), zone: "test")
        }
    }

    @Test(arguments: algorithms) func signatureWithOneFlippedOctetIsBad(algorithm: String) throws {
        let zone = try Self.zone(algorithm)
        var signatures = try zone.signatures("www.test", covering: .a)
        signatures[0].signature[signatures[0].signature.count / 3] ^= 0x40
        #expect(throws: DNSSECValidationError.badSignature(owner: "www.test", type: .a, keyTag: signatures[0].keyTag, algorithm: signatures[0].algorithm)) {
            try Self.validator.verify(zone.rrset("www.test", .a), signatures: signatures, keys: zone.trustedKeys().keys, zone: "test")
        }
    }

    @Test(arguments: algorithms) func changedAddressDoesNotVerify(algorithm: String) throws {
        let zone = try Self.zone(algorithm)
        var rrset = zone.rrset("www.test", .a)
        rrset[0].data = .other([192, 0, 2, 66])
        rrset[0].data = try DNSMessage(parsing: DNSMessage(isResponse: true, answers: [rrset[0]]).encoded()).answers[0].data
        let signatures = try zone.signatures("www.test", covering: .a)
        #expect(throws: DNSSECValidationError.badSignature(owner: "www.test", type: .a, keyTag: signatures[0].keyTag, algorithm: signatures[0].algorithm)) {
            try Self.validator.verify(rrset, signatures: signatures, keys: zone.trustedKeys().keys, zone: "test")
        }
    }

    @Test func keysOfAnotherZoneMatchNoSignature() throws {
        let zone = try Self.zone("ECDSAP256SHA256"), other = try Self.zone("ED25519")
        let signature = try #require(try zone.signatures("www.test", covering: .a).first)
        #expect(throws: DNSSECValidationError.noMatchingKey(owner: "www.test", type: .a, signer: "test", keyTag: signature.keyTag, algorithm: .ecdsaP256SHA256)) {
            try Self.validator.verify(zone.rrset("www.test", .a), signatures: [signature], keys: other.keys(), zone: "test")
        }
    }

    @Test func keyWithTheRightTagButAnotherPublicKeyGivesABadSignature() throws {
        let zone = try Self.zone("ED25519")
        let signature = try #require(try zone.signatures("www.test", covering: .a).first)
        let real = try #require(try zone.keys().first { $0.keyTag == signature.keyTag })
        // Raise one key octet and lower another two places on: the key tag's sum (RFC 4034 App. B)
        // stays the same, so only the signature check can tell the keys apart.
        var forged = real
        let index = try #require((0..<(forged.publicKey.count - 2)).first { forged.publicKey[$0] < 255 && forged.publicKey[$0 + 2] > 0 })
        forged.publicKey[index] += 1
        forged.publicKey[index + 2] -= 1
        #expect(forged.keyTag == real.keyTag && forged != real)
        #expect(throws: DNSSECValidationError.badSignature(owner: "www.test", type: .a, keyTag: signature.keyTag, algorithm: .ed25519)) {
            try Self.validator.verify(signature, over: zone.rrset("www.test", .a), with: forged)
        }
    }

    @Test func dsOfAnotherZoneIsADSMismatch() throws {
        let zone = try Self.zone("ECDSAP384SHA384"), other = try Self.zone("RSASHA256")
        #expect(throws: DNSSECValidationError.dsMismatch(zone: "test.", keyTags: other.anchors.map(\.keyTag))) {
            try Self.validator.validateKeySet(zone.rrset("test", .dnskey), signatures: zone.signatures("test", covering: .dnskey), zone: "test.", anchors: other.anchors)
        }
    }

    @Test func dsWithAChangedDigestIsADSMismatch() throws {
        let zone = try Self.zone("RSASHA512")
        let anchors = zone.anchors.map { anchor -> TrustAnchor in
            guard case .ds(var ds) = anchor.key else { return anchor }
            ds.digest[0] ^= 0xFF
            return TrustAnchor(zone: anchor.zone, key: .ds(ds))
        }
        #expect(throws: DNSSECValidationError.dsMismatch(zone: "test", keyTags: anchors.map(\.keyTag))) {
            try Self.validator.validateKeySet(zone.rrset("test", .dnskey), signatures: zone.signatures("test", covering: .dnskey), zone: "test", anchors: anchors)
        }
    }

    @Test func kskGivenAsADNSKEYTrustAnchorTrustsTheKeySet() throws {
        let zone = try Self.zone("ECDSAP256SHA256")
        let ksk = try #require(try zone.keys().first { $0.isSecureEntryPoint })
        let trusted = try Self.validator.validateKeySet(
            zone.rrset("test", .dnskey), signatures: zone.signatures("test", covering: .dnskey), zone: "test", anchors: [TrustAnchor(zone: "test.", key: .dnskey(ksk))])
        #expect(trusted.proof.key == ksk)
    }

    @Test func zskAloneAsATrustAnchorDoesNotTrustAKeySetItDidNotSign() throws {
        let zone = try Self.zone("ED25519")
        let zsk = try #require(try zone.keys().first { !$0.isSecureEntryPoint })
        let signature = try #require(try zone.signatures("test", covering: .dnskey).first)
        #expect(throws: DNSSECValidationError.noMatchingKey(owner: "test", type: .dnskey, signer: "test", keyTag: signature.keyTag, algorithm: .ed25519)) {
            try Self.validator.validateKeySet(zone.rrset("test", .dnskey), signatures: [signature], zone: "test", anchors: [TrustAnchor(zone: "test", key: .dnskey(zsk))])
        }
    }

    @Test func zoneSignedWithRSASHA1IsUnsupportedSoInsecureNotBogus() throws {
        let zone = try SignedZone.make(algorithm: "RSASHA1")
        defer { zone.remove() }
        let error = DNSSECValidationError.unsupportedAlgorithm(.rsaSHA1, zone: "test.")
        #expect(throws: error) { try zone.trustedKeys() }
        #expect(!error.isBogus)
        #expect(throws: DNSSECValidationError.unsupportedAlgorithm(.rsaSHA1, zone: "test")) {
            try Self.validator.verify(zone.rrset("www.test", .a), signatures: zone.signatures("www.test", covering: .a), keys: zone.keys(), zone: "test")
        }
    }

    @Test func ldnsVerifyZoneAndThisValidatorAgreeOnAGoodAndATamperedZone() throws {
        let zone = try SignedZone.make(algorithm: "ECDSAP256SHA256", keepFiles: true)
        defer { zone.remove() }
        #expect(try zone.ldnsVerifies())
        let validator = DNSSECValidator() // the real clock, as ldns-verify-zone uses
        let keys = try validator.validateKeySet(zone.rrset("test", .dnskey), signatures: zone.signatures("test", covering: .dnskey), zone: "test", anchors: zone.anchors).keys
        _ = try validator.verify(zone.rrset("www.test", .a), signatures: zone.signatures("www.test", covering: .a), keys: keys, zone: "test")

        let text = try String(contentsOf: zone.signedFile, encoding: .utf8)
        #expect(text.contains("192.0.2.2"))
        let tamperedFile = zone.directory.appendingPathComponent("tampered")
        try text.replacingOccurrences(of: "192.0.2.2", with: "192.0.2.4").write(to: tamperedFile, atomically: true, encoding: .utf8)
        #expect(try !zone.ldnsVerifies(tamperedFile))
        let tampered = try zone.reading(tamperedFile)
        #expect(throws: DNSSECValidationError.self) {
            try validator.verify(tampered.rrset("www.test", .a), signatures: tampered.signatures("www.test", covering: .a), keys: keys, zone: "test")
        }
    }
}
