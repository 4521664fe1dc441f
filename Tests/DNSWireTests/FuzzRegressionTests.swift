import Testing
import DNSWire

/// Inputs the libFuzzer targets in Fuzz/ found (scripts/fuzz.sh), as bytes: each failed once.
@Suite struct FuzzRegressionTests {
    /// FuzzDNSMessage, 28 bytes: an OPT record in the answer section (TTL 0x496e7400). Encoding wrote
    /// the extended RCODE into every OPT record, so this one's TTL came back as 0x006e7400.
    static let misplacedOPT: [UInt8] = [
        0x00, 0x00, 0x85, 0x80, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x02, 0x00, 0x00, 0x10,
        0x00, 0x00, 0x29, 0x44, 0xd0, 0x49, 0x6e, 0x74, 0x00, 0x00, 0x00
    ]

    @Test func optRecordOutsideTheAdditionalSectionKeepsItsTTLThroughEncoding() throws {
        let message = try DNSMessage(parsing: Self.misplacedOPT)
        #expect(message.answers.first?.ttl == 0x496e_7400)
        #expect(message.responseCode == .noError)
        #expect(try DNSMessage(parsing: message.encoded()) == message)
    }

    @Test func onlyTheAdditionalSectionOPTCarriesTheExtendedResponseCode() throws {
        let misplaced = DNSResourceRecord(name: "", type: .opt, recordClass: 512, ttl: 0x2a00_0000, data: .other([]))
        let opt = DNSResourceRecord(name: "", type: .opt, recordClass: 1232, ttl: 0x0000_8000, data: .other([]))
        let message = DNSMessage(isResponse: true, responseCode: .badVersion, authorities: [misplaced], additionals: [opt])
        let reparsed = try DNSMessage(parsing: message.encoded())
        #expect(reparsed.responseCode == .badVersion)
        #expect(reparsed.authorities.map(\.ttl) == [0x2a00_0000])
        #expect(reparsed.additionals.map(\.ttl) == [UInt32(DNSResponseCode.badVersion.rawValue >> 4) << 24 | 0x8000])
    }
}
