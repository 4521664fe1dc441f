@testable import DNSResolver
import Foundation
import HTTPDNSCore
import Testing

@Suite("Cache policy")
struct CachePolicyTests {
    static func policy(_ configure: (inout HostResolver.Configuration) -> Void = { _ in }) -> CachePolicy {
        var configuration = HostResolver.Configuration(endpoints: [ResolverHarness.first])
        configure(&configuration)
        return CachePolicy(configuration)
    }

    @Test func aLiveEntryIsFreshAndRefreshedAheadOnlyWithinTheWindow() {
        let policy = Self.policy { $0.refreshAheadWindow = 10 }
        #expect(policy.use(remaining: 11) == .fresh(refresh: false))
        #expect(policy.use(remaining: 10) == .fresh(refresh: true))
        #expect(Self.policy().use(remaining: 1) == .fresh(refresh: false))
    }

    @Test("an expired entry is stale reuse within maximumStaleness, serve-stale within the maximum stale age, else expired")
    func expiredEntries() {
        let both = Self.policy {
            $0.maximumStaleness = 60; $0.serveStale = .init(maximumStaleAge: 600)
        }
        #expect(both.use(remaining: -60) == .staleNow)
        #expect(both.use(remaining: -61) == .staleIfNoAnswer)
        #expect(both.use(remaining: -601) == .expired)
        #expect(both.staleRetention == 600)
        #expect(Self.policy().use(remaining: 0) == .expired)
        #expect(Self.policy().staleRetention == nil)
    }

    @Test("TTLs are clamped to minimum...maximum; TTL 0 is returned, not cached; negative TTLs are capped")
    func ttls() throws {
        let policy = Self.policy {
            $0.minimumTTL = 30; $0.maximumTTL = 600; $0.negativeCacheTTLCap = 50
        }
        let provider = ResolverHarness.first
        let address = [IPAddress("192.0.2.1")!]
        #expect(policy.outcome(of: .addresses(address, ttl: 5), name: "a.test", provider: provider).cacheTTL == 30)
        #expect(policy.outcome(of: .addresses(address, ttl: 9_999), name: "a.test", provider: provider).cacheTTL == 600)
        let once = policy.outcome(of: .addresses(address, ttl: 0), name: "a.test", provider: provider)
        #expect(once.cacheTTL == 0)
        #expect(try once.result.get().ttl == 0)
        let missing = policy.outcome(of: .nameNotFound(negativeTTL: 3_600), name: "a.test", provider: provider)
        #expect(missing.cacheTTL == 50)
        #expect(missing.result == .failure(.nameNotFound(host: "a.test", negativeTTL: 50)))
        #expect(policy.outcome(of: .noAddresses(negativeTTL: nil), name: "a.test", provider: provider).cacheTTL == nil)
    }

    @Test("only a lookup that reached no resolver may be answered stale (RFC 8767 §4); NXDOMAIN and NODATA are answers")
    func whichFailuresServeStale() {
        #expect(CachePolicy.servesStale(after: ResolutionError.resolverUnavailable(host: "a.test", reasons: [])))
        #expect(!CachePolicy.servesStale(after: ResolutionError.nameNotFound(host: "a.test", negativeTTL: nil)))
        #expect(!CachePolicy.servesStale(after: CancellationError()))
    }
}
