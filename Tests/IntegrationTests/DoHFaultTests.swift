import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import Testing
import HTTPDNS
import TestSupport

extension ResolverIntegrationSuites {
    /// An RFC 8484 endpoint that misbehaves (the provider server's `/fault/...` paths, a closed port, a
    /// certificate for another name): with a second endpoint configured the resolver fails over to it
    /// (unbound); alone it is a typed `resolverUnavailable` naming the fault, never "no such host".
    @Suite("DoH endpoint faults")
    struct DoHFaultTests {
        /// Each fault, and a piece of the reason the resolver must give for it.
        static let faults: [(name: String, reason: String)] = [
            ("hang", "timed out"), ("429", "HTTP 429"), ("500", "HTTP 500"), ("garbage", "text/html"),
            ("oversized", "exceeds the limit of 65535 bytes"), ("refused", "could not connect"), ("wrong-certificate", "certificate")
        ]
        /// The per-request timeout: how long a hanging endpoint is waited for.
        static let requestTimeout: TimeInterval = 1.5

        let fixture: Fixture
        let server: ProviderTestServer

        init() async throws {
            fixture = try Fixture()
            server = try await ProviderTestServer.shared()
        }

        func endpoint(_ fault: String, method: DoHEndpoint.Method) throws -> DoHEndpoint {
            let bootstrap = [IPAddress("127.0.0.1")!]
            var endpoint: DoHEndpoint
            switch fault {
            case "refused":
                endpoint = try fixture.deadEndpoint()
            case "wrong-certificate":
                // The provider server presents dns.test's certificate to a client that asked for b.test.
                endpoint = DoHEndpoint(url: URL(string: "https://b.test:\(server.port)/dns-query")!, bootstrapAddresses: bootstrap)
            default:
                endpoint = DoHEndpoint(url: server.url("/fault/\(fault)/dns-query"), bootstrapAddresses: bootstrap)
            }
            endpoint.method = method
            return endpoint
        }

        func resolver(_ endpoints: [DoHEndpoint]) throws -> HostResolver {
            let configuration = HostResolver.Configuration(endpoints: endpoints, requestTimeout: Self.requestTimeout, fallbackToSystemResolver: false)
            return try HostResolver(configuration: configuration, dohTrust: fixture.trust)
        }

        @Test("a faulty first endpoint fails over to the next", arguments: faults.map(\.name), [DoHEndpoint.Method.get, .post])
        func failover(fault: String, method: DoHEndpoint.Method) async throws {
            var good = fixture.endpoint
            good.method = method
            let start = ContinuousClock.now
            let resolution = try await resolver([try endpoint(fault, method: method), good]).resolve(host: "a.test", port: 443)
            let elapsed = ContinuousClock.now - start
            #expect(resolution.source == .doh(endpoint: fixture.servers.dohURL))
            #expect(resolution.addresses.contains(IPAddress("127.0.0.1")!))
            // A hanging endpoint is given up after the request timeout, not the connect timeout or
            // never; the slack is loose because two shared cores run the whole suite at once.
            #expect(elapsed < .seconds(Self.requestTimeout + TestTimeScale.scaled(8)), "took \(elapsed)")
        }

        @Test("a request's total time limit covers resolving its name: a hanging DoH endpoint is curl's 28 at the limit")
        func totalLimitCoversResolution() async throws {
            // The resolver alone would wait 30 s for the endpoint.
            let configuration = HostResolver.Configuration(endpoints: [try endpoint("hang", method: .post)], requestTimeout: 30, fallbackToSystemResolver: false)
            let resolver = try HostResolver(configuration: configuration, dohTrust: fixture.trust)
            let client = try HTTPClient(configuration: .init(trust: fixture.trust, timeouts: Timeouts(connect: 5, total: 1)), resolver: resolver)
            let start = ContinuousClock.now
            let error = try await #require(throws: HTTPClientError.self) {
                try await client.execute(HTTPRequest(url: fixture.url("a.test")))
            }
            let elapsed = ContinuousClock.now - start
            #expect(error.kind == .timedOut)
            #expect(error.curlCode == 28)
            #expect(error.message.contains("resolving a.test timed out after 1000 ms"), "\(error.message)")
            #expect(elapsed >= .seconds(0.9) && elapsed < .seconds(1 + TestTimeScale.scaled(5)), "took \(elapsed)")
        }

        /// `httpdns fetch OPTIONS` of a.test resolved only through `doh` (dns.test at 127.0.0.1 on
        /// `port`), and how long it took.
        func fetchThrough(_ doh: URL, port: Int, _ options: [String]) async throws -> (CommandResult, Duration) {
            let start = ContinuousClock.now
            let result = try await fixture.httpdns(
                ["fetch"] + options + [
                    "--no-fallback", "--doh-url", doh.absoluteString,
                    "--resolve", "dns.test:\(port):127.0.0.1", "--cacert", fixture.servers.caCertificate.path,
                    fixture.url("a.test").absoluteString
                ])
            return (result, ContinuousClock.now - start)
        }

        @Test("fetch --max-time covers resolution: exit 28 at the limit, as curl's \"Resolving timed out\"")
        func cliMaxTimeCoversResolution() async throws {
            let hanging = try endpoint("hang", method: .post)
            let (result, elapsed) = try await fetchThrough(hanging.url, port: server.port, ["--max-time", "1"])
            #expect(result.status == 28, "\(result.stderrText)")
            #expect(result.stderrText.contains("timed out"), "\(result.stderrText)")
            #expect(elapsed < .seconds(1 + TestTimeScale.scaled(5)), "took \(elapsed)")
        }

        @Test("fetch --connect-timeout covers resolving the name, as curl's: a black-holed DoH endpoint is 28 at the limit, not after the resolver's 5 s")
        func cliConnectTimeoutCoversResolution() async throws {
            let port = try FreePort.tcp()
            let hole = try ResolverIntegrationSuites.HappyEyeballsTests.blackHole("127.0.0.1", port: port)
            defer { hole.forEach { close($0) } }
            let (result, elapsed) = try await fetchThrough(URL(string: "https://dns.test:\(port)/dns-query")!, port: port, ["--connect-timeout", "1"])
            #expect(result.status == 28, "\(result.stderrText)")
            #expect(result.stderrText.contains("resolving a.test timed out after 1000 ms"), "\(result.stderrText)")
            #expect(elapsed < .seconds(1 + TestTimeScale.scaled(3)), "took \(elapsed)")
        }

        @Test("a black-holed DoH endpoint's A and AAAA failures both say what timed out: no libcurl '(nil)' or 'after 0 ms' for the query that waited to share the connection")
        func blackHoleMessagesNameTheWait() async throws {
            for _ in 0..<2 {
                let port = try FreePort.tcp()
                let hole = try ResolverIntegrationSuites.HappyEyeballsTests.blackHole("127.0.0.1", port: port)
                defer { hole.forEach { close($0) } }
                let result = try await fixture.httpdns([
                    "resolve", "--doh-url", "https://dns.test:\(port)/dns-query", "--resolve", "dns.test:\(port):127.0.0.1",
                    "--cacert", fixture.servers.caCertificate.path, "--no-fallback", "a.test"
                ])
                #expect(result.status == 6, "\(result.stderrText)")
                #expect(
                    result.stderrText.contains("AAAA: request to dns.test:\(port)") && result.stderrText.contains("A: request to dns.test:\(port)"),
                    "\(result.stderrText)")
                #expect(!result.stderrText.contains("(nil)") && !result.stderrText.contains("after 0 ms"), "\(result.stderrText)")
            }
        }

        @Test(
            "--doh-method chooses how RFC 8484 queries go: GET by default (?dns=), or POST",
            arguments: [([] as [String], "GET"), (["--doh-method", "post"], "POST"), (["--doh-method", "GET"], "GET")])
        func cliDoHMethod(options: [String], method: String) async throws {
            let marker = "method-\(UUID().uuidString)"
            let url = server.url("/fault/garbage/\(marker)")
            let result = try await fixture.httpdns(
                [
                    "resolve", "--no-fallback", "--doh-url", url.absoluteString, "--resolve", "dns.test:\(server.port):127.0.0.1",
                    "--cacert", fixture.servers.caCertificate.path, "a.test"
                ] + options)
            #expect(result.status == 6, "\(result.stderrText)")
            // The log's request lines ("METHOD PATH"), not its "BODY PATH LENGTH" lines.
            let sent = server.requests(containing: marker).filter { !$0.hasPrefix("BODY ") }
            #expect(!sent.isEmpty && sent.allSatisfy { $0.hasPrefix("\(method) /fault/garbage/\(marker)") }, "\(sent)")
            if method == "GET" { #expect(sent.allSatisfy { $0.contains("?dns=") }, "\(sent)") }
        }

        @Test("--doh-method refuses anything but GET and POST, and other providers", arguments: [["--doh-method", "PUT"], ["--doh-method", "POST", "--provider", "json"]])
        func cliDoHMethodRefused(options: [String]) async throws {
            let result = try await fixture.httpdns(["resolve", "a.test"] + options)
            #expect(result.status == 2, "\(result.stderrText)")
            #expect(result.stderrText.contains("--doh-method"), "\(result.stderrText)")
        }

        @Test("a faulty only endpoint is 'resolver unavailable' naming the fault", arguments: faults.map(\.name), [DoHEndpoint.Method.get, .post])
        func typedError(fault: String, method: DoHEndpoint.Method) async throws {
            let expected = try #require(Self.faults.first { $0.name == fault }?.reason)
            let start = ContinuousClock.now
            let error = try await #require(throws: ResolutionError.self) {
                try await resolver([try endpoint(fault, method: method)]).resolve(host: "a.test", port: 443)
            }
            let elapsed = ContinuousClock.now - start
            guard case .resolverUnavailable(let host, let reasons) = error else {
                Issue.record("expected resolverUnavailable, got \(error)")
                return
            }
            #expect(host == "a.test")
            #expect(reasons.count == 1)
            #expect(reasons.first?.contains(expected) == true, "\(reasons)")
            if fault == "hang" {
                #expect(elapsed >= .seconds(Self.requestTimeout - 0.1), "gave up before the request timeout: \(elapsed)")
            }
            #expect(elapsed < .seconds(Self.requestTimeout + TestTimeScale.scaled(8)), "took \(elapsed)")
        }
    }
}
