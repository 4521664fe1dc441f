import Testing
import DNSWire

/// `validateResponse(toQueryFor:type:id:)`: QR, ID and question echo (RFC 1035 §4.1.1).
@Suite struct ResponseValidationTests {
    @Test func matchingResponseIsAccepted() throws {
        try DNSMessage(parsing: Fixtures.unboundA).validateResponse(toQueryFor: "WWW.example.test.", type: .a, id: 0x1234)
    }

    @Test func queryIsNotAResponse() throws {
        let query = try DNSMessage(parsing: DNSMessage.query(name: "example.com", type: .a))
        #expect(throws: DNSWireError.notAResponse) { try query.validateResponse(toQueryFor: "example.com", type: .a) }
    }

    @Test func differentIDIsRejected() throws {
        let message = try DNSMessage(parsing: Fixtures.unboundA)
        #expect(throws: DNSWireError.idMismatch(expected: 0, received: 0x1234)) {
            try message.validateResponse(toQueryFor: "www.example.test", type: .a)
        }
    }

    @Test func differentQuestionIsRejected() throws {
        let message = try DNSMessage(parsing: Fixtures.unboundA)
        #expect(
            throws: DNSWireError.questionMismatch(
                expected: DNSQuestion(name: "www.example.test", type: .aaaa),
                received: DNSQuestion(name: "www.example.test", type: .a))
        ) {
            try message.validateResponse(toQueryFor: "www.example.test", type: .aaaa, id: 0x1234)
        }
    }

    @Test func errorWithoutQuestionSectionIsAccepted() throws {
        let message = try DNSMessage(parsing: WireBytes.header(flags: 0x8185, qd: 0))
        try message.validateResponse(toQueryFor: "example.com", type: .a)
    }
}
