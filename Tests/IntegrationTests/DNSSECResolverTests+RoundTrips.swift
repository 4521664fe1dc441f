import Foundation
import HTTPDNS
import Testing
import TestSupport

extension DNSSECResolverTests {
    @Test(
        "a cold validated lookup adds one round trip per zone below the anchor: the anchor zone's keys are asked for beside the address queries",
        arguments: [("www.dnssec.test", 3, 1), ("www.signed.dnssec.test", 5, 2)])
    func coldRoundTrips(host: String, queries: Int, roundTrips: Int) async throws {
        let client = try HTTPClient(configuration: HTTPClient.Configuration(trust: fixture.trust), resolver: SystemResolver())
        // A warm connection, so the first query does not carry the TLS handshake.
        _ = try await resolver(HostResolver.DNSSECSettings(policy: .off), transport: client).resolve(host: "a.test", port: 443, families: .ipv4)
        let timing = TimingDoHTransport(client, delay: .milliseconds(100))
        let resolver = try resolver(HostResolver.DNSSECSettings(policy: .require), transport: timing)
        let resolution = try await resolver.resolve(host: host, port: 443, families: .both)
        #expect(resolution.dnssec == .secure)
        // 100 ms before each query: longer than a loaded machine's scheduling delays, so queries
        // sent together overlap and those that wait for an answer do not.
        #expect(timing.spans.count == queries)
        #expect(timing.spans.roundTrips == roundTrips)
    }
}
