import Foundation
import Testing
import DNSSEC
import DNSWire

/// Authenticated denial of existence (RFC 4035 §5.4, RFC 5155 §8) on zones signed at test time with
/// NSEC, NSEC3 and NSEC3 Opt-Out: NXDOMAIN, NODATA, empty non-terminals, wildcards, unsigned
/// delegations, and proofs with a record missing.
@Suite struct DenialProofTests {
    /// An unsigned delegation (with glue) and a name below an empty non-terminal, beside the usual zone.
    static let extra = """
        insecure IN NS ns.insecure.test.
        ns.insecure IN A 192.0.2.50
        deep.ent IN TXT "below an empty non-terminal"
        """
    static let nsecZone = Result { try SignedZone.make(algorithm: "ECDSAP256SHA256", extraText: extra) }
    static let nsec3Zone = Result { try SignedZone.make(algorithm: "ED25519", nsec3: true, extraText: extra) }
    static let optOutZone = Result { try SignedZone.make(algorithm: "ED25519", nsec3: true, optOut: true, extraText: extra) }

    /// The zone's NSEC or NSEC3 records, each RRset verified with the zone's trusted keys first.
    static func verifiedDenialRecords(_ zone: SignedZone) throws -> [DNSResourceRecord] {
        let keys = try zone.trustedKeys().keys
        let validator = DNSSECValidator(clock: FixedDNSSECClock(SignedZone.insideWindow))
        let records = zone.records.filter { $0.type == .nsec || $0.type == .nsec3 }
        for record in records {
            _ = try validator.verify([record], signatures: zone.signatures(record.name, covering: record.type), keys: keys, zone: "test")
        }
        #expect(records.count >= 6)
        return records
    }

    static func denial(_ result: Result<SignedZone, any Error>) throws -> (DNSSECDenial, [DNSResourceRecord]) {
        let records = try verifiedDenialRecords(result.get())
        return (try DNSSECDenial(records: records, zone: "test."), records)
    }

    static let allZones: [(String, Result<SignedZone, any Error>)] = [("NSEC", nsecZone), ("NSEC3", nsec3Zone), ("NSEC3 opt-out", optOutZone)]

    @Test(arguments: 0..<3) func missingNameIsProvenNXDOMAIN(zoneIndex: Int) throws {
        let (denial, _) = try Self.denial(Self.allZones[zoneIndex].1)
        let proof = try denial.proveNameError("nope.test")
        #expect(proof == .nameError(optOut: zoneIndex == 2))
    }

    @Test(arguments: 0..<3) func existingNameIsNotNXDOMAIN(zoneIndex: Int) throws {
        let (denial, _) = try Self.denial(Self.allZones[zoneIndex].1)
        #expect(throws: DNSSECValidationError.missingDenialProof(name: "www.test", type: .a, .nameExists("www.test"))) { try denial.proveNameError("WWW.test.") }
    }

    @Test(arguments: 0..<3) func nameAWildcardWouldMatchIsNotNXDOMAIN(zoneIndex: Int) throws {
        let (denial, _) = try Self.denial(Self.allZones[zoneIndex].1)
        #expect(throws: DNSSECValidationError.missingDenialProof(name: "anything.wild.test", type: .a, .wildcardNotDenied("*.wild.test"))) {
            try denial.proveNameError("anything.wild.test")
        }
    }

    @Test("an unsigned delegation is proven insecure; a name without DS that is no delegation is not", arguments: 0..<3)
    func insecureDelegation(zoneIndex: Int) throws {
        let (denial, _) = try Self.denial(Self.allZones[zoneIndex].1)
        // ldns-signzone keeps the delegation's own NSEC3 in the Opt-Out zone too.
        #expect(try denial.proveInsecureDelegation("insecure.test") == .noData)
        #expect(throws: DNSSECValidationError.missingDenialProof(name: "www.test", type: .ds, .notADelegation("www.test"))) {
            try denial.proveInsecureDelegation("www.test")
        }
    }

    @Test(arguments: 0..<3) func missingTypeAtAnExistingNameIsProvenNODATA(zoneIndex: Int) throws {
        let (denial, _) = try Self.denial(Self.allZones[zoneIndex].1)
        #expect(try denial.proveNoData("www.test", type: .txt) == .noData)
        #expect(throws: DNSSECValidationError.missingDenialProof(name: "www.test", type: .a, .typeExists(.a))) { try denial.proveNoData("www.test", type: .a) }
        #expect(throws: DNSSECValidationError.missingDenialProof(name: "alias.test", type: .a, .cnameExists)) { try denial.proveNoData("alias.test", type: .a) }
    }

    @Test(arguments: 0..<3) func emptyNonTerminalIsProvenNODATA(zoneIndex: Int) throws {
        let (denial, _) = try Self.denial(Self.allZones[zoneIndex].1)
        #expect(try denial.proveNoData("ent.test", type: .a) == .noData)
    }

    @Test(arguments: 0..<3) func missingTypeAtAWildcardIsProvenWildcardNODATA(zoneIndex: Int) throws {
        let (denial, _) = try Self.denial(Self.allZones[zoneIndex].1)
        #expect(try denial.proveNoData("anything.wild.test", type: .txt) == .wildcardNoData)
    }

    @Test(arguments: 0..<3) func wildcardAnswerIsProvenNeededBecauseTheNameDoesNotExist(zoneIndex: Int) throws {
        let (denial, _) = try Self.denial(Self.allZones[zoneIndex].1)
        try denial.proveWildcardExpansion("anything.wild.test", type: .a, signatureLabels: 2)
        try denial.proveWildcardExpansion("a.b.wild.test", type: .a, signatureLabels: 2)
        // Not an expansion: nothing to prove.
        try denial.proveWildcardExpansion("www.test", type: .a, signatureLabels: 2)
    }

    @Test(arguments: 0..<3) func existingNameCannotBeAWildcardExpansion(zoneIndex: Int) throws {
        let (denial, _) = try Self.denial(Self.allZones[zoneIndex].1)
        #expect(throws: DNSSECValidationError.missingDenialProof(name: "www.test", type: .a, .nameExists("www.test"))) {
            try denial.proveWildcardExpansion("www.test", type: .a, signatureLabels: 1)
        }
    }

    @Test func wildcardExpansionWithoutTheCoveringRecordIsNotProven() throws {
        let (_, records) = try Self.denial(Self.nsecZone)
        // The NSEC at *.wild.test is the one that covers anything.wild.test.
        let fewer = records.filter { $0.name != "*.wild.test" }
        #expect(throws: DNSSECValidationError.missingDenialProof(name: "anything.wild.test", type: .a, .nameNotCovered("anything.wild.test"))) {
            try DNSSECDenial(records: fewer, zone: "test").proveWildcardExpansion("anything.wild.test", type: .a, signatureLabels: 2)
        }
    }

    @Test func unsignedDelegationHasNoDSProvenByNSECAndNSEC3() throws {
        #expect(try Self.denial(Self.nsecZone).0.proveNoData("insecure.test", type: .ds) == .noData)
        #expect(try Self.denial(Self.nsec3Zone).0.proveNoData("insecure.test", type: .ds) == .noData)
    }

    @Test func optOutZoneStillListsTheDelegationsNSEC3WithTheFlag() throws {
        let (denial, _) = try Self.denial(Self.optOutZone)
        #expect(denial.nsec3s.allSatisfy { $0.nsec3.isOptOut })
        #expect(try denial.proveNoData("insecure.test", type: .ds) == .noData)
    }

    /// NSEC3 records made by hand (the proof judges records, not signatures): the apex's, and a span
    /// just around the hash of `insecure.test`, which has no NSEC3 of its own (RFC 5155 §7.1 lets an
    /// Opt-Out zone leave unsigned delegations out).
    static func optOutSpan(optOut: Bool) throws -> DNSSECDenial {
        let parameters = NSEC3PARAM(iterations: 0, salt: [])
        let apex = try #require(NSEC3Hash.hash("test", parameters: parameters))
        var low = try #require(NSEC3Hash.hash("insecure.test", parameters: parameters)), high = low
        low[19] = low[19] &- 1
        high[19] = high[19] &+ 1
        let flags = optOut ? NSEC3.optOutFlag : 0
        let records = [
            try DNSResourceRecord(
                name: NSEC3Hash.base32hex(apex) + ".test", ttl: 300,
                dnssec: .nsec3(NSEC3(flags: flags, iterations: 0, salt: [], nextHashedOwner: low, types: DNSTypeBitmap([.ns, .soa, .rrsig, .dnskey, .nsec3param])))),
            try DNSResourceRecord(
                name: NSEC3Hash.base32hex(low) + ".test", ttl: 300, dnssec: .nsec3(NSEC3(flags: flags, iterations: 0, salt: [], nextHashedOwner: high, types: DNSTypeBitmap([.ns]))))
        ]
        return try DNSSECDenial(records: records, zone: "test")
    }

    @Test func delegationCoveredByAnOptOutSpanIsAnOptOutDelegation() throws {
        #expect(try Self.optOutSpan(optOut: true).proveNoData("insecure.test", type: .ds) == .optOutDelegation)
        #expect(try Self.optOutSpan(optOut: true).proveInsecureDelegation("insecure.test") == .optOutDelegation)
    }

    @Test func delegationCoveredByASpanWithoutOptOutHasNoDSProof() throws {
        #expect(throws: DNSSECValidationError.missingDenialProof(name: "insecure.test", type: .ds, .nameNotCovered("insecure.test"))) {
            try Self.optOutSpan(optOut: false).proveNoData("insecure.test", type: .ds)
        }
    }

    @Test func parentSideNSECOfADelegationProvesNothingBelowOrAboutOtherTypes() throws {
        let (denial, _) = try Self.denial(Self.nsecZone)
        #expect(throws: DNSSECValidationError.missingDenialProof(name: "insecure.test", type: .a, .delegationOrDNAME("insecure.test"))) {
            try denial.proveNoData("insecure.test", type: .a)
        }
        #expect(throws: DNSSECValidationError.self) { try denial.proveNameError("a.insecure.test") }
    }

    @Test(arguments: 0..<2) func nxdomainProofFailsWhenAnyRecordItNeedsIsRemoved(zoneIndex: Int) throws {
        let (_, records) = try Self.denial(Self.allZones[zoneIndex].1)
        var needed = 0
        for index in records.indices {
            var fewer = records
            fewer.remove(at: index)
            do {
                _ = try DNSSECDenial(records: fewer, zone: "test").proveNameError("nope.test")
            } catch {
                needed += 1
                #expect(error.isBogus)
            }
        }
        // NSEC: the record covering the name and the one covering *.test; NSEC3: the apex match, and
        // the records covering the next closer name and *.test (one record may do both).
        #expect(needed == 2 || zoneIndex == 1 && needed == 3)
        #expect(throws: DNSSECValidationError.missingDenialProof(name: "nope.test", type: .a, .noRecords)) {
            try DNSSECDenial(records: [], zone: "test").proveNoData("nope.test", type: .a)
        }
    }

    @Test func nsec3HashesMatchTheRFC5155AppendixAVectorsAndLdns() throws {
        let parameters = NSEC3PARAM(iterations: 12, salt: [0xAA, 0xBB, 0xCC, 0xDD])
        #expect(NSEC3Hash.hash("example", parameters: parameters).map(NSEC3Hash.base32hex) == "0p9mhaveqvm6t7vbl5lop2u3t2rp3tom")
        #expect(NSEC3Hash.hash("A.EXAMPLE.", parameters: parameters).map(NSEC3Hash.base32hex) == "35mthgpgcu1qg68fab165klnsnk3dpvl")
        let ldns = try SignedZone.shell("ldns-nsec3-hash -t 0 -s '' www.test.", in: FileManager.default.temporaryDirectory)
        let ours = try #require(NSEC3Hash.hash("www.test", parameters: NSEC3PARAM(iterations: 0, salt: [])))
        #expect(ldns.trimmingCharacters(in: .whitespacesAndNewlines) == NSEC3Hash.base32hex(ours) + ".")
    }

    @Test func base32hexRoundTripsAndRejectsOtherCharacters() {
        let octets: [UInt8] = Array(0..<20)
        #expect(NSEC3Hash.octets(base32hex: NSEC3Hash.base32hex(octets)) == octets)
        #expect(NSEC3Hash.octets(base32hex: "0P9MHAVEQVM6T7VBL5LOP2U3T2RP3TOM")?.count == 20)
        #expect(NSEC3Hash.octets(base32hex: "w0") == nil)
    }

    @Test func nsec3AboveTheIterationLimitIsUnsupportedNotBogus() throws {
        let nsec3 = NSEC3(flags: 0, iterations: 151, salt: [], nextHashedOwner: [UInt8](repeating: 0xFF, count: 20), types: DNSTypeBitmap([.a]))
        let owner = NSEC3Hash.base32hex([UInt8](repeating: 0, count: 20)) + ".test"
        let record = try DNSResourceRecord(name: owner, ttl: 300, dnssec: .nsec3(nsec3))
        let denial = try DNSSECDenial(records: [record], zone: "test")
        do {
            _ = try denial.proveNameError("nope.test")
            Issue.record("151 iterations must not prove anything")
        } catch {
            #expect(error == .missingDenialProof(name: "nope.test", type: .a, .unsupportedNSEC3Parameters(hashAlgorithm: 1, iterations: 151)))
            #expect(!error.isBogus)
        }
    }
}
