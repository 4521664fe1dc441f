import Foundation
import HTTPDNSCore
import Synchronization
import Testing
import HTTPDNS
import TestSupport

extension ResolverIntegrationSuites {
    /// Every provider over real HTTPS (libcurl, the test PKI): JSON DoH, Alibaba- and DNSPod-style HTTPDNS
    /// against the suite's provider server (`scripts/provider-test-server.py`), RFC 8484 against unbound.
    @Suite("Providers against the provider test server")
    struct ProviderIntegrationTests {
        let fixture: Fixture
        let server: ProviderTestServer
        let bootstrap = [IPAddress("127.0.0.1")!]

        init() async throws {
            fixture = try Fixture()
            server = try await ProviderTestServer.shared()
        }

        func resolver(
            _ providers: [any ResolutionProvider], families: AddressFamilies = .both, observer: (any ResolverObserver)? = nil,
            clock: (any ResolverClock)? = nil, configure: (inout HostResolver.Configuration) -> Void = { _ in }
        ) throws -> HostResolver {
            var configuration = HostResolver.Configuration(endpoints: [], requestTimeout: TestTimeScale.scaled(5), fallbackToSystemResolver: false)
            configuration.providers = providers
            configuration.families = families
            configuration.observer = observer
            configure(&configuration)
            let client = try HTTPClient(configuration: .init(trust: fixture.trust), resolver: SystemResolver())
            return try HostResolver(configuration: configuration, transport: client, clock: clock ?? MonotonicClock())
        }

        var json: JSONDoHEndpoint { JSONDoHEndpoint(url: server.url("/resolve"), bootstrapAddresses: bootstrap) }
        var ali: AlibabaHTTPDNSEndpoint { AlibabaHTTPDNSEndpoint(url: server.baseURL, accountID: server.accountID, bootstrapAddresses: bootstrap) }
        var dnspod: DNSPodHTTPDNSEndpoint { DNSPodHTTPDNSEndpoint(url: server.baseURL, bootstrapAddresses: bootstrap) }

        @Test("JSON DoH answers a.test with both families")
        func jsonDoH() async throws {
            let resolution = try await resolver([json]).resolve(host: "a.test", port: 443)
            #expect(Set(resolution.addresses) == [IPAddress("127.0.0.1")!, IPAddress("::1")!])
            #expect(resolution.provider == "json")
            #expect(resolution.ttl == 300)
        }

        @Test("JSON DoH NXDOMAIN carries the SOA negative TTL")
        func jsonNXDOMAIN() async throws {
            await #expect(throws: ResolutionError.nameNotFound(host: "nope.test", negativeTTL: 60)) {
                try await resolver([json]).resolve(host: "nope.test", port: 443)
            }
        }

        @Test("Alibaba-style d, signed sign_d and batch resolve")
        func alibaba() async throws {
            let plain = try await resolver([ali]).resolve(host: "a.test", port: 443)
            #expect(Set(plain.addresses) == [IPAddress("127.0.0.1")!, IPAddress("::1")!])
            #expect(plain.source == .httpdns(endpoint: server.baseURL))

            var signed = ali
            signed.secret = server.secret
            let viaSigned = try await resolver([signed], families: .ipv4).resolve(host: "b.test", port: 443)
            #expect(viaSigned.addresses == [IPAddress("127.0.0.1")!])
            #expect(!server.requests(containing: "/100000/sign_d?host=b.test").isEmpty)

            var subnet = ali
            subnet.clientSubnet = IPAddress("10.0.0.1")
            #expect(try await resolver([subnet], families: .ipv4).resolve(host: "a.test", port: 443).addresses == [IPAddress("127.0.0.2")!])
            #expect(!server.requests(containing: "/100000/d?host=a.test&query=4&ip=10.0.0.1").isEmpty)

            let batching = try resolver([ali], families: .ipv4)
            let cached = await batching.preResolve(["a.test", "b.test", "v4only.test"])
            #expect(Set(cached) == ["a.test", "b.test", "v4only.test"])
            #expect(server.requests(containing: "/100000/resolve?host=a.test,b.test,v4only.test").count == 1)
            #expect(try await batching.resolve(host: "v4only.test", port: 443).source == .cache)
        }

        @Test("Alibaba /v2/d: plain, HMAC-signed, AES-GCM and AES-CBC encrypted and signed, with cip, each against the server's own check")
        func alibabaV2() async throws {
            var endpoint = AlibabaHTTPDNSV2Endpoint(url: server.baseURL, accountID: server.accountID, bootstrapAddresses: bootstrap)
            #expect(Set(try await resolver([endpoint]).resolve(host: "a.test", port: 443).addresses) == [IPAddress("127.0.0.1")!, IPAddress("::1")!])
            endpoint.secret = server.v2Secret
            #expect(try await resolver([endpoint], families: .ipv4).resolve(host: "b.test", port: 443).addresses == [IPAddress("127.0.0.1")!])
            endpoint.aesKey = server.v2AESKey
            let encrypted = try await resolver([endpoint], families: .ipv4).resolve(host: "v4only.test", port: 443)
            #expect(encrypted.addresses == [IPAddress("127.0.0.1")!])
            #expect(encrypted.provider == "httpdns-ali-v2")
            let sealed = server.requests(containing: "/v2/d?id=100000&m=2&enc=")
            #expect(!sealed.isEmpty && sealed.allSatisfy { !$0.contains("v4only") }, "\(sealed)")
            endpoint.encryption = .aesCBC
            #expect(try await resolver([endpoint], families: .ipv4).resolve(host: "ttl0.test", port: 443).addresses == [IPAddress("127.0.0.1")!])
            let cbc = server.requests(containing: "/v2/d?id=100000&m=1&enc=")
            #expect(!cbc.isEmpty && cbc.allSatisfy { !$0.contains("ttl0") }, "\(cbc)")
            endpoint.encryption = .aesGCM
            endpoint.clientSubnet = IPAddress("10.0.0.1")
            #expect(try await resolver([endpoint], families: .ipv4).resolve(host: "a.test", port: 443).addresses == [IPAddress("127.0.0.2")!])
            endpoint.secret = "0badc0de"
            let error = try await #require(throws: ResolutionError.self) { try await resolver([endpoint]).resolve(host: "b.test", port: 443) }
            #expect("\(error)".contains("HTTP 403: code InvalidSignature"), "\(error)")
        }

        @Test("a server whose clock is 2 hours ahead: sign_d and /v2/d learn the skew from its Date header and are asked again once")
        func clockSkewFromDate() async throws {
            let v1 = AlibabaHTTPDNSEndpoint(url: server.url("/skewed"), accountID: server.skewedAccountID, secret: server.secret, bootstrapAddresses: bootstrap)
            #expect(try await resolver([v1], families: .ipv4).resolve(host: "a.test", port: 443).addresses == [IPAddress("127.0.0.1")!])
            #expect(server.requests(containing: "/skewed/\(server.skewedAccountID)/sign_d?host=a.test").count == 2)
            #expect(try await resolver([v1], families: .ipv4).resolve(host: "b.test", port: 443).addresses == [IPAddress("127.0.0.1")!])
            #expect(server.requests(containing: "/skewed/\(server.skewedAccountID)/sign_d?host=b.test").count == 1)

            let v2 = AlibabaHTTPDNSV2Endpoint(url: server.url("/skewed"), accountID: server.skewedAccountID, secret: server.v2Secret, bootstrapAddresses: bootstrap)
            #expect(try await resolver([v2], families: .ipv4).resolve(host: "v4only.test", port: 443).addresses == [IPAddress("127.0.0.1")!])
            // The skew is kept per URL: /v2/d at the same URL is right the first time.
            #expect(server.requests(containing: "/skewed/v2/d?id=\(server.skewedAccountID)").count == 1)
        }

        @Test("Alibaba's scheduling API: the signed ss at the startup IP gives the service IPs, /v2/d and d go to them; a disabled account fails over")
        func schedule() async throws {
            let schedule = AlibabaServiceSchedule(
                accountID: server.accountID, startupAddresses: bootstrap, secret: server.secret, serviceHost: "dns.test", port: server.port)
            let v2 = AlibabaHTTPDNSV2Endpoint(schedule: schedule)
            #expect(try await resolver([v2], families: .ipv4).resolve(host: "a.test", port: 443).addresses == [IPAddress("127.0.0.1")!])
            #expect(schedule.serviceAddresses == [IPAddress("127.0.0.1")!, IPAddress("::1")!])
            let asked = server.requests(containing: "/\(server.accountID)/ss?region=global&n=")
            #expect(asked.count == 1, "\(asked)")
            let v1 = AlibabaHTTPDNSEndpoint(schedule: schedule, secret: server.secret)
            #expect(try await resolver([v1], families: .ipv4).resolve(host: "b.test", port: 443).addresses == [IPAddress("127.0.0.1")!])
            #expect(server.requests(containing: "/\(server.accountID)/ss?").count == 1, "the list is kept")

            let off = AlibabaHTTPDNSV2Endpoint(
                schedule: AlibabaServiceSchedule(accountID: "400000", startupAddresses: bootstrap, serviceHost: "dns.test", port: server.port))
            let error = try await #require(throws: ResolutionError.self) { try await resolver([off]).resolve(host: "a.test", port: 443) }
            #expect("\(error)".contains("disabled for this account"), "\(error)")
            let badSecret = AlibabaServiceSchedule(accountID: server.accountID, startupAddresses: bootstrap, secret: "wrong", serviceHost: "dns.test", port: server.port)
            let refused = try await #require(throws: ResolutionError.self) { try await resolver([AlibabaHTTPDNSV2Endpoint(schedule: badSecret)]).resolve(host: "a.test", port: 443) }
            #expect("\(refused)".contains("InvalidSignature"), "\(refused)")
        }

        @Test("a wrong signing secret is 'resolver unavailable' (HTTP 403), not a DNS answer")
        func alibabaBadSignature() async throws {
            var signed = ali
            signed.secret = "wrong"
            let error = try await #require(throws: ResolutionError.self) { try await resolver([signed]).resolve(host: "a.test", port: 443) }
            guard case .resolverUnavailable(_, let reasons) = error else { Issue.record("\(error)"); return }
            #expect(reasons.first?.contains("HTTP 403: code InvalidSignature") == true, "\(reasons)")
        }

        @Test("Tencent plain text, both families in one type=addrs request")
        func dnspodPlain() async throws {
            let plain = try await resolver([dnspod]).resolve(host: "a.test", port: 443)
            #expect(Set(plain.addresses) == [IPAddress("127.0.0.1")!, IPAddress("::1")!])
            #expect(plain.ttl == 300)
            #expect(!server.requests(containing: "/d?dn=a.test&ttl=1&type=addrs").isEmpty)
        }

        @Test(
            "Tencent DES and AES: the name and the answer never travel in the clear",
            arguments: ["des", "aes"])
        func dnspodEncrypted(alg: String) async throws {
            var encrypted = dnspod
            encrypted.authentication = alg == "des" ? .des(keyID: server.keyID, key: server.desKey) : .aes(keyID: server.keyID, key: server.aesKey)
            let answer = try await resolver([encrypted], families: .ipv4).resolve(host: "b.test", port: 443)
            #expect(answer.addresses == [IPAddress("127.0.0.1")!])
            #expect(answer.provider == "httpdns-dnspod")
            let requests = server.requests(containing: "alg=\(alg)")
            #expect(!requests.isEmpty)
            #expect(requests.allSatisfy { !$0.contains("b.test") }, "the name never travels in clear")
        }

        @Test("Tencent HTTPS token entry; a wrong token answers nothing, which is no addresses")
        func dnspodToken() async throws {
            var withToken = dnspod
            withToken.authentication = .token(server.token)
            #expect(try await resolver([withToken], families: .ipv4).resolve(host: "v4only.test", port: 443).addresses == [IPAddress("127.0.0.1")!])
            withToken.authentication = .token("wrong")
            await #expect(throws: ResolutionError.noAddresses(host: "v4only.test", negativeTTL: nil)) {
                try await resolver([withToken], families: .ipv4).resolve(host: "v4only.test", port: 443)
            }
        }

        @Test("Tencent ip= (client subnet) reaches the server, encrypted under DES")
        func dnspodClientSubnet() async throws {
            var endpoint = dnspod
            endpoint.authentication = .des(keyID: server.keyID, key: server.desKey)
            endpoint.clientSubnet = IPAddress("10.0.0.1")
            #expect(try await resolver([endpoint], families: .ipv4).resolve(host: "a.test", port: 443).addresses == [IPAddress("127.0.0.2")!])
        }

        @Test("Tencent batch: preResolve sends up to 8 names in one request, NODATA included")
        func dnspodBatch() async throws {
            let batching = try resolver([dnspod], families: .ipv4)
            let names = ["a.test", "b.test", "v4only.test", "ttl0.test", "nodata.test", "xn--bcher-kva.test", "c1.test", "c2.test", "c3.test"]
            let cached = await batching.preResolve(names)
            #expect(Set(cached) == ["a.test", "b.test", "v4only.test", "xn--bcher-kva.test"])
            #expect(server.requests(containing: "/d?dn=a.test,b.test,v4only.test,ttl0.test,nodata.test,xn--bcher-kva.test,c1.test,c2.test&").count == 1)
            #expect(try await batching.resolve(host: "b.test", port: 443).source == .cache)
        }

        @Test("failover: a first endpoint answering 429, 503, garbage or nothing hands over to the next", arguments: ["/fault/429", "/fault/503", "/fault/garbage", "dead"])
        func failover(fault: String) async throws {
            let first: any ResolutionProvider =
                fault == "dead"
                ? try fixture.deadEndpoint()
                : JSONDoHEndpoint(url: server.url(fault + "/resolve"), bootstrapAddresses: bootstrap)
            let resolution = try await resolver([first, fixture.endpoint]).resolve(host: "a.test", port: 443)
            #expect(resolution.source == .doh(endpoint: fixture.servers.dohURL))
            #expect(resolution.provider == "doh")
        }

        @Test(
            "Tencent and Alibaba /v2/d endpoints answering 429, garbage, a truncated or an oversized body fail over to the next",
            arguments: ["/fault/429", "/fault/garbage", "/fault/truncate", "/fault/oversized"])
        func vendorFailover(fault: String) async throws {
            let broken: [any ResolutionProvider] = [
                DNSPodHTTPDNSEndpoint(url: server.url(fault), authentication: .des(keyID: server.keyID, key: server.desKey), bootstrapAddresses: bootstrap),
                AlibabaHTTPDNSV2Endpoint(url: server.url(fault), accountID: server.accountID, bootstrapAddresses: bootstrap)
            ]
            for first in broken {
                let events = Events()
                let resolution = try await resolver([first, dnspod], families: .ipv4, observer: events).resolve(host: "a.test", port: 443)
                #expect(resolution.addresses == [IPAddress("127.0.0.1")!], "\(first.kind) \(fault)")
                #expect(resolution.source == .httpdns(endpoint: server.baseURL))
            }
        }

        @Test("fetch over a JSON DoH resolution reaches the virtual host for the name")
        func fetchThroughJSONProvider() async throws {
            let client = try fixture.client(resolver: try resolver([json]))
            let response = try await client.execute(HTTPRequest(url: fixture.url("a.test")))
            #expect(response.text == "vhost=a.test\n")
            #expect(response.connection.resolution?.provider == "json")
        }
    }
}

extension ResolverIntegrationSuites {
    /// Cache policy end to end against unbound, time on a manual clock.
    @Suite("Resolver cache policy against unbound")
    struct ResolverPolicyIntegrationTests {
        let fixture: Fixture
        init() throws { fixture = try Fixture() }

        func resolver(
            endpoints: [DoHEndpoint]? = nil, clock: any ResolverClock = MonotonicClock(), observer: (any ResolverObserver)? = nil,
            configure: (inout HostResolver.Configuration) -> Void = { _ in }
        ) throws -> HostResolver {
            var configuration = HostResolver.Configuration(endpoints: endpoints ?? [fixture.endpoint], requestTimeout: TestTimeScale.scaled(5), fallbackToSystemResolver: false)
            configuration.observer = observer
            configure(&configuration)
            return try HostResolver(configuration: configuration, transport: try HTTPClient(configuration: .init(trust: fixture.trust), resolver: SystemResolver()), clock: clock)
        }

        @Test("a TTL 0 answer is used but every lookup asks again")
        func ttlZero() async throws {
            let events = Events()
            let resolver = try resolver(observer: events) { $0.families = .ipv4 }
            #expect(try await resolver.resolve(host: "ttl0.test", port: 443).ttl == 0)
            #expect(try await resolver.resolve(host: "ttl0.test", port: 443).source == .doh(endpoint: fixture.servers.dohURL))
            #expect(events.count("answer") == 2)
        }

        @Test("NXDOMAIN is cached for the SOA's negative TTL, then asked again")
        func negativeCaching() async throws {
            let clock = TestClock()
            let events = Events()
            let resolver = try resolver(clock: clock, observer: events)
            for _ in 0..<2 {
                await #expect(throws: ResolutionError.self) { try await resolver.resolve(host: "nope.test", port: 443) }
            }
            #expect(events.count("answer") == 1)
            clock.advance(by: 61)
            await #expect(throws: ResolutionError.self) { try await resolver.resolve(host: "nope.test", port: 443) }
            #expect(events.count("answer") == 2)
        }

        @Test("a stale answer is served at once and refreshed in the background")
        func staleReuse() async throws {
            let clock = TestClock()
            let resolver = try resolver(clock: clock) { $0.maximumStaleness = 3_600 }
            _ = try await resolver.resolve(host: "a.test", port: 443)
            clock.advance(by: 400)
            let stale = try await resolver.resolve(host: "a.test", port: 443)
            #expect(stale.isStale)
            await resolver.waitForRefresh(host: "a.test")
            let fresh = try #require(resolver.cachedResolution(host: "a.test"))
            #expect(fresh.ttl == 300)
        }

        @Test("the persistent cache survives a restart with every endpoint down, and a corrupt file is ignored")
        func persistentCache() async throws {
            // A directory of its own: the SQLite file's -wal and -shm go with it.
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-cache-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("cache.sqlite")
            _ = try await resolver { $0.persistentCacheFile = file }.resolve(host: "a.test", port: 443)
            let restarted = try resolver(endpoints: [try fixture.deadEndpoint()]) { $0.persistentCacheFile = file }
            let resolution = try await restarted.resolve(host: "A.test.", port: 443)
            #expect(resolution.source == .cache)
            #expect(Set(resolution.addresses) == [IPAddress("127.0.0.1")!, IPAddress("::1")!])

            try Data("\u{0}garbage{".utf8).write(to: file)
            let events = Events()
            let afterCorruption = try resolver(observer: events) { $0.persistentCacheFile = file }
            #expect(events.count("warning") == 1)
            #expect(try await afterCorruption.resolve(host: "a.test", port: 443).source == .doh(endpoint: fixture.servers.dohURL))
        }

        @Test("a Unicode host name is resolved, sent as SNI and Host, and verified as its A-label")
        func unicodeHostEndToEnd() async throws {
            var request = HTTPRequest(url: URL(string: "https://BÜCHER.test.:\(fixture.servers.httpsPort)/")!)
            request.reportsTLSDetails = true
            let response = try await fixture.client(resolver: resolver()).execute(request)
            #expect(response.text == "vhost=xn--bcher-kva.test\n")
            #expect(response.headers[first: "X-SNI"] == "xn--bcher-kva.test")
            #expect(response.headers[first: "X-Host"] == "xn--bcher-kva.test")
            #expect(response.connection.tls?.verified == true)
        }

        @Test("when a name's addresses change, new requests use the new ones and the old pooled connection is not reused")
        func addressChangeAvoidsOldConnections() async throws {
            let trust = fixture.freshTrust()
            let resolver = MutableResolver(addresses: [IPAddress("127.0.0.1")!])
            let client = try HTTPClient(configuration: .init(trust: trust, timeouts: .generous), resolver: resolver)
            let first = try await client.execute(HTTPRequest(url: fixture.url("a.test")))
            let again = try await client.execute(HTTPRequest(url: fixture.url("a.test")))
            #expect(again.connection.reusedConnection, "same answer: the pooled connection is reused")
            #expect(again.connectionNumber == first.connectionNumber)
            resolver.addresses = fixture.servers.ipv6Available ? [IPAddress("::1")!] : [IPAddress("127.0.0.1")!, IPAddress("127.0.0.1")!]
            let changed = try await client.execute(HTTPRequest(url: fixture.url("a.test")))
            #expect(!changed.connection.reusedConnection)
            #expect(changed.connectionNumber != first.connectionNumber)
            if fixture.servers.ipv6Available { #expect(changed.connection.remoteAddress == "::1") }
        }
    }
}

/// A resolver whose answer the test changes, standing for a re-resolution with new addresses.
final class MutableResolver: HostResolving {
    private let current: LockedValue<[IPAddress]>
    init(addresses: [IPAddress]) { current = LockedValue(addresses) }
    var addresses: [IPAddress] {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
    func resolve(host: String, port: Int) async throws -> HostResolution {
        HostResolution(host: host, addresses: addresses, ttl: 60, source: .staticMapping)
    }
}

/// A clock the test moves.
final class TestClock: ResolverClock {
    private let time = LockedValue<TimeInterval>(1_000)
    func now() -> TimeInterval { time.withLock { $0 } }
    func advance(by seconds: TimeInterval) { time.withLock { $0 += seconds } }
}

/// Counts resolver events by kind.
final class Events: ResolverObserver {
    private let log = LockedValue<[String]>([])
    func count(_ kind: String) -> Int { log.withLock { $0.filter { $0 == kind }.count } }
    func providerAnswered(host: String, provider: String, endpoint: URL, latency: TimeInterval, answer: DoHClient.Answer) { log.withLock { $0.append("answer") } }
    func warning(_ message: String) { log.withLock { $0.append("warning") } }
}
