import Foundation
import Synchronization
import Testing
import HTTPDNS
import TestSupport

extension ResolverIntegrationSuites {
    /// Through an HTTP proxy the request goes by host name (no IP replacement), with TLS still verified
    /// end to end; `no_proxy` hosts go IP-direct as usual. Against the suite's proxy (`scripts/connect-proxy.py`).
    @Suite("HTTP proxies")
    struct ProxyTests {
        let fixture: Fixture
        let proxy: ProxyTestServer

        init() async throws {
            fixture = try Fixture()
            proxy = try await ProxyTestServer.shared()
        }

        func client(_ policy: ProxyPolicy, resolver: any HostResolving) throws -> HTTPClient {
            var configuration = HTTPClient.Configuration(trust: fixture.trust, timeouts: .generous)
            configuration.proxy = policy
            return try HTTPClient(configuration: configuration, resolver: resolver)
        }

        @Test("https_proxy: CONNECT by host name, the resolver is not asked, the certificate is verified for the name")
        func httpsThroughProxy() async throws {
            let resolver = CountingResolver()
            var request = HTTPRequest(url: fixture.url("b.test"))
            request.reportsTLSDetails = true
            let response = try await client(.variables(["https_proxy": proxy.url.absoluteString]), resolver: resolver).execute(request)
            #expect(response.text == "vhost=b.test\n")
            #expect(response.connection.proxy == proxy.url)
            #expect(response.connection.resolution == nil)
            #expect(response.connection.tls?.serverName == "b.test")
            #expect(response.connection.tls?.verified == true)
            #expect(resolver.count == 0)
            #expect(!proxy.requests(containing: "CONNECT b.test:\(fixture.servers.httpsPort)").isEmpty)
        }

        @Test("through a proxy the response head is the server's, not the proxy's answer to CONNECT")
        func headThroughProxyIsTheServers() async throws {
            let heads = LockedValue<[HTTPResponseHead]>([])
            var request = HTTPRequest(url: fixture.url("b.test", "/status/404"))
            request.reportsTLSDetails = true
            let response = try await client(.variables(["https_proxy": proxy.url.absoluteString]), resolver: CountingResolver())
                .execute(request, to: .streaming(head: { head in heads.withLock { $0.append(head) } }, chunk: { _ in }))
            #expect(response.status == 404)
            let delivered = heads.withLock { $0 }
            #expect(delivered.map(\.status) == [404], "one head, the server's")
            #expect(delivered.first?.headers[first: "X-Vhost"] == "b.test")
            #expect(delivered.first?.connection?.tls?.serverName == "b.test", "TLS with the server is known by then")
        }

        @Test("http_proxy and all_proxy apply to http URLs, sent in absolute form by name")
        func httpThroughProxy() async throws {
            for variable in ["http_proxy", "all_proxy", "ALL_PROXY"] {
                let resolver = CountingResolver()
                let response = try await client(.variables([variable: proxy.url.absoluteString]), resolver: resolver)
                    .execute(HTTPRequest(url: fixture.servers.httpURL("a.test")))
                #expect(response.text == "vhost=a.test\n", "\(variable)")
                #expect(resolver.count == 0)
            }
            #expect(!proxy.requests(containing: "GET http://a.test:\(fixture.servers.httpPort)/").isEmpty)
        }

        @Test("HTTP_PROXY in upper case is ignored, as curl does", arguments: ["HTTP_PROXY"])
        func upperCaseHTTPProxyIgnored(variable: String) async throws {
            let resolver = CountingResolver()
            let response = try await client(.variables([variable: "http://127.0.0.1:9"]), resolver: resolver).execute(HTTPRequest(url: fixture.servers.httpURL("a.test")))
            #expect(response.text == "vhost=a.test\n")
            #expect(resolver.count == 1)
        }

        @Test("no_proxy names (exact, suffix, *) go IP-direct through the resolver", arguments: ["b.test", ".test", "test", "*", "other.test,b.test"])
        func noProxy(list: String) async throws {
            let resolver = CountingResolver()
            let response = try await client(.variables(["https_proxy": "http://127.0.0.1:9", "no_proxy": list]), resolver: resolver)
                .execute(HTTPRequest(url: fixture.url("b.test")))
            #expect(response.text == "vhost=b.test\n")
            #expect(response.connection.proxy == nil)
            #expect(resolver.count == 1)
        }

        @Test("ProxyPolicy.variableNames holds every variable the rules read: just those decide as the whole environment does")
        func variableNamesCoverTheRules() {
            let candidates = ["https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"]
            for name in candidates {
                for bypass in [nil, "no_proxy", "NO_PROXY"] {
                    var variables = [name: "http://proxy.example:3128", "PATH": "/usr/bin"]
                    if let bypass { variables[bypass] = "a.test" }
                    let subset = variables.filter { ProxyPolicy.variableNames.contains($0.key) }
                    for scheme in ["http", "https"] {
                        for host in ["a.test", "b.test"] {
                            #expect(
                                ProxyPolicy.variables(subset).proxy(scheme: scheme, host: host, port: 443)
                                    == ProxyPolicy.variables(variables).proxy(scheme: scheme, host: host, port: 443), "\(variables) \(scheme) \(host)")
                        }
                    }
                }
            }
        }

        @Test("no_proxy matching rules")
        func noProxyMatching() {
            #expect(ProxyPolicy.bypasses(host: "a.b.example", port: 443, list: ["example"]))
            #expect(ProxyPolicy.bypasses(host: "example", port: 443, list: [".example"]))
            #expect(!ProxyPolicy.bypasses(host: "notexample", port: 443, list: ["example"]))
            #expect(ProxyPolicy.bypasses(host: "::1", port: 443, list: ["[::1]"]))
            #expect(ProxyPolicy.bypasses(host: "xn--bcher-kva.test", port: 443, list: ["bücher.test"]))
            #expect(!ProxyPolicy.bypasses(host: "127.0.0.1", port: 443, list: ["127.0.0.2"]))
        }

        @Test("no_proxy CIDR blocks match IP-literal hosts inside them, as curl 7.86+")
        func noProxyCIDR() {
            #expect(ProxyPolicy.bypasses(host: "127.0.0.1", port: 443, list: ["127.0.0.0/8"]))
            #expect(ProxyPolicy.bypasses(host: "10.1.2.3", port: 443, list: ["192.168.0.0/16", "10.0.0.0/8"]))
            #expect(!ProxyPolicy.bypasses(host: "11.0.0.1", port: 443, list: ["10.0.0.0/8"]))
            #expect(ProxyPolicy.bypasses(host: "192.168.1.130", port: 443, list: ["192.168.1.128/25"]))
            #expect(!ProxyPolicy.bypasses(host: "192.168.1.127", port: 443, list: ["192.168.1.128/25"]))
            #expect(ProxyPolicy.bypasses(host: "fd00::1", port: 443, list: ["fd00::/8"]))
            #expect(ProxyPolicy.bypasses(host: "::1", port: 443, list: ["[::1]/128"]))
            #expect(ProxyPolicy.bypasses(host: "1.2.3.4", port: 443, list: ["0.0.0.0/0"]))
            // Families never match each other, names are not resolved, malformed blocks match nothing.
            #expect(!ProxyPolicy.bypasses(host: "::ffff:10.0.0.1", port: 443, list: ["10.0.0.0/8"]))
            #expect(!ProxyPolicy.bypasses(host: "a.test", port: 443, list: ["127.0.0.0/8"]))
            #expect(!ProxyPolicy.bypasses(host: "10.0.0.1", port: 443, list: ["10.0.0.0/33", "10.0.0.0/x", "10.0.0.0/"]))
        }

        @Test("fetch honours https_proxy from the environment (and -v says so)")
        func cliThroughProxy() async throws {
            let servers = fixture.servers
            let result = try await Command.runDetached(
                PackagePaths.builtProduct("httpdns"),
                [
                    "fetch", "-v", fixture.url("a.test").absoluteString, "--doh-url", servers.dohURL.absoluteString,
                    "--resolve", "dns.test:\(servers.dohPort):127.0.0.1", "--cacert", servers.caCertificate.path
                ],
                environment: ["https_proxy": proxy.url.absoluteString, "no_proxy": "dns.test"], timeout: 60)
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stdoutText == "vhost=a.test\n")
            #expect(result.stderrText.contains("via proxy \(proxy.url.absoluteString)"))
        }

        @Test("fetch -x sends through that proxy by name, whatever the environment says")
        func cliExplicitProxy() async throws {
            let result = try await fixture.httpdns(
                ["fetch", "-v", "-x", "127.0.0.1:\(proxy.port)", fixture.url("www.a.test").absoluteString] + fixture.dohOptions,
                environment: ["https_proxy": "http://127.0.0.1:9"])
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stdoutText == "vhost=a.test\n") // www.a.test is an alias of the a.test vhost
            #expect(result.stderrText.contains("via proxy \(proxy.url.absoluteString)"))
            #expect(!proxy.requests(containing: "CONNECT www.a.test:\(fixture.servers.httpsPort)").isEmpty)
        }

        @Test("fetch --noproxy (names, CIDR, *) replaces no_proxy and goes IP-direct over DoH", arguments: ["b.test", "*", "10.0.0.0/8,.test"])
        func cliNoProxy(list: String) async throws {
            // The proxies named here are dead: only going direct succeeds.
            for proxyOptions in [["-x", "http://127.0.0.1:9"], []] {
                let result = try await fixture.httpdns(
                    ["fetch", "-v", fixture.url("b.test").absoluteString, "--noproxy", list] + proxyOptions + fixture.dohOptions,
                    environment: ["https_proxy": "http://127.0.0.1:9", "no_proxy": "nothing.example"])
                #expect(result.status == 0, "\(proxyOptions) \(result.stderrText)")
                #expect(result.stdoutText == "vhost=b.test\n")
                #expect(!result.stderrText.contains("via proxy"))
            }
        }

        @Test("fetch -x with a URL that is not an HTTP proxy is a usage error", arguments: ["ftp://127.0.0.1:21", "socks5://127.0.0.1:1080", "http://"])
        func cliBadProxy(value: String) async throws {
            let result = try await fixture.httpdns(["fetch", "-x", value, fixture.url("b.test").absoluteString] + fixture.dohOptions)
            #expect(result.status == 2)
            #expect(
                result.stderrText == "httpdns: -x: expected an HTTP proxy URL (http://HOST:PORT or https://HOST:PORT), got '\(value)' (see 'httpdns help fetch')\n",
                "\(result.stderrText)")
            #expect(result.stdoutText.isEmpty)
        }
    }
}

/// Counts the lookups a client makes; answers 127.0.0.1.
final class CountingResolver: HostResolving {
    private let lookups = Atomic<Int>(0)
    var count: Int { lookups.load(ordering: .relaxed) }
    func resolve(host: String, port: Int) async throws -> HostResolution {
        lookups.add(1, ordering: .relaxed)
        return HostResolution(host: host, addresses: [IPAddress("127.0.0.1")!], ttl: nil, source: .staticMapping)
    }
}
