import Testing
import DNSWire
import HTTPDNSCore

/// RFC 4034 §6: canonical name order, canonical RDATA, canonical RRsets and the RRSIG signed data;
/// and the DO / CD bits of a DNSSEC query.
@Suite struct DNSSECCanonicalFormTests {
    @Test func namesSortInTheRFC4034Section61Order() {
        // RFC 4034 §6.1's example, in its order.
        let ordered = ["example", "a.example", "yljkjljk.a.example", "Z.a.example", "zABC.a.EXAMPLE", "z.example", "\\001.z.example", "*.z.example", "\\200.z.example"]
        #expect(ordered.shuffled().sorted(by: DNSCanonicalForm.precedes) == ordered)
        #expect(!DNSCanonicalForm.precedes("a.example", "A.EXAMPLE"))
        #expect(DNSCanonicalForm.precedes("", "example"))
    }

    @Test func wireNameIsLowerCaseAndUncompressed() throws {
        #expect(try DNSCanonicalForm.wireName("WWW.Example.") == [3, 0x77, 0x77, 0x77, 7] + Array("example".utf8) + [0])
        #expect(try DNSCanonicalForm.wireName("") == [0])
        #expect(throws: DNSSECRecordError.unencodableName("a..b")) { try DNSCanonicalForm.wireName("a..b") }
    }

    @Test func labelCountLeavesOutTheRootAndALeadingWildcard() throws {
        #expect(try DNSCanonicalForm.labelCount(of: "www.example.com") == 3)
        #expect(try DNSCanonicalForm.labelCount(of: "*.example.com") == 2)
        #expect(try DNSCanonicalForm.labelCount(of: "") == 0)
    }

    @Test func namesInsideMXRDataAreLowerCasedButNSECNextNamesAreNot() throws {
        let mx: [UInt8] = [0, 10, 4] + Array("MAIL".utf8) + [0]
        #expect(try DNSCanonicalForm.rdata(.other(mx), type: .mx) == [0, 10, 4] + Array("mail".utf8) + [0])
        let nsec: [UInt8] = [4] + Array("HOST".utf8) + [0, 0, 1, 0x40]
        #expect(try DNSCanonicalForm.rdata(.other(nsec), type: .nsec) == nsec)
    }

    @Test func rdataThatDoesNotFitItsTypesLayoutIsRejected() {
        #expect(throws: DNSSECRecordError.invalidName(type: .ns, field: "RDATA", offset: 0)) { try DNSCanonicalForm.rdata(.other([5, 0x61]), type: .ns) }
    }

    @Test func parsedNSRecordsHoldTheirNamesUncompressed() throws {
        // The NS target is a pointer back to the question name: the parsed octets must stand alone.
        let message =
            WireBytes.header(flags: WireBytes.responseFlags(), an: 1) + WireBytes.question("Example.test", type: WireBytes.typeNS)
            + WireBytes.record(owner: WireBytes.pointer(12), type: WireBytes.typeNS, ttl: 60, rdata: [2] + Array("NS".utf8) + WireBytes.pointer(12))
        let parsed = try DNSMessage(parsing: message)
        #expect(parsed.answers[0].data == .other([2] + Array("ns".utf8) + WireBytes.name("example.test")))
    }

    static func aRecord(_ owner: String, _ last: UInt8, ttl: UInt32 = 300) -> DNSResourceRecord {
        DNSResourceRecord(name: owner, type: .a, ttl: ttl, data: .a(IPAddress(bytes: [192, 0, 2, last])!))
    }

    @Test func rrsetIsSortedByRDataWithTheGivenTTLAndDuplicatesRemoved() throws {
        let owner = try DNSCanonicalForm.wireName("www.example")
        let rrset = try DNSCanonicalForm.rrset([Self.aRecord("www.example", 9), Self.aRecord("WWW.example", 1, ttl: 5), Self.aRecord("www.example", 9)], owner: owner, ttl: 3600)
        let expected =
            owner + WireBytes.u16(1) + WireBytes.u16(1) + WireBytes.u32(3600) + WireBytes.u16(4) + [192, 0, 2, 1]
            + owner + WireBytes.u16(1) + WireBytes.u16(1) + WireBytes.u32(3600) + WireBytes.u16(4) + [192, 0, 2, 9]
        #expect(rrset == expected)
    }

    @Test func recordsOfTwoOwnersAreNotOneRRset() {
        #expect(throws: DNSSECRecordError.notOneRRset(name: "a.example", type: .a)) {
            try DNSCanonicalForm.rrset([Self.aRecord("a.example", 1), Self.aRecord("b.example", 1)], owner: [0], ttl: 1)
        }
    }

    static let signature = RRSIG(
        typeCovered: .a, algorithm: .ecdsaP256SHA256, labels: 2, originalTTL: 3600, expiration: 2_000_000_000,
        inception: 1_000_000_000, keyTag: 4242, signerName: "Example", signature: [0xFF])

    @Test func signedDataIsTheRRSIGWithoutSignatureThenTheCanonicalRRset() throws {
        let data = try Self.signature.signedData(over: [Self.aRecord("www.example", 1)])
        let rrsigPart =
            WireBytes.u16(1) + [13, 2] + WireBytes.u32(3600) + WireBytes.u32(2_000_000_000) + WireBytes.u32(1_000_000_000)
            + WireBytes.u16(4242) + WireBytes.name("example")
        let owner = WireBytes.name("www.example")
        #expect(data == rrsigPart + owner + WireBytes.u16(1) + WireBytes.u16(1) + WireBytes.u32(3600) + WireBytes.u16(4) + [192, 0, 2, 1])
    }

    @Test func signedDataOfAWildcardExpansionUsesTheWildcardOwner() throws {
        let data = try Self.signature.signedData(over: [Self.aRecord("a.b.example", 1)])
        let owner: [UInt8] = [1, UInt8(ascii: "*")] + WireBytes.name("b.example")
        #expect(Array(data[27...].prefix(owner.count)) == owner)
    }

    @Test func signedDataRefusesMoreLabelsThanTheOwnerHasAndAnotherType() {
        #expect(throws: DNSSECRecordError.tooManyLabels(labels: 2, owner: "example")) { try Self.signature.signedData(over: [Self.aRecord("example", 1)]) }
        let cname = DNSResourceRecord(name: "www.example", type: .cname, ttl: 1, data: .cname("x"))
        #expect(throws: DNSSECRecordError.typeNotCovered(covered: .a, type: .cname)) { try Self.signature.signedData(over: [cname]) }
        #expect(throws: DNSSECRecordError.notOneRRset(name: "", type: .a)) { try Self.signature.signedData(over: []) }
    }

    @Test func dnssecQuerySetsDOInTheOPTRecordAndCDInTheHeader() throws {
        let query = try DNSMessage.query(name: "example.com", type: .a, paddingBlockSize: nil, dnssecOK: true, checkingDisabled: true)
        #expect(Array(query[2..<4]) == [0x01, 0x10])
        let parsed = try DNSMessage(parsing: query)
        #expect(parsed.checkingDisabled)
        #expect(parsed.additionals.first?.ttl == 0x0000_8000)
    }

    @Test func plainQueryLeavesDOAndCDClear() throws {
        let parsed = try DNSMessage(parsing: try DNSMessage.query(name: "example.com", type: .a))
        #expect(!parsed.checkingDisabled)
        #expect(parsed.additionals.first?.ttl == 0)
    }
}
