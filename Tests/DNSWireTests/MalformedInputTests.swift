import Testing
import TestSupport
import DNSWire

/// Hostile and broken input: every case must end in a typed `DNSWireError`, never a trap.
@Suite struct MalformedInputTests {
    static func parseError(_ bytes: [UInt8]) -> DNSWireError? {
        do {
            _ = try DNSMessage(parsing: bytes)
            return nil
        } catch {
            return error
        }
    }

    /// A response with no question and two answers: a TXT record whose RDATA (not parsed as names)
    /// holds `rdata`, starting at offset 23, then a record whose owner name is `owner`.
    static func nameInTXT(rdata: [UInt8], owner: [UInt8]) -> [UInt8] {
        WireBytes.header(flags: 0x8180, qd: 0, an: 2)
            + WireBytes.record("", type: WireBytes.typeTXT, ttl: 0, rdata: rdata)
            + WireBytes.record(owner: owner, type: WireBytes.typeTXT, ttl: 0, rdata: [])
    }

    static let txtRDataStart = 23

    // MARK: Truncation

    @Test(arguments: Fixtures.all)
    func everyProperPrefixOfAValidResponseIsATypedTruncationError(fixture: NamedBytes) {
        for length in 0..<fixture.bytes.count {
            switch Self.parseError(Array(fixture.bytes.prefix(length))) {
            case .truncated?, .tooManyRecords?:
                break
            case let other:
                Issue.record("prefix of \(length) octets of \(fixture): expected a truncation error, got \(String(describing: other))")
            }
        }
    }

    @Test func prefixEndingInsideTheHeaderReportsTheOffsetAndShortfall() {
        #expect(Self.parseError(Array(Fixtures.unboundA.prefix(5))) == .truncated(offset: 4, needed: 2, available: 1))
    }

    @Test func prefixEndingBeforeRDLENGTHReportsTheOffset() {
        #expect(Self.parseError(Array(Fixtures.unboundA.prefix(60))) == .truncated(offset: 60, needed: 2, available: 0))
    }

    @Test func prefixEndingInsideRDATAReportsTheShortfall() {
        #expect(Self.parseError(Array(Fixtures.unboundA.prefix(64))) == .truncated(offset: 62, needed: 4, available: 2))
    }

    @Test func emptyInputIsTruncatedAtOffsetZero() {
        #expect(Self.parseError([]) == .truncated(offset: 0, needed: 2, available: 0))
    }

    @Test func rdlengthBeyondTheMessageIsTruncation() {
        let bytes = WireBytes.header(flags: 0x8180, qd: 0, an: 1) + [0x00, 0x00, 0x10, 0x00, 0x01, 0, 0, 0, 0, 0xFF, 0xFF, 1, 2, 3, 4]
        #expect(Self.parseError(bytes) == .truncated(offset: 23, needed: 65535, available: 4))
    }

    // MARK: Counts

    @Test func hugeCountsWithTinyDataFailBeforeReading() {
        let bytes = WireBytes.header(flags: 0x8180, qd: 65535, an: 65535, ns: 65535, ar: 65535) + [0, 0, 1, 0, 1]
        #expect(Self.parseError(bytes) == .tooManyRecords(section: .question, count: 65535, available: 5))
    }

    @Test func hugeAnswerCountAfterAValidQuestionFails() {
        let bytes =
            WireBytes.header(flags: 0x8180, qd: 1, an: 65535) + WireBytes.question("example.com", type: 1)
            + WireBytes.record("example.com", type: 1, ttl: 1, rdata: [192, 0, 2, 1])
        #expect(Self.parseError(bytes) == .tooManyRecords(section: .answer, count: 65535, available: 27))
    }

    @Test func hugeAdditionalCountFails() {
        let bytes = WireBytes.header(flags: 0x8180, qd: 0, ar: 40_000) + [UInt8](repeating: 0, count: 64)
        #expect(Self.parseError(bytes) == .tooManyRecords(section: .additional, count: 40_000, available: 64))
    }

    @Test func tooManyRecordsDescriptionIsActionable() {
        let error = DNSWireError.tooManyRecords(section: .answer, count: 65535, available: 27)
        #expect(error.description == "DNS message claims 65535 answer entries but only 27 octet(s) remain: truncated or corrupt")
    }

    // MARK: Compression pointers

    @Test func pointerToItselfIsALoop() {
        let bytes = WireBytes.header(flags: 0x8180) + WireBytes.pointer(12) + [0, 1, 0, 1]
        #expect(Self.parseError(bytes) == .compressionLoop(offset: 12, target: 12))
    }

    @Test func pointerBackToTheStartOfItsOwnNameIsALoop() {
        let bytes = WireBytes.header(flags: 0x8180) + [1, 0x61] + WireBytes.pointer(12) + [0, 1, 0, 1]
        #expect(Self.parseError(bytes) == .compressionLoop(offset: 14, target: 12))
    }

    @Test func pointerIntoTheSegmentItWasReachedFromIsALoop() {
        // At 23: a 4-octet label whose content [1 x 1 y] is itself two labels, then a pointer at 28 to 24.
        // Read from 24 (after a jump to 23), this would cycle 24 → 28 → 24 forever.
        let rdata: [UInt8] = [4, 1, 0x78, 1, 0x79] + WireBytes.pointer(24)
        let bytes = Self.nameInTXT(rdata: rdata, owner: WireBytes.pointer(Self.txtRDataStart))
        #expect(Self.parseError(bytes) == .compressionLoop(offset: 28, target: 24))
    }

    @Test func forwardPointerIsRejected() {
        let bytes = WireBytes.header(flags: 0x8180) + WireBytes.pointer(16) + [0, 1, 0, 1]
        #expect(Self.parseError(bytes) == .forwardPointer(offset: 12, target: 16))
    }

    @Test func mutualPointersAreRejectedAsForward() {
        // Question name at 12 points to the answer owner at 18, which points back to 12.
        let bytes =
            WireBytes.header(flags: 0x8180, an: 1) + WireBytes.pointer(18) + [0, 1, 0, 1]
            + WireBytes.record(owner: WireBytes.pointer(12), type: 1, ttl: 0, rdata: [1, 2, 3, 4])
        #expect(Self.parseError(bytes) == .forwardPointer(offset: 12, target: 18))
    }

    @Test func pointerPastTheEndIsOutOfBounds() {
        let bytes = WireBytes.header(flags: 0x8180) + [0xFF, 0xFF] + [0, 1, 0, 1]
        #expect(Self.parseError(bytes) == .pointerOutOfBounds(offset: 12, target: 0x3FFF, messageLength: 18))
    }

    @Test func pointerCutInHalfIsTruncation() {
        // Owner name: a 10-octet label, then the message ends after the first octet of a pointer.
        let bytes = WireBytes.header(flags: 0x8180, qd: 0, an: 1) + [10] + [UInt8](repeating: 0x61, count: 10) + [0xC0]
        #expect(Self.parseError(bytes) == .truncated(offset: 23, needed: 2, available: 1))
    }

    @Test func chainOf127PointersIsAccepted() throws {
        let bytes = Self.nameInTXT(rdata: Self.pointerChain(hops: 126), owner: WireBytes.pointer(Self.txtRDataStart + 1 + 2 * 125))
        let message = try DNSMessage(parsing: bytes)
        #expect(message.answers.last?.name == "")
    }

    @Test func chainOf128PointersIsRejected() {
        let ownerOffset = 12 + 11 + (1 + 2 * 127)
        let bytes = Self.nameInTXT(rdata: Self.pointerChain(hops: 127), owner: WireBytes.pointer(Self.txtRDataStart + 1 + 2 * 126))
        #expect(Self.parseError(bytes) == .tooManyCompressionPointers(offset: ownerOffset))
    }

    /// A root octet followed by `hops` pointers, each to the one before.
    static func pointerChain(hops: Int) -> [UInt8] {
        var rdata: [UInt8] = [0]
        for hop in 0..<hops {
            rdata += WireBytes.pointer(txtRDataStart + (hop == 0 ? 0 : 1 + 2 * (hop - 1)))
        }
        return rdata
    }

    // MARK: Labels and names

    @Test func labelLengthOctet64IsRejected() {
        let bytes = WireBytes.header(flags: 0x8180) + [0x40] + [UInt8](repeating: 0x61, count: 64) + [0, 0, 1, 0, 1]
        #expect(Self.parseError(bytes) == .labelTooLong(offset: 12, lengthOctet: 0x40))
    }

    @Test func extendedLabelType10IsRejected() {
        let bytes = WireBytes.header(flags: 0x8180) + [0x80, 0x01, 0x61, 0x00, 0, 1, 0, 1]
        #expect(Self.parseError(bytes) == .labelTooLong(offset: 12, lengthOctet: 0x80))
    }

    @Test func uncompressedNameOver255OctetsIsRejected() {
        let label: [UInt8] = [63] + [UInt8](repeating: 0x61, count: 63)
        let bytes = WireBytes.header(flags: 0x8180) + label + label + label + label + [0, 0, 1, 0, 1]
        #expect(Self.parseError(bytes) == .nameTooLong(offset: 12))
    }

    @Test func nameOfExactly255OctetsIsAccepted() throws {
        let label: [UInt8] = [63] + [UInt8](repeating: 0x61, count: 63)
        let last: [UInt8] = [61] + [UInt8](repeating: 0x62, count: 61)
        let bytes = WireBytes.header(flags: 0x8180) + label + label + label + last + [0, 0, 1, 0, 1]
        let name = try #require(try DNSMessage(parsing: bytes).questions.first?.name)
        #expect(name.utf8.count == 253)
    }

    @Test func nameOver255OctetsThroughPointersIsRejected() {
        // Four 63-octet labels, each segment pointing to the previous: 4 × 64 + 1 = 257 octets.
        let label: [UInt8] = [63] + [UInt8](repeating: 0x61, count: 63)
        let s0 = Self.txtRDataStart, s1 = s0 + 65, s2 = s1 + 66, s3 = s2 + 66
        let rdata = label + [0] + label + WireBytes.pointer(s0) + label + WireBytes.pointer(s1) + label + WireBytes.pointer(s2)
        let bytes = Self.nameInTXT(rdata: rdata, owner: WireBytes.pointer(s3))
        #expect(Self.parseError(bytes) == .nameTooLong(offset: 12 + 11 + rdata.count))
    }

    // MARK: RDATA

    static func answer(type: UInt16, rdata: [UInt8]) -> [UInt8] {
        WireBytes.header(flags: 0x8180, an: 1) + WireBytes.question("x.test", type: type)
            + WireBytes.record("x.test", type: type, ttl: 60, rdata: rdata)
    }

    static let answerOffset = 12 + 8 + 4

    @Test func aRecordWithFiveOctetsIsRejected() {
        #expect(Self.parseError(Self.answer(type: 1, rdata: [192, 0, 2, 1, 9])) == .badRDataLength(type: .a, offset: Self.answerOffset, length: 5))
    }

    @Test func aRecordWithThreeOctetsIsRejected() {
        #expect(Self.parseError(Self.answer(type: 1, rdata: [192, 0, 2])) == .badRDataLength(type: .a, offset: Self.answerOffset, length: 3))
    }

    @Test func aaaaRecordWithFourOctetsIsRejected() {
        #expect(Self.parseError(Self.answer(type: 28, rdata: [192, 0, 2, 1])) == .badRDataLength(type: .aaaa, offset: Self.answerOffset, length: 4))
    }

    @Test func badRDataLengthDescriptionSaysWhatWasExpected() {
        #expect(
            DNSWireError.badRDataLength(type: .aaaa, offset: 24, length: 4).description
                == "AAAA record at offset 24 has 4 octets of RDATA; expected 16 (RFC 3596 §2.2)")
    }

    @Test func cnameRDATALongerThanItsNameIsRejected() {
        let bytes = Self.answer(type: 5, rdata: WireBytes.name("a.test") + [0xFF])
        #expect(Self.parseError(bytes) == .badRDataLength(type: .cname, offset: Self.answerOffset, length: 9))
    }

    @Test func cnameNameRunningPastRDLENGTHIsRejected() {
        // RDLENGTH 3 but the name "a.test" needs 8; the rest would be read from the following octets.
        let bytes =
            WireBytes.header(flags: 0x8180, an: 1) + WireBytes.question("x.test", type: 5)
            + WireBytes.name("x.test") + [0, 5, 0, 1, 0, 0, 0, 60, 0, 3] + WireBytes.name("a.test")
        #expect(Self.parseError(bytes) == .badRDataLength(type: .cname, offset: Self.answerOffset, length: 3))
    }

    @Test func soaWithShortFixedFieldsIsRejected() {
        let rdata = Array(WireBytes.soa(mname: "ns.x.test", rname: "h.x.test", minimum: 60).dropLast())
        #expect(Self.parseError(Self.answer(type: 6, rdata: rdata)) == .badRDataLength(type: .soa, offset: Self.answerOffset, length: rdata.count))
    }

    // MARK: Random input

    @Test func randomBytesNeverCrash() {
        var generator = SeededGenerator(seed: 0x5EED_D15C)
        var parsed = 0
        for _ in 0..<4000 {
            let length = Int.random(in: 0..<300, using: &generator)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if bytes.count >= 12, Bool.random(using: &generator) {
                // Small counts so parsing gets past the header into names and records.
                for index in stride(from: 4, to: 12, by: 2) {
                    bytes[index] = 0
                    bytes[index + 1] = UInt8.random(in: 0...2, using: &generator)
                }
            }
            if Self.exercise(bytes) { parsed += 1 }
        }
        #expect(parsed > 0)
    }

    @Test func mutatedRealResponsesNeverCrash() {
        var generator = SeededGenerator(seed: 42)
        var parsed = 0, rejected = 0
        for fixture in Fixtures.all {
            for _ in 0..<600 {
                var bytes = fixture.bytes
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    let index = Int.random(in: 0..<bytes.count, using: &generator)
                    bytes[index] = UInt8.random(in: 0...255, using: &generator)
                }
                if Self.exercise(bytes) { parsed += 1 } else { rejected += 1 }
            }
        }
        #expect(parsed > 0)
        #expect(rejected > 0)
    }

    /// Parses, interprets and re-encodes; a message that parses must survive an encode/parse round trip.
    static func exercise(_ bytes: [UInt8]) -> Bool {
        guard let message = try? DNSMessage(parsing: bytes) else { return false }
        _ = message.addressAnswer(for: message.questions.first?.name ?? "example.com", type: .a)
        _ = message.addressAnswer(for: "example.com", type: .aaaa)
        do {
            let reparsed = try DNSMessage(parsing: message.encoded())
            #expect(reparsed == message, "round trip of \(bytes)")
        } catch {
            Issue.record("a parsed message failed to round-trip: \(error) for \(bytes)")
        }
        return true
    }
}
