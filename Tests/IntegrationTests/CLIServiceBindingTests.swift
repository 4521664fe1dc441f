import Foundation
import Testing
import HTTPDNS
import TestSupport

/// `httpdns resolve --type HTTPS|SVCB` against unbound's DoH endpoint, run as a user runs it.
@Suite("httpdns resolve --type HTTPS and SVCB")
struct CLIServiceBindingTests {
    let fixture: Fixture

    init() throws { fixture = try Fixture() }

    func resolve(_ arguments: [String]) async throws -> CommandResult {
        try await fixture.httpdns(["resolve"] + arguments + fixture.dohOptions + ["--no-fallback"])
    }

    @Test("--type HTTPS prints each ServiceMode record as a zone-file line, in priority order")
    func httpsLines() async throws {
        let result = try await resolve(["--type", "HTTPS", "svc.test"])
        #expect(result.status == 0, "\(result.stderrText)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(
            lines.map { $0.replacing(#/ \d+ IN /#, with: " TTL IN ") } == [
                "svc.test. TTL IN HTTPS 1 . alpn=h2 port=8443 ipv4hint=127.0.0.1",
                "svc.test. TTL IN HTTPS 2 alt.svc.test. alpn=http/1.1"
            ])
    }

    @Test("AliasMode is followed and said in a comment line; lowercase --type works")
    func aliasLines() async throws {
        let result = try await resolve(["--type", "https", "alias.svc.test"])
        #expect(result.status == 0, "\(result.stderrText)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.first == "; alias.svc.test: AliasMode -> svc.test")
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("svc.test. ") })
        #expect(lines.count == 3)
    }

    @Test("--type SVCB reads dohpath")
    func svcb() async throws {
        let result = try await resolve(["--type", "SVCB", "doh.svc.test"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText.contains(" IN SVCB 1 dns.test. alpn=h2 dohpath=/dns-query{?dns}"))
    }

    @Test("--json gives the documented shape")
    func json() async throws {
        let result = try await resolve(["--type", "HTTPS", "--json", "ech.svc.test", "a.test"])
        #expect(result.status == 0, "\(result.stderrText)")
        let objects = result.stdoutText.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == 2)
        let first = try #require(objects.first)
        #expect(first["host"] as? String == "ech.svc.test")
        #expect(first["type"] as? String == "HTTPS")
        #expect(first["name"] as? String == "ech.svc.test")
        #expect((first["alias_chain"] as? [String]) == [])
        #expect((first["ttl"] as? Int).map { $0 > 0 && $0 <= 300 } == true)
        let record = try #require((first["records"] as? [[String: Any]])?.first)
        #expect(record["priority"] as? Int == 1)
        #expect(record["target"] as? String == ".")
        #expect(record["presentation"] as? String == "1 . alpn=h2,http/1.1 ech=AAT+DQAA ipv6hint=::1")
        let params = try #require(record["params"] as? [String: Any])
        #expect(params["alpn"] as? [String] == ["h2", "http/1.1"])
        #expect(params["ech"] as? String == "AAT+DQAA")
        #expect(params["ipv6hint"] as? [String] == ["::1"])
        #expect((objects.last?["records"] as? [Any])?.isEmpty == true, "a.test has none")
    }

    @Test("a name without records says so and succeeds")
    func none() async throws {
        let result = try await resolve(["--type", "HTTPS", "a.test"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "; a.test: no HTTPS records\n")
    }

    @Test("a name that does not exist is NXDOMAIN (exit 6), as for addresses, not 'no records'; --json says so too")
    func nameNotFound() async throws {
        let result = try await resolve(["--type", "HTTPS", "nope.test"])
        #expect(result.status == 6, "\(result.stdoutText)")
        #expect(result.stdoutText.isEmpty)
        #expect(result.stderrText.contains("could not resolve host 'nope.test': name does not exist (NXDOMAIN)"), "\(result.stderrText)")
        let json = try await resolve(["--type", "HTTPS", "--json", "nope.test"])
        #expect(json.status == 6)
        #expect(json.stdoutText.contains("NXDOMAIN"), "\(json.stdoutText)")
    }

    @Test("-v says which provider answered the HTTPS query, in how long and with how many records, and which failed")
    func verbose() async throws {
        let result = try await resolve(["--type", "HTTPS", "-v", "svc.test"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stderrText.contains("* resolver: doh \(fixture.servers.dohURL.absoluteString) answered svc.test HTTPS in "), "\(result.stderrText)")
        #expect(result.stderrText.contains(": 2 records"), "\(result.stderrText)")
        let bad = try await resolve(["--type", "HTTPS", "-v", "bad.svc.test"])
        #expect(bad.status == 6)
        #expect(bad.stderrText.contains("failed bad.svc.test HTTPS: "), "\(bad.stderrText)")
    }

    @Test("a malformed record fails with exit 6 and names the problem")
    func malformed() async throws {
        let result = try await resolve(["--type", "HTTPS", "bad.svc.test"])
        #expect(result.status == 6)
        #expect(result.stdoutText.isEmpty)
        #expect(result.stderrText.contains("could not get the HTTPS records of 'bad.svc.test'"), "\(result.stderrText)")
        #expect(result.stderrText.contains("SvcParam port has a 1-octet value; it must be exactly 2 (RFC 9460 §7.2)"), "\(result.stderrText)")
    }

    @Test("a provider that cannot carry them is a usage error (exit 2, before any traffic) that says to use DoH", arguments: ["httpdns-ali", "json"])
    func notCarried(provider: String) async throws {
        // Nothing is sent: the provider's kind decides. The address is TEST-NET-3 (RFC 5737).
        let account = provider == "httpdns-ali" ? ["--account-id", "100000"] : []
        let result = try await fixture.httpdns(["resolve", "--type", "HTTPS", "--provider", provider, "--endpoint", "https://203.0.113.1/d", "svc.test"] + account)
        #expect(result.status == 2)
        #expect(
            result.stderrText
                == "httpdns: --type HTTPS needs --provider doh: \(provider) can carry addresses only (use an RFC 8484 DoH endpoint) (see 'httpdns help resolve')\n")
    }

    @Test("--compare with --type HTTPS is a usage error")
    func compareRefused() async throws {
        let result = try await resolve(["--type", "HTTPS", "--compare", "svc.test"])
        #expect(result.status == 2)
        #expect(result.stderrText.contains("--compare compares addresses; it cannot be used with --type HTTPS"), "\(result.stderrText)")
    }
}
