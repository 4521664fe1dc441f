import Testing
@testable import DNSWire

@Suite struct QueryBuilderTests {
    @Test func smokeQueryIsPaddedTo128() throws {
        let query = try DNSMessage.query(name: "example.com", type: .a)
        #expect(query.count == 128)
    }
}
