import DNSResolver
import Foundation
import HTTPDNSCore
import Testing

/// `HostResolver.resolve(hosts:port:families:)`: several names, batched within the provider's limit.
@Suite("Batched resolution")
struct HostResolverBatchTests {
    static let dnspod = DNSPodHTTPDNSEndpoint(url: URL(string: "https://119.29.29.99")!)

    /// A Tencent-style server: each name in `dn` answered from `zone` ("0" when absent).
    static func tencent(_ zone: [String: String]) -> FakeDoHTransport {
        FakeDoHTransport { request in
            let dn = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "dn" }?.value ?? ""
            let names = dn.split(separator: ",").map(String.init)
            let lines = names.map { name in names.count > 1 ? "\(name).:\(zone[name] ?? "0")" : zone[name] ?? "" }
            return DoHHTTPResponse(status: 200, contentType: "text/html", body: Data(lines.joined(separator: "\n").utf8))
        }
    }

    func harness(_ transport: FakeDoHTransport, configure: (inout HostResolver.Configuration) -> Void = { _ in }) throws -> ResolverHarness {
        try ResolverHarness(transport: transport) {
            $0.providers = [Self.dnspod]
            $0.families = .ipv4
            $0.fallbackToSystemResolver = false
            configure(&$0)
        }
    }

    @Test("names go in batches of at most the provider's limit, and each result comes back in order")
    func batchesWithinTheLimit() async throws {
        let zone = Dictionary(uniqueKeysWithValues: (1...10).map { ("n\($0).test", "192.0.2.\($0),60") })
        let harness = try harness(Self.tencent(zone))
        let hosts = (1...10).map { "n\($0).test" }
        let results = await harness.resolver.resolve(hosts: hosts, port: 443)
        #expect(try results.map { try $0.get().addresses } == (1...10).map { [IPAddress("192.0.2.\($0)")!] })
        #expect(harness.transport.requests.count == 2, "8 + 2")
        #expect(try results[0].get().source == .httpdns(endpoint: Self.dnspod.url))
    }

    @Test("a name without a record is 'no addresses' in its place; the others are answered")
    func noDataInABatch() async throws {
        let harness = try harness(Self.tencent(["a.test": "192.0.2.1,60"]))
        let results = await harness.resolver.resolve(hosts: ["a.test", "none.test"], port: 443)
        #expect(try results[0].get().addresses == [IPAddress("192.0.2.1")!])
        #expect(throws: ResolutionError.noAddresses(host: "none.test", negativeTTL: nil)) { try results[1].get() }
        #expect(harness.transport.requests.count == 1)
    }

    @Test("cached names, literals and static entries are not sent; a lone name left goes alone")
    func onlyWhatNeedsAsking() async throws {
        let harness = try harness(Self.tencent(["a.test": "192.0.2.1,60", "b.test": "192.0.2.2,60"])) {
            $0.staticEntries = [.init(host: "static.test", port: 443, addresses: [IPAddress("203.0.113.9")!])]
        }
        _ = try await harness.resolve("a.test")
        let results = await harness.resolver.resolve(hosts: ["a.test", "192.0.2.77", "static.test", "b.test"], port: 443)
        #expect(try results.map { try $0.get().addresses.first! } == ["192.0.2.1", "192.0.2.77", "203.0.113.9", "192.0.2.2"].map { IPAddress($0)! })
        #expect(harness.transport.requests.count == 2)
        #expect(harness.transport.requests.last.flatMap { URLComponents(url: $0.url, resolvingAgainstBaseURL: false)?.queryItems?.first?.value } == "b.test")
    }

    @Test("a batch that fails leaves each name to its own lookup, which fails over as usual")
    func failedBatchFallsBackToSingleLookups() async throws {
        let failingFirst = FakeDoHTransport { request in
            if request.url.host() == "bad.test" { return DoHHTTPResponse(status: 503, contentType: "text/plain", body: Data()) }
            return ResolverHarness.zone.respond(to: request.query)
        }
        let harness = try ResolverHarness(transport: failingFirst) {
            $0.providers = [DNSPodHTTPDNSEndpoint(url: URL(string: "https://bad.test")!), ResolverHarness.first]
            $0.families = .ipv4
        }
        let results = await harness.resolver.resolve(hosts: ["a.test", "v4only.test"], port: 443)
        #expect(try results.map { try $0.get().addresses } == [[IPAddress("192.0.2.1")!], [IPAddress("192.0.2.4")!]])
        #expect(try results[0].get().source == .doh(endpoint: ResolverHarness.first.url))
    }

    @Test("an invalid name is its own error, the others still answered")
    func invalidName() async throws {
        let harness = try harness(Self.tencent(["a.test": "192.0.2.1,60", "b.test": "192.0.2.2,60"]))
        let results = await harness.resolver.resolve(hosts: ["a.test", "bad name", "b.test"], port: 443)
        #expect(throws: ResolutionError.self) { try results[1].get() }
        #expect(try results[2].get().addresses == [IPAddress("192.0.2.2")!])
        #expect(harness.transport.requests.count == 1)
    }
}
