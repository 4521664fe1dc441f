import DNSResolver
import HTTPDNSCore
import Testing

@Suite("SystemResolver")
struct SystemResolverTests {
    @Test func localhostResolvesToALoopbackAddress() async throws {
        let resolution = try await SystemResolver().resolve(host: "LOCALHOST.", port: 443)
        #expect(resolution.host == "localhost")
        #expect(resolution.source == .system)
        #expect(resolution.ttl == nil)
        #expect(!resolution.addresses.isEmpty)
        #expect(resolution.addresses.allSatisfy { $0.isLoopback })
        #expect(Set(resolution.addresses).count == resolution.addresses.count, "no duplicates")
    }

    @Test func anIPLiteralIsReturnedAsALiteral() async throws {
        let resolution = try await SystemResolver().resolve(host: "[::1]", port: 443)
        #expect(resolution == HostResolution(host: "::1", addresses: [IPAddress("::1")!], ttl: nil, source: .literal))
    }

    @Test func anInvalidNameIsRejected() async throws {
        await #expect(throws: ResolutionError.invalidHostName("a..b")) {
            try await SystemResolver().resolve(host: "a..b", port: 443)
        }
    }
}
