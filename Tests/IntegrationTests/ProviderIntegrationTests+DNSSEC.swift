import Foundation
import HTTPDNS
import Testing
import TestSupport

extension ResolverIntegrationSuites.ProviderIntegrationTests {
    func validating(_ settings: HostResolver.DNSSECSettings, _ providers: [any ResolutionProvider], families: AddressFamilies = .ipv4) throws -> HostResolver {
        try resolver(providers, families: families) { $0.dnssec = settings }
    }

    @Test("under report a vendor API's answer is used, indeterminate (it carries no signatures), from the cache too")
    func vendorUnderReport() async throws {
        let resolver = try validating(HostResolver.DNSSECSettings(policy: .report), [dnspod])
        let resolution = try await resolver.resolve(host: "a.test", port: 443)
        #expect(resolution.addresses == [IPAddress("127.0.0.1")!])
        #expect(resolution.dnssec == .indeterminate(reason: "a httpdns-dnspod provider carries no DNSSEC signatures"))
        let cached = try await resolver.resolve(host: "a.test", port: 443)
        #expect(cached.source == .cache)
        #expect(cached.dnssec == resolution.dnssec)
    }

    @Test("under report an RFC 8484 provider is asked before a vendor API ahead of it, and the vendor only when it fails")
    func vendorAfterDoH() async throws {
        let anchorFile = try #require(fixture.servers.environment["DNSSEC_ANCHOR"])
        let anchors = try TrustAnchor.parse(String(contentsOfFile: anchorFile, encoding: .utf8), source: anchorFile)
        let before = server.requests(containing: "dn=www.signed.dnssec.test").count
        let resolver = try validating(HostResolver.DNSSECSettings(policy: .report, trustAnchors: anchors), [dnspod, fixture.endpoint])
        let secure = try await resolver.resolve(host: "www.signed.dnssec.test", port: 443)
        #expect(secure.dnssec == .secure)
        #expect(server.requests(containing: "dn=www.signed.dnssec.test").count == before, "the vendor API was not asked")

        let fallback = try validating(HostResolver.DNSSECSettings(policy: .report, trustAnchors: anchors), [try fixture.deadEndpoint(), dnspod])
        let indeterminate = try await fallback.resolve(host: "b.test", port: 443)
        #expect(indeterminate.source == .httpdns(endpoint: server.baseURL))
        #expect(indeterminate.dnssec?.name == "indeterminate")
    }

    @Test("under require a vendor API is never asked: the lookup fails naming why, and a pattern's require leaves other hosts to the vendor")
    func vendorUnderRequire() async throws {
        let name = "require-\(UInt32.random(in: 0...UInt32.max)).test"
        let strict = try validating(HostResolver.DNSSECSettings(policy: .require), [dnspod])
        do {
            let resolution = try await strict.resolve(host: name, port: 443)
            Issue.record("a vendor answer passed under require: \(resolution.addresses)")
        } catch let error as ResolutionError {
            guard case .resolverUnavailable(_, let reasons) = error else {
                Issue.record("expected resolverUnavailable, got \(error)")
                return
            }
            #expect(reasons.count == 1)
            #expect(reasons.first?.contains("not asked under the DNSSEC require policy, a httpdns-dnspod provider carries no DNSSEC signatures") == true, "\(reasons)")
        }
        #expect(server.requests(containing: name).isEmpty, "the vendor API was asked")

        let mixed = try validating(HostResolver.DNSSECSettings(policy: .off, hostPolicies: ["**.bank.test": .require]), [dnspod])
        let other = try await mixed.resolve(host: "a.test", port: 443)
        #expect(other.dnssec == nil)
        await #expect(throws: ResolutionError.self) { try await mixed.resolve(host: "www.bank.test", port: 443) }
    }

    @Test("names under a validating policy are left out of a vendor's batch request and looked up alone")
    func noBatchUnderPolicy() async throws {
        let resolver = try validating(HostResolver.DNSSECSettings(policy: .off, hostPolicies: ["b.test": .report]), [ali])
        let before = server.requests(containing: "/100000/resolve?host=v4only.test,b.test").count
        let cached = await resolver.preResolve(["v4only.test", "b.test", "a.test"])
        #expect(Set(cached) == ["a.test", "b.test", "v4only.test"])
        #expect(server.requests(containing: "/100000/resolve?host=v4only.test,a.test").count >= 1, "\(server.requests(containing: "/100000/resolve"))")
        #expect(server.requests(containing: "/100000/resolve?host=v4only.test,b.test").count == before)
        #expect(resolver.cachedResolution(host: "b.test")?.dnssec?.name == "indeterminate")
        #expect(resolver.cachedResolution(host: "a.test")?.dnssec == nil)
    }
}
