@testable import DNSResolver
import Foundation
import HTTPDNSCore
import Testing

@Suite("Provider pool")
struct ProviderPoolTests {
    static func pool(failing: Set<String>, clock: ManualClock, threshold: Int = 2) -> ProviderPool {
        var configuration = HostResolver.Configuration(endpoints: [ResolverHarness.first, ResolverHarness.second], families: .ipv4)
        configuration.failureThreshold = threshold
        configuration.failureBackoff = 30
        let transport = ResolverHarness.transport(failing: failing) { _ in DoHHTTPResponse(status: 500, contentType: "text/plain", body: Data()) }
        return ProviderPool(configuration: configuration, transport: transport, clock: clock)
    }

    @Test func aFailingProviderIsPassedOverAndItsFailuresCounted() async {
        let clock = ManualClock()
        let pool = Self.pool(failing: [ResolverHarness.first.url.absoluteString], clock: clock)
        guard case .answered(.addresses(let addresses, _), let provider) = await pool.query("a.test", families: .ipv4) else {
            Issue.record("no answer"); return
        }
        #expect(addresses == [IPAddress("192.0.2.1")!])
        #expect(provider.url == ResolverHarness.second.url)
        #expect(pool.snapshot.map(\.consecutiveFailures) == [1, 0])
    }

    @Test("after the threshold a provider is skipped until its back-off ends, on the injected clock")
    func backOff() async {
        let clock = ManualClock()
        let pool = Self.pool(failing: [ResolverHarness.first.url.absoluteString], clock: clock)
        _ = await pool.query("a.test", families: .ipv4)
        _ = await pool.query("a.test", families: .ipv4)
        #expect(pool.order(for: "a.test") == [1])
        clock.advance(by: 31)
        #expect(pool.order(for: "a.test") == [0, 1])
    }

    @Test func everyProviderFailingGivesEachReasonInOrder() async {
        let pool = Self.pool(failing: [ResolverHarness.first.url.absoluteString, ResolverHarness.second.url.absoluteString], clock: ManualClock())
        guard case .failed(let reasons) = await pool.query("a.test", families: .ipv4) else { Issue.record("answered"); return }
        #expect(reasons.count == 2)
        #expect(reasons[0].hasPrefix("https://one.test/dns-query: HTTP 500"))
        #expect(reasons[1].hasPrefix("https://two.test:8443/dns-query: HTTP 500"))
    }

    @Test func aProviderWithoutABatchAPIGivesNoBatch() async {
        let batch = await Self.pool(failing: [], clock: ManualClock()).batchLookup(["a.test"], families: .ipv4)
        #expect(batch.map { _ in true } == nil)
    }
}
