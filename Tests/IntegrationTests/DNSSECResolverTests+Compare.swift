import Foundation
import HTTPDNS
import Testing
import TestSupport

/// The hijack check with proof: on a signed zone, which side's answer the zone's signatures back.
extension DNSSECResolverTests {
    /// A system resolver that answers from a table (NXDOMAIN for anything else).
    struct TableSystemResolver: HostResolving {
        let table: [String: [IPAddress]]
        func resolve(host: String, port: Int) async throws -> HostResolution {
            guard let addresses = table[host] else { throw ResolutionError.nameNotFound(host: host, negativeTTL: nil) }
            return HostResolution(host: host, addresses: addresses, ttl: nil, source: .system, provider: "system")
        }
    }

    func comparingResolver(_ policy: HostResolver.DNSSECSettings.Policy, system: [String: [IPAddress]]) throws -> HostResolver {
        var configuration = HostResolver.Configuration(endpoints: [fixture.endpoint], families: .ipv4, requestTimeout: TestTimeScale.scaled(5), fallbackToSystemResolver: false)
        configuration.dnssec = HostResolver.DNSSECSettings(policy: policy, trustAnchors: anchors)
        let client = try HTTPClient(configuration: HTTPClient.Configuration(trust: fixture.trust), resolver: SystemResolver())
        return try HostResolver(configuration: configuration, transport: client, systemResolver: TableSystemResolver(table: system))
    }

    @Test("a forged system answer on a signed zone: the trusted answer validates, the system's is bogus")
    func compareCatchesTheSystemLie() async throws {
        let resolver = try comparingResolver(.require, system: ["www.signed.dnssec.test": [IPAddress("10.6.6.6")!]])
        let comparison = await resolver.compare(host: "www.signed.dnssec.test")
        #expect(comparison.verdict == .disagree)
        #expect(comparison.trusted == .success([IPAddress("127.0.0.1")!]))
        #expect(comparison.trustedDNSSEC == .secure)
        guard case .bogus(let reason) = comparison.systemDNSSEC else {
            Issue.record("expected the system side bogus, got \(String(describing: comparison.systemDNSSEC))")
            return
        }
        #expect(reason.contains("10.6.6.6") && reason.contains("is not what signed.dnssec.test signed"), "\(reason)")
    }

    @Test("a provider that changed the address but kept the RRSIG: the trusted side is bogus and the system's answer, which the RRSIG signs, is secure")
    func compareCatchesTheProviderLie() async throws {
        // tampered.dnssec.test's www A was changed to 127.0.0.66 after signing 127.0.0.1.
        let resolver = try comparingResolver(.require, system: ["www.tampered.dnssec.test": [IPAddress("127.0.0.1")!]])
        let comparison = await resolver.compare(host: "www.tampered.dnssec.test")
        #expect(comparison.verdict == .disagree)
        #expect(comparison.trusted == .success([IPAddress("127.0.0.66")!]), "compared, not refused, under require")
        #expect(comparison.trustedDNSSEC?.name == "bogus")
        #expect(comparison.systemDNSSEC == .secure)
    }

    @Test("agreeing answers on a signed zone are both secure; a secure NXDOMAIN beside a system answer makes that answer bogus")
    func compareAgreesAndDenials() async throws {
        let resolver = try comparingResolver(
            .report, system: ["www.signed.dnssec.test": [IPAddress("127.0.0.1")!], "nope.signed.dnssec.test": [IPAddress("10.6.6.6")!]])
        let agree = await resolver.compare(host: "www.signed.dnssec.test")
        #expect(agree.verdict == .agree)
        #expect(agree.trustedDNSSEC == .secure && agree.systemDNSSEC == .secure)
        let denied = await resolver.compare(host: "nope.signed.dnssec.test")
        #expect(denied.verdict == .disagree)
        #expect(denied.trustedDNSSEC == .secure, "the NXDOMAIN's proof")
        guard case .bogus(let reason) = denied.systemDNSSEC else {
            Issue.record("expected bogus, got \(String(describing: denied.systemDNSSEC))")
            return
        }
        #expect(reason.contains("signed denial"), "\(reason)")
    }

    @Test("an unsigned zone proves nothing either way: both sides insecure; a system NXDOMAIN for a signed name is bogus")
    func compareUnsignedAndForgedDenial() async throws {
        let resolver = try comparingResolver(.report, system: ["www.unsigned.dnssec.test": [IPAddress("10.6.6.6")!]])
        let unsigned = await resolver.compare(host: "www.unsigned.dnssec.test")
        #expect(unsigned.verdict == .disagree)
        #expect(unsigned.trustedDNSSEC?.name == "insecure")
        #expect(unsigned.systemDNSSEC?.name == "insecure")
        let forgedDenial = await resolver.compare(host: "www.dnssec.test")
        #expect(forgedDenial.verdict == .disagree)
        #expect(forgedDenial.trustedDNSSEC == .secure)
        #expect(forgedDenial.systemDNSSEC?.name == "bogus", "\(String(describing: forgedDenial.systemDNSSEC))")
        // Without a DNSSEC policy nothing is judged.
        let plain = try comparingResolver(.off, system: [:])
        let comparison = await plain.compare(host: "www.dnssec.test")
        #expect(comparison.trustedDNSSEC == nil && comparison.systemDNSSEC == nil)
    }
}
