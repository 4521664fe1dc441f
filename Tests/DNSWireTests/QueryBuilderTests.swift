import Testing
import DNSWire

/// RFC 8484 §4.1 queries: exact octets, padding (RFC 7830, RFC 8467 §4.1) and name validation.
@Suite struct QueryBuilderTests {
    /// `example.com A` as RFC 1035 §4.1 and RFC 6891 §6.1.2 lay it out, padded to 128 octets.
    static let exampleComA: [UInt8] =
        [
            0x00, 0x00, // ID 0 (RFC 8484 §4.1)
            0x01, 0x00, // QR 0, OPCODE 0, RD 1
            0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, // QDCOUNT 1, ANCOUNT 0, NSCOUNT 0, ARCOUNT 1
            0x07, 0x65, 0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65, 0x03, 0x63, 0x6f, 0x6d, 0x00, // example.com
            0x00, 0x01, 0x00, 0x01, // QTYPE A, QCLASS IN
            0x00, 0x00, 0x29, 0x10, 0x00, // OPT: root owner, TYPE 41, UDP size 4096
            0x00, 0x00, 0x00, 0x00, // extended RCODE 0, version 0, flags 0
            0x00, 0x58, // RDLENGTH 88
            0x00, 0x0c, 0x00, 0x54 // Padding option (12), 84 octets
        ] + [UInt8](repeating: 0, count: 84)

    @Test func shortNameQueryHasExactOctetsPaddedTo128() throws {
        let query = try DNSMessage.query(name: "example.com", type: .a)
        #expect(query == Self.exampleComA)
        #expect(query.count == 128)
    }

    @Test func trailingDotAndUpperCaseEncodeTheSameAsTheCanonicalName() throws {
        #expect(try DNSMessage.query(name: "Example.COM.", type: .a) == Self.exampleComA)
    }

    @Test func headerHasIDZeroRDSetOneQuestionAndOneAdditional() throws {
        let query = try DNSMessage.query(name: "www.example.org", type: .aaaa)
        #expect(Array(query[0..<12]) == [0x00, 0x00, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01])
    }

    @Test func explicitIDIsWrittenBigEndian() throws {
        let query = try DNSMessage.query(name: "example.com", type: .a, id: 0xBEEF)
        #expect(Array(query[0..<4]) == [0xBE, 0xEF, 0x01, 0x00])
    }

    @Test func aaaaQuestionCarriesQTYPE28() throws {
        let query = try DNSMessage.query(name: "example.com", type: .aaaa)
        #expect(Array(query[25..<29]) == [0x00, 0x1c, 0x00, 0x01])
    }

    @Test func longNameIsPaddedToTheNextMultipleOf128() throws {
        // Four 50-octet labels: QNAME 205 octets, 236 unpadded, so 256 with 20 octets of padding.
        let label = String(repeating: "a", count: 50)
        let name = [label, label, label, label].joined(separator: ".")
        let query = try DNSMessage.query(name: name, type: .a)
        #expect(query.count == 256)
        let optStart = 12 + 205 + 4
        #expect(
            Array(query[optStart..<(optStart + 15)]) == [
                0x00, 0x00, 0x29, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00,
                0x00, 0x18, // RDLENGTH 24
                0x00, 0x0c, 0x00, 0x14 // Padding, 20 octets
            ])
        #expect(query[(optStart + 15)...].allSatisfy { $0 == 0 })
        #expect(query.count - (optStart + 15) == 20)
    }

    @Test func messageAlreadyOnABlockBoundaryGetsAnEmptyPaddingOption() throws {
        // QNAME of 97 octets (two 47-octet labels) makes exactly 128 octets with a zero-length option.
        let label = String(repeating: "b", count: 47)
        let query = try DNSMessage.query(name: "\(label).\(label)", type: .a)
        #expect(query.count == 128)
        #expect(Array(query.suffix(6)) == [0x00, 0x04, 0x00, 0x0c, 0x00, 0x00])
    }

    @Test func paddingFollowsACustomBlockSize() throws {
        let query = try DNSMessage.query(name: "example.com", type: .a, paddingBlockSize: 468)
        #expect(query.count == 468)
    }

    @Test func nilBlockSizeSendsOPTWithoutPaddingOption() throws {
        let query = try DNSMessage.query(name: "example.com", type: .a, paddingBlockSize: nil)
        #expect(query == Array(Self.exampleComA[0..<38]) + [0x00, 0x00])
        #expect(query.count == 40)
    }

    @Test func builtQueryParsesBackWithQuestionAndPaddedOPT() throws {
        let message = try DNSMessage(parsing: DNSMessage.query(name: "example.com", type: .aaaa))
        #expect(message.id == 0)
        #expect(!message.isResponse)
        #expect(message.recursionDesired)
        #expect(message.questions == [DNSQuestion(name: "example.com", type: .aaaa, recordClass: 1)])
        #expect(message.answers.isEmpty && message.authorities.isEmpty)
        #expect(message.additionals.count == 1)
        let opt = try #require(message.additionals.first)
        #expect(opt.type == .opt)
        #expect(opt.name == "")
        #expect(opt.recordClass == 4096)
        #expect(opt.data == .other([0x00, 0x0c, 0x00, 0x54] + [UInt8](repeating: 0, count: 84)))
    }

    @Test func nameOfExactly255WireOctetsIsAccepted() throws {
        // 63+1 ×3 = 192, + 61+1 = 254, + root = 255.
        let name =
            [String](repeating: String(repeating: "c", count: 63), count: 3).joined(separator: ".")
            + "." + String(repeating: "d", count: 61)
        let query = try DNSMessage.query(name: name, type: .a, paddingBlockSize: nil)
        #expect(query.count == 12 + 255 + 4 + 11)
    }

    @Test func nameOver255WireOctetsIsRejected() {
        let name =
            [String](repeating: String(repeating: "c", count: 63), count: 3).joined(separator: ".")
            + "." + String(repeating: "d", count: 62)
        #expect(throws: DNSWireError.invalidName(name, .nameTooLong(wireLength: 256))) {
            try DNSMessage.query(name: name, type: .a)
        }
    }

    @Test func labelOf64OctetsIsRejected() {
        let name = String(repeating: "x", count: 64) + ".com"
        #expect(throws: DNSWireError.invalidName(name, .labelTooLong(length: 64))) {
            try DNSMessage.query(name: name, type: .a)
        }
    }

    @Test func emptyLabelsAreRejected() {
        for name in ["a..b", ".a", "a.."] {
            #expect(throws: DNSWireError.invalidName(name, .emptyLabel)) { try DNSMessage.query(name: name, type: .a) }
        }
    }

    @Test func emptyNameIsRejected() {
        #expect(throws: DNSWireError.invalidName("", .empty)) { try DNSMessage.query(name: "", type: .a) }
    }

    @Test func nonASCIINameIsRejectedAskingForAnALabel() {
        #expect(throws: DNSWireError.invalidName("bücher.de", .invalidCharacter(0xC3))) {
            try DNSMessage.query(name: "bücher.de", type: .a)
        }
    }

    @Test func spaceAndControlCharactersAreRejected() {
        #expect(throws: DNSWireError.invalidName("a b.com", .invalidCharacter(0x20))) {
            try DNSMessage.query(name: "a b.com", type: .a)
        }
        #expect(throws: DNSWireError.invalidName("a\u{7}.com", .invalidCharacter(0x07))) {
            try DNSMessage.query(name: "a\u{7}.com", type: .a)
        }
    }

    @Test func backslashEscapesAreNotAcceptedInQueries() {
        #expect(throws: DNSWireError.invalidName("a\\.b.com", .invalidEscape)) {
            try DNSMessage.query(name: "a\\.b.com", type: .a)
        }
    }

    @Test func rootNameIsASingleZeroOctet() throws {
        let query = try DNSMessage.query(name: ".", type: .ns, paddingBlockSize: nil)
        #expect(Array(query[12..<17]) == [0x00, 0x00, 0x02, 0x00, 0x01])
    }

    @Test func paddingBlockSizeOutsideOneTo65535IsRejected() {
        #expect(throws: DNSWireError.invalidPaddingBlockSize(0)) { try DNSMessage.query(name: "a.com", type: .a, paddingBlockSize: 0) }
        #expect(throws: DNSWireError.invalidPaddingBlockSize(-128)) { try DNSMessage.query(name: "a.com", type: .a, paddingBlockSize: -128) }
        #expect(throws: DNSWireError.invalidPaddingBlockSize(65536)) { try DNSMessage.query(name: "a.com", type: .a, paddingBlockSize: 65536) }
    }

    @Test func errorDescriptionNamesTheNameAndTheLimit() {
        let error = DNSWireError.invalidName("x.com", .labelTooLong(length: 64))
        #expect(error.description == "invalid DNS name 'x.com': a label is 64 octets long; the limit is 63 (RFC 1035 §2.3.4)")
    }
}
