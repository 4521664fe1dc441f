import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import Testing
import HTTPDNS
import HTTPDNSCLI
import TestSupport

/// The variables a command reads come from its `Environment`: the process's through `getenv`, or
/// variables a caller injects (commands driven in-process).
@Suite("httpdns command line: environment")
struct CLIEnvironmentTests {
    let fixture: Fixture

    init() throws { fixture = try Fixture() }

    /// Runs one command in this process; stdout and stderr as text.
    func run(_ arguments: [String], environment: Environment) async -> (status: Int32, output: String, errors: String) {
        let output = LockedValue(Data())
        let errors = LockedValue("")
        let console = Console(output: { data in output.withLock { $0.append(data) } }, error: { text in errors.withLock { $0 += text } })
        let status = await HTTPDNSTool.run(arguments, console: console, environment: environment)
        return (status, output.withLock { String(decoding: $0, as: UTF8.self) }, errors.withLock { $0 })
    }

    var resolveArguments: [String] {
        [
            "resolve", "--no-fallback", "--resolve", "dns.test:\(fixture.servers.dohPort):127.0.0.1",
            "--cacert", fixture.servers.caCertificate.path, "b.test"
        ]
    }

    @Test("an injected HTTPDNS_DOH_URL is the endpoint when no --doh-url is given")
    func injectedEndpoint() async throws {
        let result = await run(resolveArguments, environment: Environment(["HTTPDNS_DOH_URL": fixture.servers.dohURL.absoluteString]))
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("source=doh"))
    }

    @Test("the dictionary form of run(_:console:environment:) is the same environment")
    func dictionaryEnvironment() async throws {
        let output = LockedValue(Data())
        let console = Console(output: { data in output.withLock { $0.append(data) } }, error: { _ in })
        let status = await HTTPDNSTool.run(resolveArguments, console: console, environment: ["HTTPDNS_DOH_URL": fixture.servers.dohURL.absoluteString])
        #expect(status == 0)
        #expect(output.withLock { String(decoding: $0, as: UTF8.self) }.contains("source=doh"))
    }

    @Test("a bad injected HTTPDNS_DOH_URL is a usage error naming the variable")
    func injectedBadEndpoint() async throws {
        let result = await run(resolveArguments, environment: Environment(["HTTPDNS_DOH_URL": "http://dns.test/dns-query"]))
        #expect(result.status == 2)
        #expect(result.errors.contains("HTTPDNS_DOH_URL: bad DoH URL 'http://dns.test/dns-query': the scheme must be https"))
    }

    @Test("Environment.process reads the process's variables")
    func processEnvironment() {
        // Read-only: setenv while other tests' threads call getenv is not safe.
        let variables = ProcessInfo.processInfo.environment
        #expect(!variables.isEmpty)
        for (name, value) in variables.prefix(20) {
            #expect(Environment.process[name] == value, "\(name)")
        }
        #expect(Environment.process["HTTPDNS_UNSET_VARIABLE_\(UUID().uuidString.prefix(8))"] == nil)
    }

    @Test("fetch takes https_proxy and no_proxy from an injected environment")
    func injectedProxy() async throws {
        let proxy = try await ProxyTestServer.shared()
        let result = await run(
            ["fetch", "-v", fixture.url("a.test").absoluteString] + fixture.dohOptions,
            environment: Environment(["https_proxy": proxy.url.absoluteString, "no_proxy": "dns.test"]))
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "vhost=a.test\n")
        #expect(result.errors.contains("via proxy \(proxy.url.absoluteString)"))
    }

    @Test("fetch --noproxy replaces an injected NO_PROXY and goes direct past a dead https_proxy")
    func injectedProxyBypassed() async throws {
        let result = await run(
            ["fetch", "-v", fixture.url("b.test").absoluteString, "--noproxy", "b.test"] + fixture.dohOptions,
            environment: Environment(["HTTPS_PROXY": "http://127.0.0.1:9", "NO_PROXY": "nothing.example"]))
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "vhost=b.test\n")
        #expect(!result.errors.contains("via proxy"))
    }
}
