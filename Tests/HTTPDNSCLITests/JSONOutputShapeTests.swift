import Foundation
import Testing
@testable import HTTPDNSCLI

/// `resolve --json` and `probe --json` print the keys their help lists, for every outcome.
@Suite("--json output shapes")
struct JSONOutputShapeTests {
    func objects(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @Test("resolve --json gives every documented key for every source: endpoint is null for a static answer")
    func resolveKeysForStaticAnswer() async throws {
        let output = LockedOutput()
        let status = await HTTPDNSTool.run(
            ["resolve", "--json", "--no-fallback", "--resolve", "a.test:443:127.0.0.1", "a.test"], console: output.console, environment: [:])
        #expect(status == 0)
        let object = try #require(objects(output.text).first)
        #expect(Set(object.keys) == ["host", "addresses", "ttl", "source", "endpoint", "provider", "latency_ms", "stale"])
        #expect(object["endpoint"] is NSNull)
        #expect(object["source"] as? String == "static")
    }

    @Test("resolve --json gives {host, error} for a name that cannot be resolved")
    func resolveErrorShape() async throws {
        let output = LockedOutput()
        let status = await HTTPDNSTool.run(
            ["resolve", "--json", "--no-fallback", "--doh-url", "https://127.0.0.1:1/dns-query", "a.test"], console: output.console, environment: [:])
        #expect(status == HTTPDNSTool.ExitStatus.couldNotResolve)
        let object = try #require(objects(output.text).first)
        #expect(Set(object.keys) == ["host", "error"])
        #expect((object["error"] as? String)?.hasPrefix("could not resolve host 'a.test'") == true)
    }

    @Test("probe --json prints one object for a host that cannot be resolved, as it does for a failed address")
    func probeUnresolvedHostShape() async throws {
        let output = LockedOutput()
        let status = await HTTPDNSTool.run(
            ["probe", "--json", "--no-fallback", "--doh-url", "https://127.0.0.1:1/dns-query", "https://a.test/"], console: output.console,
            environment: [:])
        #expect(status == HTTPDNSTool.ExitStatus.couldNotResolve)
        let lines = output.text.split(separator: "\n")
        #expect(lines.count == 1, "\(output.text)")
        let object = try #require(objects(output.text).first)
        #expect(Set(object.keys) == ["host", "healthy", "error", "message"])
        #expect(object["host"] as? String == "a.test")
        #expect(object["healthy"] as? Bool == false)
        #expect(object["error"] as? String == "couldNotResolve")
        #expect((object["message"] as? String)?.hasPrefix("could not resolve host 'a.test'") == true)
    }
}
