@testable import DNSResolver
import Foundation
import HTTPDNSCore
import Testing

@Suite("Hijack check")
struct HijackCheckTests {
    static func harness(system: @escaping @Sendable (String) throws -> [IPAddress]) throws -> ResolverHarness {
        try ResolverHarness(system: FakeSystemResolver(system)) { $0.families = .ipv4 }
    }

    @Test func matchingAnswersAgree() async throws {
        let comparison = try await Self.harness { _ in [IPAddress("192.0.2.1")!] }.resolver.compare(host: "a.test")
        #expect(comparison.verdict == .agree)
    }

    @Test func disjointAnswersDisagreeAndListBothSets() async throws {
        let comparison = try await Self.harness { _ in [IPAddress("203.0.113.66")!] }.resolver.compare(host: "A.test.")
        #expect(comparison.verdict == .disagree)
        #expect(comparison.host == "a.test")
        #expect(comparison.trusted == .success([IPAddress("192.0.2.1")!]))
        #expect(comparison.system == .success([IPAddress("203.0.113.66")!]))
    }

    @Test func aSystemAnswerForANameThatDoesNotExistDisagrees() async throws {
        let comparison = try await Self.harness { _ in [IPAddress("203.0.113.66")!] }.resolver.compare(host: "missing.test")
        #expect(comparison.verdict == .disagree)
    }

    @Test("a name with no address of the family asked on either side agrees: the system's other-family addresses are NODATA here too")
    func noDataOnBothSidesAgrees() async throws {
        // The fake zone's nodata.test has no A record; the system resolver knows only an IPv6 address.
        let comparison = try await Self.harness { _ in [IPAddress("2001:db8::9")!] }.resolver.compare(host: "nodata.test")
        #expect(comparison.system == .failure(.noAddresses(host: "nodata.test", negativeTTL: nil)))
        #expect(comparison.verdict == .agree)
    }

    @Test func aFailingSideIsReportedAsSuch() async throws {
        let comparison = try await Self.harness { name in throw ResolutionError.resolverUnavailable(host: name, reasons: ["timeout"]) }.resolver.compare(host: "a.test")
        #expect(comparison.verdict == .systemFailed)
    }

    @Test func theComparisonNeverUsesTheCache() async throws {
        let harness = try Self.harness { _ in [IPAddress("192.0.2.1")!] }
        _ = try await harness.resolve("a.test")
        _ = await harness.resolver.compare(host: "a.test")
        #expect(harness.queries == 2)
    }
}
