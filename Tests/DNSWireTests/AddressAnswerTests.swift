import HTTPDNSCore
import Testing
import DNSWire

/// `DNSMessage.addressAnswer(for:type:)`: CNAME chains, TTLs, negative answers (RFC 2308) and failures.
@Suite struct AddressAnswerTests {
    static func ip(_ text: String) -> IPAddress {
        guard let address = IPAddress(text) else { preconditionFailure("bad test address \(text)") }
        return address
    }

    static func answer(_ bytes: [UInt8], _ name: String, _ type: DNSRecordType) throws -> DNSAddressAnswer {
        try DNSMessage(parsing: bytes).addressAnswer(for: name, type: type)
    }

    static let a: UInt16 = WireBytes.typeA
    static let cname: UInt16 = WireBytes.typeCNAME

    /// NOERROR response for `qname A` with the given answer records.
    static func response(_ qname: String, rcode: UInt16 = 0, type: UInt16 = 1, answers: [[UInt8]] = [], authorities: [[UInt8]] = [], truncated: Bool = false) -> [UInt8] {
        WireBytes.header(flags: WireBytes.responseFlags(rcode: rcode, truncated: truncated), an: UInt16(answers.count), ns: UInt16(authorities.count))
            + WireBytes.question(qname, type: type) + answers.flatMap { $0 } + authorities.flatMap { $0 }
    }

    static func soa(_ zone: String, ttl: UInt32, minimum: UInt32) -> [UInt8] {
        WireBytes.record(zone, type: WireBytes.typeSOA, ttl: ttl, rdata: WireBytes.soa(mname: "ns1.\(zone)", rname: "hostmaster.\(zone)", minimum: minimum))
    }

    @Test func aAnswerGivesAddressesInMessageOrderWithTheirTTL() throws {
        #expect(
            try Self.answer(Fixtures.unboundA, "www.example.test", .a)
                == .addresses([Self.ip("192.0.2.11"), Self.ip("192.0.2.10")], ttl: 300, canonicalName: "www.example.test"))
    }

    @Test func aaaaAnswerGivesIPv6Addresses() throws {
        #expect(
            try Self.answer(Fixtures.unboundAAAA, "www.example.test", .aaaa)
                == .addresses([Self.ip("2001:db8::10")], ttl: 600, canonicalName: "www.example.test"))
    }

    @Test func queryNameMatchesCaseInsensitivelyAndWithTrailingDot() throws {
        #expect(
            try Self.answer(Fixtures.unboundA, "WWW.Example.Test.", .a)
                == .addresses([Self.ip("192.0.2.11"), Self.ip("192.0.2.10")], ttl: 300, canonicalName: "www.example.test"))
    }

    @Test func aaaaQuestionAgainstOnlyARecordsIsNoData() throws {
        #expect(try Self.answer(Fixtures.unboundA, "www.example.test", .aaaa) == .noData(negativeTTL: nil))
    }

    @Test func cnameChainTTLIsTheMinimumOverCNAMEsAndAddresses() throws {
        let bytes = Self.response(
            "www.example.com",
            answers: [
                WireBytes.record("www.example.com", type: Self.cname, ttl: 3600, rdata: WireBytes.name("edge.cdn.net")),
                WireBytes.record("edge.cdn.net", type: Self.cname, ttl: 45, rdata: WireBytes.name("pop1.cdn.net")),
                WireBytes.record("pop1.cdn.net", type: Self.a, ttl: 300, rdata: [198, 51, 100, 7]),
                WireBytes.record("pop1.cdn.net", type: Self.a, ttl: 200, rdata: [198, 51, 100, 8])
            ])
        #expect(
            try Self.answer(bytes, "www.example.com", .a)
                == .addresses([Self.ip("198.51.100.7"), Self.ip("198.51.100.8")], ttl: 45, canonicalName: "pop1.cdn.net"))
    }

    @Test func addressRecordTTLCanBeTheMinimum() throws {
        let bytes = Self.response(
            "www.example.com",
            answers: [
                WireBytes.record("www.example.com", type: Self.cname, ttl: 3600, rdata: WireBytes.name("edge.cdn.net")),
                WireBytes.record("edge.cdn.net", type: Self.a, ttl: 20, rdata: [198, 51, 100, 7])
            ])
        #expect(
            try Self.answer(bytes, "www.example.com", .a)
                == .addresses([Self.ip("198.51.100.7")], ttl: 20, canonicalName: "edge.cdn.net"))
    }

    @Test func recordsForNamesOffTheChainAreIgnored() throws {
        // A hostile server adds an A record for the query's name's sibling, an A record for the CNAME
        // owner's target's unrelated neighbour, and a CNAME that is not on the chain.
        let bytes = Self.response(
            "www.example.com",
            answers: [
                WireBytes.record("bank.example.com", type: Self.a, ttl: 99_999, rdata: [203, 0, 113, 66]),
                WireBytes.record("www.example.com", type: Self.cname, ttl: 600, rdata: WireBytes.name("edge.cdn.net")),
                WireBytes.record("other.cdn.net", type: Self.a, ttl: 5, rdata: [203, 0, 113, 67]),
                WireBytes.record("evil.net", type: Self.cname, ttl: 1, rdata: WireBytes.name("edge.cdn.net")),
                WireBytes.record("edge.cdn.net", type: Self.a, ttl: 300, rdata: [198, 51, 100, 7])
            ])
        #expect(
            try Self.answer(bytes, "www.example.com", .a)
                == .addresses([Self.ip("198.51.100.7")], ttl: 300, canonicalName: "edge.cdn.net"))
    }

    @Test func unrelatedAddressWithoutChainIsNoData() throws {
        let bytes = Self.response(
            "www.example.com",
            answers: [
                WireBytes.record("attacker.example", type: Self.a, ttl: 300, rdata: [203, 0, 113, 66])
            ])
        #expect(try Self.answer(bytes, "www.example.com", .a) == .noData(negativeTTL: nil))
    }

    @Test func cnameLoopIsAServerFailure() throws {
        let bytes = Self.response(
            "a.example.com",
            answers: [
                WireBytes.record("a.example.com", type: Self.cname, ttl: 60, rdata: WireBytes.name("b.example.com")),
                WireBytes.record("b.example.com", type: Self.cname, ttl: 60, rdata: WireBytes.name("A.example.com"))
            ])
        #expect(try Self.answer(bytes, "a.example.com", .a) == .failure(.serverFailure))
    }

    @Test func cnameToItselfIsAServerFailure() throws {
        let bytes = Self.response(
            "a.example.com",
            answers: [
                WireBytes.record("a.example.com", type: Self.cname, ttl: 60, rdata: WireBytes.name("a.example.com"))
            ])
        #expect(try Self.answer(bytes, "a.example.com", .a) == .failure(.serverFailure))
    }

    @Test func cnameWithoutTargetAddressesIsNoData() throws {
        #expect(try Self.answer(Fixtures.unboundCNAMEOnly, "alias.example.test", .a) == .noData(negativeTTL: nil))
    }

    @Test func duplicateAddressesAreReportedOnce() throws {
        let record = WireBytes.record("x.example.com", type: Self.a, ttl: 60, rdata: [192, 0, 2, 1])
        let bytes = Self.response("x.example.com", answers: [record, record])
        #expect(try Self.answer(bytes, "x.example.com", .a) == .addresses([Self.ip("192.0.2.1")], ttl: 60, canonicalName: "x.example.com"))
    }

    @Test func ttlWithTopBitSetCountsAsZero() throws {
        let bytes = Self.response(
            "x.example.com",
            answers: [
                WireBytes.record("x.example.com", type: Self.a, ttl: 0x8000_0000, rdata: [192, 0, 2, 1])
            ])
        #expect(try Self.answer(bytes, "x.example.com", .a) == .addresses([Self.ip("192.0.2.1")], ttl: 0, canonicalName: "x.example.com"))
    }

    @Test func nxdomainFromUnboundUsesSOANegativeTTL() throws {
        #expect(try Self.answer(Fixtures.unboundNXDOMAIN, "nope.example.test", .a) == .nameError(negativeTTL: 300))
    }

    @Test func nxdomainNegativeTTLIsSOAMinimumWhenSmallerThanSOATTL() throws {
        let bytes = Self.response("nope.example.com", rcode: 3, authorities: [Self.soa("example.com", ttl: 3600, minimum: 60)])
        #expect(try Self.answer(bytes, "nope.example.com", .a) == .nameError(negativeTTL: 60))
    }

    @Test func nxdomainNegativeTTLIsSOARecordTTLWhenSmallerThanMinimum() throws {
        let bytes = Self.response("nope.example.com", rcode: 3, authorities: [Self.soa("example.com", ttl: 30, minimum: 900)])
        #expect(try Self.answer(bytes, "nope.example.com", .a) == .nameError(negativeTTL: 30))
    }

    @Test func nxdomainWithoutSOAHasNoNegativeTTL() throws {
        let bytes = Self.response("nope.example.com", rcode: 3)
        #expect(try Self.answer(bytes, "nope.example.com", .a) == .nameError(negativeTTL: nil))
    }

    @Test func nxdomainAfterCNAMEIsANameErrorWithTheTargetZoneSOA() throws {
        let bytes = Self.response(
            "www.example.com", rcode: 3,
            answers: [
                WireBytes.record("www.example.com", type: Self.cname, ttl: 600, rdata: WireBytes.name("gone.cdn.net"))
            ], authorities: [Self.soa("cdn.net", ttl: 120, minimum: 100)])
        #expect(try Self.answer(bytes, "www.example.com", .a) == .nameError(negativeTTL: 100))
    }

    @Test func soaOfAnUnrelatedZoneGivesNoNegativeTTL() throws {
        let bytes = Self.response("nope.example.com", rcode: 3, authorities: [Self.soa("attacker.net", ttl: 1, minimum: 1)])
        #expect(try Self.answer(bytes, "nope.example.com", .a) == .nameError(negativeTTL: nil))
    }

    @Test func soaOfALabelSuffixThatIsNotAParentZoneIsIgnored() throws {
        // "ample.com" is a string suffix of "nope.example.com" but not an ancestor zone.
        let bytes = Self.response("nope.example.com", rcode: 3, authorities: [Self.soa("ample.com", ttl: 1, minimum: 1)])
        #expect(try Self.answer(bytes, "nope.example.com", .a) == .nameError(negativeTTL: nil))
    }

    @Test func nodataFromUnboundUsesSOANegativeTTL() throws {
        #expect(try Self.answer(Fixtures.unboundNODATA, "txtonly.example.test", .a) == .noData(negativeTTL: 300))
    }

    @Test func nodataNegativeTTLIsTheMinimumOfSOATTLAndMinimum() throws {
        let bytes = Self.response("txt.example.com", authorities: [Self.soa("example.com", ttl: 3600, minimum: 90)])
        #expect(try Self.answer(bytes, "txt.example.com", .aaaa) == .noData(negativeTTL: 90))
    }

    @Test func servfailIsAFailure() throws {
        #expect(try Self.answer(Self.response("x.example.com", rcode: 2), "x.example.com", .a) == .failure(.serverFailure))
    }

    @Test func refusedIsAFailure() throws {
        #expect(try Self.answer(Self.response("x.example.com", rcode: 5), "x.example.com", .a) == .failure(.refused))
    }

    @Test func formerrAndNotimpAreFailures() throws {
        #expect(try Self.answer(Self.response("x.example.com", rcode: 1), "x.example.com", .a) == .failure(.formatError))
        #expect(try Self.answer(Self.response("x.example.com", rcode: 4), "x.example.com", .a) == .failure(.notImplemented))
    }

    @Test func failureRCODEWinsOverAddressesInTheAnswer() throws {
        let bytes = Self.response(
            "x.example.com", rcode: 2,
            answers: [
                WireBytes.record("x.example.com", type: Self.a, ttl: 60, rdata: [192, 0, 2, 1])
            ])
        #expect(try Self.answer(bytes, "x.example.com", .a) == .failure(.serverFailure))
    }

    @Test func truncatedResponseIsReportedBeforeAnythingElse() throws {
        let withAddresses = Self.response(
            "x.example.com",
            answers: [
                WireBytes.record("x.example.com", type: Self.a, ttl: 60, rdata: [192, 0, 2, 1])
            ], truncated: true)
        #expect(try Self.answer(withAddresses, "x.example.com", .a) == .truncated)
        #expect(try Self.answer(Self.response("x.example.com", rcode: 3, truncated: true), "x.example.com", .a) == .truncated)
    }

    @Test func escapedLabelNeverMatchesADottedName() throws {
        // One label "www.example" (dot inside) under "com": the textual form is "www\.example.com".
        let owner: [UInt8] = [11] + Array("www.example".utf8) + [3] + Array("com".utf8) + [0]
        let bytes = Self.response("www.example.com", answers: [WireBytes.record(owner: owner, type: Self.a, ttl: 60, rdata: [203, 0, 113, 9])])
        #expect(try Self.answer(bytes, "www.example.com", .a) == .noData(negativeTTL: nil))
    }
}
