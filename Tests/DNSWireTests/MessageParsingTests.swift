import Foundation
import HTTPDNSCore
import Testing
import DNSWire

/// RFC 1035 §4 decoding of well-formed messages: header, sections, compression, RDATA, EDNS.
@Suite struct MessageParsingTests {
    @Test func headerFlagsAndCountsOfARealResponse() throws {
        let message = try DNSMessage(parsing: Fixtures.unboundA)
        #expect(message.id == 0x1234)
        #expect(message.isResponse)
        #expect(message.opcode == 0)
        #expect(message.isAuthoritative)
        #expect(!message.isTruncated)
        #expect(message.recursionDesired)
        #expect(message.recursionAvailable)
        #expect(message.responseCode == .noError)
        #expect(message.questions == [DNSQuestion(name: "www.example.test", type: .a, recordClass: 1)])
        #expect(message.answers.count == 2)
        #expect(message.authorities.isEmpty)
        #expect(message.additionals.isEmpty)
    }

    @Test func aRecordsWithCompressedOwnersDecode() throws {
        let message = try DNSMessage(parsing: Fixtures.unboundA)
        #expect(
            message.answers == [
                DNSResourceRecord(name: "www.example.test", type: .a, recordClass: 1, ttl: 300, data: .a(try #require(IPAddress("192.0.2.11")))),
                DNSResourceRecord(name: "www.example.test", type: .a, recordClass: 1, ttl: 300, data: .a(try #require(IPAddress("192.0.2.10"))))
            ])
    }

    @Test func aaaaRecordDecodes() throws {
        let message = try DNSMessage(parsing: Fixtures.unboundAAAA)
        #expect(
            message.answers == [
                DNSResourceRecord(name: "www.example.test", type: .aaaa, recordClass: 1, ttl: 600, data: .aaaa(try #require(IPAddress("2001:db8::10"))))
            ])
    }

    @Test func cnameTargetWithPointerInsideRDATADecodes() throws {
        let message = try DNSMessage(parsing: Fixtures.unboundCNAMEOnly)
        #expect(
            message.answers == [
                DNSResourceRecord(name: "alias.example.test", type: .cname, recordClass: 1, ttl: 120, data: .cname("www.example.test"))
            ])
    }

    @Test func soaWithCompressedNamesDecodes() throws {
        let message = try DNSMessage(parsing: Fixtures.unboundNXDOMAIN)
        #expect(message.responseCode == .nameError)
        #expect(
            message.authorities == [
                DNSResourceRecord(
                    name: "example.test", type: .soa, recordClass: 1, ttl: 300,
                    data: .soa(
                        DNSSOA(
                            mname: "ns1.example.test", rname: "hostmaster.example.test",
                            serial: 2_024_010_101, refresh: 7200, retry: 3600, expire: 1_209_600, minimum: 300)))
            ])
    }

    @Test func optRecordIsKeptInAdditionalsWithItsPayloadSize() throws {
        let message = try DNSMessage(parsing: Fixtures.unboundAAAAWithEDNS)
        #expect(
            message.additionals == [
                DNSResourceRecord(name: "", type: .opt, recordClass: 1232, ttl: 0, data: .other([]))
            ])
        #expect(message.responseCode == .noError)
    }

    @Test func foundationDataParsesLikeBytes() throws {
        let fromData = try DNSMessage(parsing: Data(Fixtures.unboundAAAA))
        #expect(fromData == (try DNSMessage(parsing: Fixtures.unboundAAAA)))
    }

    @Test func dataSliceWithNonZeroStartIndexParses() throws {
        let padded = Data([0xFF, 0xFF] + Fixtures.unboundA)
        let message = try DNSMessage(parsing: padded.dropFirst(2))
        #expect(message.id == 0x1234)
        #expect(message.answers.count == 2)
    }

    @Test func extendedRCODEFromOPTIsCombinedWithTheHeaderBits() throws {
        // BADVERS = 16: header RCODE 0, OPT TTL high octet 1 (RFC 6891 §6.1.3).
        let bytes =
            WireBytes.header(flags: 0x8100, qd: 1, ar: 1)
            + WireBytes.question("example.com", type: 1)
            + WireBytes.record("", type: WireBytes.typeOPT, recordClass: 4096, ttl: 0x0100_0000, rdata: [])
        let message = try DNSMessage(parsing: bytes)
        #expect(message.responseCode == .badVersion)
        #expect(message.responseCode.rawValue == 16)
        #expect(message.responseCode.description == "BADVERS")
    }

    @Test func secondOPTRecordIsAFormatError() {
        let opt = WireBytes.record("", type: WireBytes.typeOPT, recordClass: 4096, ttl: 0, rdata: [])
        let bytes = WireBytes.header(flags: 0x8180, qd: 1, ar: 2) + WireBytes.question("example.com", type: 1) + opt + opt
        #expect(throws: DNSWireError.multipleOPTRecords(offset: 40)) { try DNSMessage(parsing: bytes) }
    }

    @Test func upperCaseNamesAreLowerCased() throws {
        let bytes =
            WireBytes.header(flags: 0x8180, an: 1)
            + WireBytes.question("WWW.Example.COM", type: 1)
            + WireBytes.record(owner: WireBytes.pointer(12), type: 1, ttl: 60, rdata: [192, 0, 2, 1])
        let message = try DNSMessage(parsing: bytes)
        #expect(message.questions.first?.name == "www.example.com")
        #expect(message.answers.first?.name == "www.example.com")
    }

    @Test func unusualLabelOctetsAreEscapedAsInRFC1035Section5() throws {
        // One label "a.b" (dot inside), one with a NUL, a space, a backslash and 0xFF.
        let owner: [UInt8] = [3, 0x61, 0x2E, 0x62, 5, 0x00, 0x20, 0x5C, 0xFF, 0x41, 3, 0x63, 0x6f, 0x6d, 0]
        let bytes = WireBytes.header(flags: 0x8180, qd: 0, an: 1) + WireBytes.record(owner: owner, type: 1, ttl: 60, rdata: [192, 0, 2, 1])
        let message = try DNSMessage(parsing: bytes)
        #expect(message.answers.first?.name == "a\\.b.\\000\\032\\\\\\255a.com")
    }

    @Test func rootOwnerNameIsTheEmptyString() throws {
        let bytes = WireBytes.header(flags: 0x8180, qd: 1) + WireBytes.question("", type: 2)
        #expect(try DNSMessage(parsing: bytes).questions == [DNSQuestion(name: "", type: .ns)])
    }

    @Test func aRecordOutsideClassINIsKeptRaw() throws {
        // Class CH (3) A records are not IPv4 addresses (RFC 1035 §3.4.1 is for class IN).
        let bytes =
            WireBytes.header(flags: 0x8180, qd: 0, an: 1)
            + WireBytes.record("x.test", type: 1, recordClass: 3, ttl: 0, rdata: [1, 2, 3, 4, 5, 6])
        #expect(try DNSMessage(parsing: bytes).answers.first?.data == .other([1, 2, 3, 4, 5, 6]))
    }

    @Test func unknownTypeKeepsItsRDATAOctets() throws {
        let bytes =
            WireBytes.header(flags: 0x8180, qd: 0, an: 1)
            + WireBytes.record("x.test", type: WireBytes.typeTXT, ttl: 5, rdata: [5, 0x68, 0x65, 0x6c, 0x6c, 0x6f])
        let record = try #require(try DNSMessage(parsing: bytes).answers.first)
        #expect(record.type == .txt)
        #expect(record.data == .other([5, 0x68, 0x65, 0x6c, 0x6c, 0x6f]))
    }

    @Test func octetsAfterTheLastSectionAreIgnored() throws {
        let message = try DNSMessage(parsing: Fixtures.unboundAAAA + [0xDE, 0xAD])
        #expect(message == (try DNSMessage(parsing: Fixtures.unboundAAAA)))
    }

    @Test func multiHopCompressionChainDecodes() throws {
        // "example.com" in the question; "www" + pointer to it in answer 1's owner; answer 2's CNAME
        // target is "cdn" + pointer to answer 1's owner: two hops, each strictly backwards.
        var bytes = WireBytes.header(flags: 0x8180, an: 2) + WireBytes.question("example.com", type: 1)
        let wwwOffset = bytes.count
        bytes += WireBytes.record(
            owner: [3, 0x77, 0x77, 0x77] + WireBytes.pointer(12), type: 5, ttl: 60,
            rdata: [3, 0x63, 0x64, 0x6e] + WireBytes.pointer(12))
        bytes += WireBytes.record(
            owner: WireBytes.pointer(wwwOffset), type: 5, ttl: 60,
            rdata: [3, 0x63, 0x64, 0x6e] + WireBytes.pointer(wwwOffset))
        let message = try DNSMessage(parsing: bytes)
        #expect(message.answers.map(\.name) == ["www.example.com", "www.example.com"])
        #expect(message.answers.map(\.data) == [.cname("cdn.example.com"), .cname("cdn.www.example.com")])
    }

    @Test func encodedMessageParsesBackToTheSameMessage() throws {
        for fixture in Fixtures.all {
            let message = try DNSMessage(parsing: fixture.bytes)
            #expect(try DNSMessage(parsing: message.encoded()) == message, "\(fixture)")
        }
    }

    @Test func encodingPutsExtendedRCODEIntoTheOPTRecord() throws {
        let message = DNSMessage(
            id: 7, isResponse: true, responseCode: .badVersion,
            questions: [DNSQuestion(name: "example.com", type: .a)],
            additionals: [DNSResourceRecord(name: "", type: .opt, recordClass: 1232, ttl: 0, data: .other([]))])
        let bytes = try message.encoded()
        #expect(Array(bytes[2..<4]) == [0x80, 0x00])
        #expect(Array(bytes.suffix(11)) == [0x00, 0x00, 0x29, 0x04, 0xd0, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00])
        #expect(try DNSMessage(parsing: bytes).responseCode == .badVersion)
    }

    @Test func encodingExtendedRCODEWithoutOPTFails() {
        let message = DNSMessage(isResponse: true, responseCode: .badVersion)
        #expect(throws: DNSWireError.extendedResponseCodeWithoutOPT(.badVersion)) { try message.encoded() }
    }

    @Test func typeAndRCODEDescriptionsUseMnemonics() {
        #expect(DNSRecordType.aaaa.description == "AAAA")
        #expect(DNSRecordType(rawValue: 999).description == "TYPE999")
        #expect(DNSResponseCode.nameError.description == "NXDOMAIN")
        #expect(DNSResponseCode.serverFailure.description == "SERVFAIL")
        #expect(DNSResponseCode.refused.description == "REFUSED")
        #expect(DNSResponseCode(rawValue: 3841).description == "RCODE3841")
    }

    @Test func encoderTurnsEscapesBackIntoLabelOctets() throws {
        let message = DNSMessage(
            isResponse: true,
            answers: [
                DNSResourceRecord(name: "a\\.b.\\000x.com", type: .a, ttl: 1, data: .a(try #require(IPAddress("192.0.2.1"))))
            ])
        let bytes = try message.encoded()
        #expect(Array(bytes[12..<24]) == [3, 0x61, 0x2E, 0x62, 2, 0x00, 0x78, 3, 0x63, 0x6f, 0x6d, 0])
        #expect(try DNSMessage(parsing: bytes) == message)
    }
}
