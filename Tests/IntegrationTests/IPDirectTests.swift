import Foundation
import Testing
@testable import HTTPDNS
import TestSupport
@testable import DNSResolver
import HTTPDNSCore

/// The core promise: the connection goes to the DoH-resolved address while SNI, Host and
/// certificate verification use the name; against real nginx virtual hosts and a real unbound.
@Suite("IP-direct HTTPS over DoH")
struct IPDirectTests {
    @Test(
        "each name reaches its own virtual host with its own certificate, verified for the name",
        arguments: ["a.test", "b.test", "www.a.test"])
    func reachesTheVirtualHostChosenBySNI(host: String) async throws {
        let fixture = try Fixture()
        var request = HTTPRequest(url: fixture.url(host))
        request.reportsTLSDetails = true
        let response = try await fixture.client().execute(request)

        #expect(response.status == 200)
        let vhost = host == "www.a.test" ? "a.test" : host
        #expect(response.text == "vhost=\(vhost)\n")
        #expect(response.headers[first: "X-SNI"] == host)
        #expect(response.headers[first: "X-Host"] == host)
        let tls = try #require(response.connection.tls)
        #expect(tls.serverName == host)
        #expect(tls.verified)
        #expect(tls.peerSubject?.contains("CN=\(vhost)") == true)
        #expect(tls.peerIssuer?.contains("CN=httpdns Test Root CA") == true)
        let resolution = try #require(response.connection.resolution)
        #expect(resolution.source == .doh(endpoint: fixture.servers.dohURL))
        let address = try #require(response.connection.remoteAddress)
        #expect(resolution.addresses.map(\.description).contains(address))
    }

    @Test("omittedHeaders leaves out what libcurl adds, but never Host, which keeps the name")
    func omittedHeaders() async throws {
        let fixture = try Fixture()
        let client = try fixture.client(trust: fixture.trust, resolver: try fixture.resolver(), version: .http1_1)
        var request = HTTPRequest(url: fixture.url("a.test", "/headers"))
        request.omittedHeaders = ["User-Agent", "Accept"]
        let response = try await client.execute(request)
        let lines = response.text.lowercased().split(separator: "\r\n")
        #expect(!lines.contains { $0.hasPrefix("user-agent:") || $0.hasPrefix("accept:") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("host: a.test") }, "\(lines)")
        request.omittedHeaders = ["host"]
        let error = try await #require(throws: HTTPClientError.self) { try await client.execute(request) }
        #expect(error.kind == .invalidRequest)
    }

    @Test("HTTP/2 is negotiated by ALPN, HTTP/1.1 when asked")
    func negotiatesHTTPVersionByALPN() async throws {
        let fixture = try Fixture()
        var request = HTTPRequest(url: fixture.url("a.test"))
        request.reportsTLSDetails = true
        let h2 = try await fixture.client().execute(request)
        #expect(h2.version == .http2)
        #expect(h2.connection.tls?.alpn == "h2")
        #expect(h2.headers[first: "X-Protocol"] == "HTTP/2.0")
        request.httpVersion = .http1_1
        let h1 = try await fixture.client().execute(request)
        #expect(h1.version == .http1_1)
        #expect(h1.connection.tls?.alpn == "http/1.1")
    }

    @Test("DoH over POST resolves like GET (base64url ?dns=, the default)")
    func dohPOSTResolves() async throws {
        let fixture = try Fixture()
        let resolution = try await fixture.resolver(method: .post).resolve(host: "a.test", port: 443)
        #expect(Set(resolution.addresses.map(\.description)).isSuperset(of: ["127.0.0.1"]))
        #expect(resolution.ttl == 300)
    }

    @Test("a cold lookup of both families with the default method (GET) opens one connection to the DoH server")
    func coldDualStackLookupSharesOneConnection() async throws {
        let fixture = try Fixture()
        for round in 0..<3 {
            // A trust policy of its own: a cold pool, as in a fresh process.
            let transport = ConnectionCountingTransport(try HTTPClient(configuration: .init(trust: fixture.freshTrust()), resolver: SystemResolver()))
            let endpoint = fixture.endpoint
            #expect(endpoint.method == .get)
            let answer = try await DoHClient(transport: transport).lookup("a.test", families: .both, endpoint: endpoint, timeout: 10)
            guard case .addresses(let addresses, _) = answer else {
                Issue.record("no addresses: \(answer)")
                return
            }
            #expect(Set(addresses.map(\.description)) == ["127.0.0.1", "::1"])
            // A and AAAA went out together; the second waited for the first's connection
            // (CURLOPT_PIPEWAIT) and multiplexed on it, where two POSTs take one each.
            #expect(
                transport.newConnections == [true, false] || transport.newConnections == [false, true],
                "round \(round): new connection per exchange: \(transport.newConnections)")
        }
    }

    @Test("the naive way (IP in the URL plus a Host header) sends no SNI and fails verification")
    func ipLiteralURLWithHostHeaderFailsVerification() async throws {
        let fixture = try Fixture()
        let url = URL(string: "https://127.0.0.1:\(fixture.servers.httpsPort)/")!
        let request = HTTPRequest(url: url, headers: ["Host": "a.test"])
        let error = try await #require(throws: HTTPClientError.self) {
            try await fixture.client().execute(request)
        }
        #expect(error.kind == .certificateVerificationFailed)
        #expect(error.curlExitStatus == 60)
        // Verified against the IP, as the seed problem found.
        #expect(error.message.contains("'127.0.0.1'"))
    }

    @Test("a certificate for another name is rejected even when DNS answered")
    func certificateForAnotherNameIsRejected() async throws {
        let fixture = try Fixture()
        let error = try await #require(throws: HTTPClientError.self) {
            try await fixture.client().execute(HTTPRequest(url: fixture.url("wrong.test")))
        }
        #expect(error.kind == .certificateVerificationFailed)
        #expect(error.message.contains("wrong.test"))
    }

    @Test("a certificate from a CA that is not trusted is rejected")
    func untrustedCAIsRejected() async throws {
        let fixture = try Fixture()
        let client = try fixture.client(trust: .anchors(fixture.otherCA, includingSystemRoots: false))
        let error = try await #require(throws: HTTPClientError.self) {
            try await client.execute(HTTPRequest(url: fixture.url("a.test")))
        }
        #expect(error.kind == .certificateVerificationFailed)
    }

    @Test("system roots alone do not trust the private test CA")
    func systemRootsRejectPrivateCA() async throws {
        let fixture = try Fixture()
        var request = HTTPRequest(url: fixture.url("a.test"))
        request.connectTo = [IPAddress("127.0.0.1")!]
        let error = try await #require(throws: HTTPClientError.self) {
            try await fixture.client(trust: .system).execute(request)
        }
        #expect(error.kind == .certificateVerificationFailed)
        #expect(error.message.contains("unable to get local issuer certificate"))
    }

    @Test("NXDOMAIN from DoH is 'could not resolve' without fallback")
    func nxdomainIsCouldNotResolve() async throws {
        let fixture = try Fixture()
        let client = try fixture.client(resolver: try fixture.resolver(fallback: true))
        let error = try await #require(throws: HTTPClientError.self) {
            try await client.execute(HTTPRequest(url: fixture.url("nope.test")))
        }
        #expect(error.kind == .couldNotResolve)
        guard case .nameNotFound(let host, let negativeTTL)? = error.resolutionError else {
            Issue.record("expected nameNotFound, got \(String(describing: error.resolutionError))")
            return
        }
        #expect(host == "nope.test")
        #expect(negativeTTL == 60)
    }

    @Test("with the DoH server down, the system resolver answers")
    func dohDownFallsBackToSystemResolver() async throws {
        let fixture = try Fixture()
        let resolver = try fixture.resolver(endpoints: [try fixture.deadEndpoint()], fallback: true)
        var request = HTTPRequest(url: fixture.url("localhost"))
        request.reportsTLSDetails = true
        let response = try await fixture.client(resolver: resolver).execute(request)
        #expect(response.text == "vhost=localhost\n")
        #expect(response.connection.resolution?.source == .system)
        #expect(response.connection.tls?.serverName == "localhost")
    }

    @Test("with the DoH server down and fallback off, resolution fails listing the endpoint")
    func dohDownWithoutFallbackFails() async throws {
        let fixture = try Fixture()
        let dead = try fixture.deadEndpoint()
        let resolver = try fixture.resolver(endpoints: [dead], fallback: false)
        let error = try await #require(throws: HTTPClientError.self) {
            try await fixture.client(resolver: resolver).execute(HTTPRequest(url: fixture.url("a.test")))
        }
        #expect(error.kind == .couldNotResolve)
        guard case .resolverUnavailable(_, let reasons)? = error.resolutionError else {
            Issue.record("expected resolverUnavailable, got \(String(describing: error.resolutionError))")
            return
        }
        #expect(reasons.joined().contains(dead.url.absoluteString))
    }

    @Test("a failing first DoH endpoint fails over to the next")
    func failsOverToTheNextEndpoint() async throws {
        let fixture = try Fixture()
        let resolver = try fixture.resolver(endpoints: [try fixture.deadEndpoint(), fixture.endpoint], fallback: false)
        let resolution = try await resolver.resolve(host: "b.test", port: 443)
        #expect(resolution.source == .doh(endpoint: fixture.servers.dohURL))
    }
}

/// The HTTP client's DoH exchanges, recording for each whether it opened a new connection.
private final class ConnectionCountingTransport: DoHTransport {
    let client: HTTPClient
    private let log = LockedValue<[Bool]>([])
    init(_ client: HTTPClient) { self.client = client }

    var newConnections: [Bool] { log.withLock { $0 } }

    func send(
        url: URL, method: String, headers: [(String, String)], body: Data?,
        connectTo: [IPAddress], timeout: TimeInterval, maxResponseBytes: Int
    ) async throws -> DoHHTTPResponse {
        let request = client.dohRequest(url: url, method: method, headers: headers, body: body, connectTo: connectTo, timeout: timeout)
        let response = try await client.execute(request, to: .memory(limit: maxResponseBytes))
        log.withLock { $0.append(!response.connection.reusedConnection) }
        return DoHHTTPResponse(response)
    }
}
