import Foundation
import Testing
import HTTPDNS
import TestSupport

/// HTTPClient following HTTPS records (RFC 9460) from the suite's unbound: the records under
/// svc.test name nginx's SVCB_PORT, while nothing listens on the origin's port 443 (nor 80), so a
/// request that succeeds went where the record said, and one that fails to connect to 443 fell back.
@Suite("HTTPClient follows HTTPS records")
struct ServiceBindingClientTests {
    let fixture: Fixture
    let recorder = ServiceBindingIntegrationTests.DropRecorder()

    init() throws { fixture = try Fixture() }

    var recordPort: Int {
        get throws { try #require(fixture.servers.serviceBindingPort, "servers.env has no SVCB_PORT: restart the test servers") }
    }

    func resolver() throws -> HostResolver {
        var configuration = HostResolver.Configuration(endpoints: [fixture.endpoint], requestTimeout: TestTimeScale.scaled(3), fallbackToSystemResolver: false)
        configuration.asksForServiceBindings = true
        configuration.observer = recorder
        return try HostResolver(configuration: configuration, dohTrust: fixture.trust)
    }

    func client(resolver: HostResolver? = nil, upgrades: Bool = true, version: HTTPVersionPreference = .http2) throws -> HTTPClient {
        var configuration = HTTPClient.Configuration(trust: fixture.trust, timeouts: .generous, httpVersion: version)
        configuration.upgradesToHTTPS = upgrades
        return try HTTPClient(configuration: configuration, resolver: resolver ?? self.resolver())
    }

    func get(_ url: String, client: HTTPClient? = nil) async throws -> HTTPResponse {
        var request = HTTPRequest(url: URL(string: url)!)
        request.reportsTLSDetails = true
        return try await (client ?? self.client()).execute(request)
    }

    @Test("the record's port is connected to; SNI, Host and the certificate stay on the origin's name")
    func recordPort() async throws {
        let port = try recordPort
        let response = try await get("https://port.svc.test/")
        #expect(response.status == 200)
        #expect(response.connection.remotePort == port)
        #expect(response.headers[first: "X-Server-Port"] == "\(port)")
        #expect(response.headers[first: "X-SNI"] == "port.svc.test")
        // The Host field keeps the origin's authority (port 443, the default, so none written).
        #expect(response.headers[first: "X-Host"] == "port.svc.test")
        #expect(response.connection.tls?.verified == true)
        #expect(response.connection.tls?.serverName == "port.svc.test")
        let route = try #require(response.connection.serviceBindingRoute)
        #expect(route.port == port && route.originPort == 443 && route.record?.priority == 1)
        #expect(response.version == .http2)
    }

    @Test("alpn=http/1.1 alone makes the request HTTP/1.1, alpn=h2 HTTP/2")
    func alpnVersions() async throws {
        let http1 = try await get("https://h1.svc.test/")
        #expect(http1.version == .http1_1)
        #expect(http1.connection.tls?.alpn == "http/1.1")
        #expect(http1.connection.serviceBindingRoute?.httpVersion == .http1_1)
        let http2 = try await get("https://port.svc.test/")
        #expect(http2.version == .http2)
    }

    @Test("h3 beside h2 is skipped, said in the route's notes, and h2 is used")
    func http3Skipped() async throws {
        let response = try await get("https://h3.svc.test/")
        #expect(response.version == .http2)
        let route = try #require(response.connection.serviceBindingRoute)
        #expect(route.alpn == ["h2", "http/1.1"])
        #expect(route.notes.contains("HTTPS record priority 1: h3 skipped (this libcurl has no HTTP/3)"))
    }

    @Test("a TargetName's hint is used while its address is unknown, then the cached A answer")
    func targetNameHints() async throws {
        let resolver = try resolver()
        let client = try client(resolver: resolver)
        let first = try await get("https://target.svc.test/", client: client)
        #expect(first.status == 200)
        #expect(first.headers[first: "X-SNI"] == "target.svc.test")
        #expect(first.connection.tls?.verified == true)
        #expect(first.headers[first: "X-Server-Address"] == "127.0.0.51")
        let route = try #require(first.connection.serviceBindingRoute)
        #expect(route.targetName == "real.svc.test" && route.usedAddressHints)
        // The lookup of real.svc.test runs on for the cache; once it is there, it is used.
        let deadline = ContinuousClock.now + .seconds(TestTimeScale.scaled(10))
        while try resolver.resolveImmediately(host: "real.svc.test", port: try recordPort) == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let second = try await get("https://target.svc.test/", client: client)
        #expect(second.headers[first: "X-Server-Address"] == "127.0.0.1")
        #expect(second.connection.serviceBindingRoute?.usedAddressHints == false)
    }

    @Test("AliasMode to a name with a ServiceMode record: that name's addresses and port, the origin's SNI")
    func aliasMode() async throws {
        let response = try await get("https://aliasport.svc.test/")
        #expect(response.connection.remotePort == (try recordPort))
        #expect(response.headers[first: "X-SNI"] == "aliasport.svc.test")
        #expect(response.connection.serviceBindingRoute?.targetName == "port.svc.test")
    }

    @Test("ech is exposed on the route and not used")
    func ech() async throws {
        let response = try await get("https://echport.svc.test/")
        #expect(response.status == 200)
        let route = try #require(response.connection.serviceBindingRoute)
        #expect(route.echConfigList == [0x00, 0x04, 0xFE, 0x0D, 0x00, 0x00])
        #expect(route.notes.contains("HTTPS record priority 1: ech not used (OpenSSL 3.0 has no Encrypted ClientHello)"))
    }

    @Test("http:// is upgraded to https:// when an HTTPS record exists (RFC 9460 §9.5)")
    func upgrade() async throws {
        let response = try await get("http://up.svc.test/")
        #expect(response.status == 200)
        #expect(response.url?.absoluteString == "https://up.svc.test/")
        #expect(response.connection.remotePort == (try recordPort))
        #expect(response.connection.tls?.verified == true)
        #expect(response.connection.serviceBindingRoute?.upgradedToHTTPS == true)
    }

    @Test("with the upgrade off, http:// goes to port 80 as given")
    func noUpgrade() async throws {
        let error = try await #require(throws: HTTPClientError.self) { try await get("http://up.svc.test/", client: client(upgrades: false)) }
        #expect(error.kind == .couldNotConnect)
        #expect(error.connection?.remotePort == 80 || error.message.contains("80"), "\(error)")
        #expect(error.serviceBindingRoute == nil)
    }

    @Test(
        "a hostile record is rejected, said, and the request goes to the origin's port",
        arguments: [
            ("zero.svc.test", "HTTPS record priority 1 rejected: port 0"),
            ("mapped.svc.test", "HTTPS record priority 1 rejected: ipv6hint holds the IPv4 address ::ffff:127.0.0.1")
        ])
    func hostileRecords(host: String, note: String) async throws {
        let error = try await #require(throws: HTTPClientError.self) { try await get("https://\(host)/") }
        // Nothing listens on 443: the record's port (where nginx is) was not used.
        #expect(error.kind == .couldNotConnect, "\(error)")
        #expect(error.message.contains("443"), "\(error)")
        let route = try #require(error.serviceBindingRoute)
        #expect(route.record == nil && route.port == 443)
        #expect(route.notes.first == note)
    }

    @Test("a record whose endpoint refuses the connection falls back to the origin's addresses and port")
    func unreachableEndpoint() async throws {
        let error = try await #require(throws: HTTPClientError.self) { try await get("https://dead.svc.test/") }
        // The second attempt, at the origin's port 443 (where nothing listens either here).
        #expect(error.kind == .couldNotConnect && error.message.hasPrefix("could not connect to dead.svc.test:443 "), "\(error)")
        let route = try #require(error.serviceBindingRoute)
        #expect(route.record == nil && route.port == 443)
        #expect(route.notes.last == "HTTPS record priority 1: dead.svc.test port 9 could not be reached; connecting to dead.svc.test's addresses on port 443")
    }

    @Test("a record whose endpoint refuses the connection gives way to the next record's (RFC 9460 §3), with its ALPN and port")
    func nextRecord() async throws {
        let port = try recordPort
        let response = try await get("https://next.svc.test/")
        #expect(response.status == 200)
        #expect(response.connection.remotePort == port)
        #expect(response.headers[first: "X-SNI"] == "next.svc.test")
        #expect(response.version == .http1_1)
        let route = try #require(response.connection.serviceBindingRoute)
        #expect(route.record?.priority == 2 && route.port == port && route.httpVersion == .http1_1)
        #expect(route.notes.contains("HTTPS record priority 1: next.svc.test port 9 could not be reached; trying HTTPS record priority 2"))
    }

    @Test("a failure to connect names the port connected to (a caller's connectPort, as probe sets the record's), not the URL's")
    func failureNamesConnectPort() async throws {
        var request = HTTPRequest(url: URL(string: "https://dead.svc.test/")!)
        request.connectTo = [IPAddress("127.0.0.1")!]
        request.connectPort = 9
        let error = try await #require(throws: HTTPClientError.self) { try await client().execute(request) }
        #expect(error.kind == .couldNotConnect, "\(error)")
        #expect(error.message.hasPrefix("could not connect to dead.svc.test:9 (addresses tried: 127.0.0.1): "), "\(error)")
        #expect(error.message.contains("port 9"), "\(error)")
    }

    @Test("a record the resolver drops (an alias loop) leaves the origin's addresses and port, and is reported")
    func droppedRecords() async throws {
        let error = try await #require(throws: HTTPClientError.self) { try await get("https://loop.svc.test/") }
        #expect(error.kind == .couldNotConnect && error.message.contains("443"), "\(error)")
        #expect(error.serviceBindingRoute == nil)
        #expect(recorder.dropped.first?.contains("AliasMode records loop") == true, "\(recorder.dropped)")
    }

    @Test("a URL with another port ignores the name's records (they are port 443's)")
    func otherPort() async throws {
        let response = try await get("https://port.svc.test:\(fixture.servers.httpsPort)/")
        #expect(response.connection.remotePort == fixture.servers.httpsPort)
        #expect(response.connection.serviceBindingRoute == nil)
    }
}
