import Foundation
import HTTPDNS
import HTTPDNSCLI
import Testing
import TestSupport

/// `httpdns resolve --dnssec` and `fetch -v` against the signed zones of scripts/dnssec-zones.sh.
@Suite("httpdns resolve --dnssec and fetch -v on signed zones")
struct DNSSECCLITests {
    let fixture: Fixture
    let anchorFile: String

    init() throws {
        fixture = try Fixture()
        anchorFile = try #require(fixture.servers.environment["DNSSEC_ANCHOR"])
    }

    func httpdns(_ arguments: [String]) async throws -> CommandResult {
        try await fixture.httpdns(arguments + fixture.dohOptions + ["--no-fallback"])
    }

    func jsonLines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @Test("resolve --dnssec require prints the outcome per name, text and JSON")
    func outcomes() async throws {
        let text = try await httpdns(["resolve", "--dnssec", "require", "--trust-anchor", anchorFile, "-4", "www.signed.dnssec.test", "www.unsigned.dnssec.test"])
        #expect(text.status == 0, "\(text.stderrText)")
        #expect(text.stdoutText.contains("www.signed.dnssec.test 127.0.0.1 ttl="))
        let lines = text.stdoutText.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("www.signed.dnssec.test 127.0.0.1 ") && $0.hasSuffix(" dnssec=secure") }, "\(text.stdoutText)")
        #expect(lines.contains { $0.hasPrefix("www.unsigned.dnssec.test 127.0.0.1 ") && $0.hasSuffix(" dnssec=insecure") }, "\(text.stdoutText)")
        #expect(text.stderrText.contains("www.unsigned.dnssec.test: DNSSEC insecure: "), "\(text.stderrText)")

        let json = try await httpdns(["resolve", "--json", "--dnssec", "report", "--trust-anchor", anchorFile, "-4", "www.dnssec.test", "www.tampered.dnssec.test"])
        #expect(json.status == 0, "\(json.stderrText)")
        let objects = jsonLines(json.stdoutText)
        #expect(objects.count == 2)
        #expect(objects.first?["dnssec"] as? String == "secure")
        #expect(objects.first?["dnssec_reason"] is NSNull)
        #expect(objects.last?["dnssec"] as? String == "bogus")
        #expect((objects.last?["dnssec_reason"] as? String)?.contains("does not verify") == true)
        #expect(objects.last?["addresses"] as? [String] == ["127.0.0.66"])
    }

    @Test("resolve --dnssec require exits 6 for a bogus answer and says why")
    func bogus() async throws {
        let result = try await httpdns(["resolve", "--dnssec", "require", "--trust-anchor", anchorFile, "www.expired.dnssec.test"])
        #expect(result.status == HTTPDNSTool.ExitStatus.couldNotResolve)
        #expect(result.stdoutText.isEmpty)
        #expect(result.stderrText.contains("failed DNSSEC validation"), "\(result.stderrText)")
        #expect(result.stderrText.contains("expired"), "\(result.stderrText)")
    }

    @Test("a negative answer's proof is printed too: HOST - dnssec=STATUS, and in the JSON error object")
    func negative() async throws {
        let text = try await httpdns(["resolve", "--dnssec", "require", "--trust-anchor", anchorFile, "nope.signed.dnssec.test"])
        #expect(text.status == HTTPDNSTool.ExitStatus.couldNotResolve)
        #expect(text.stdoutText == "nope.signed.dnssec.test - dnssec=secure\n")
        #expect(text.stderrText.contains("NXDOMAIN"))
        let json = try await httpdns(["resolve", "--json", "--dnssec", "require", "--trust-anchor", anchorFile, "nope.dnssec.test", "www.expired.dnssec.test"])
        let objects = jsonLines(json.stdoutText)
        #expect(objects.map { $0["dnssec"] as? String } == ["secure", "bogus"])
        #expect(objects.allSatisfy { $0["error"] is String })
    }

    @Test("bad --dnssec and --trust-anchor values are usage errors (exit 2)")
    func usage() async throws {
        let policy = try await httpdns(["resolve", "--dnssec", "maybe", "a.test"])
        #expect(policy.status == HTTPDNSTool.ExitStatus.usage)
        #expect(policy.stderrText.contains("--dnssec"), "\(policy.stderrText)")
        let alone = try await httpdns(["resolve", "--trust-anchor", anchorFile, "a.test"])
        #expect(alone.status == HTTPDNSTool.ExitStatus.usage)
        let scratch = try fixture.scratchDirectory("dnssec-anchor")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let garbage = scratch.appendingPathComponent("anchor.txt")
        try "dnssec.test. IN DS not a ds record\n".write(to: garbage, atomically: true, encoding: .utf8)
        let bad = try await httpdns(["resolve", "--dnssec", "report", "--trust-anchor", garbage.path, "a.test"])
        #expect(bad.status == HTTPDNSTool.ExitStatus.usage)
        #expect(bad.stderrText.contains("--trust-anchor"), "\(bad.stderrText)")
    }

    @Test("fetch -v says whether the address came from a validated answer")
    func fetchVerbose() async throws {
        let url = fixture.url("a.test").absoluteString
        let plain = try await httpdns(["fetch", "-v", "-o", "/dev/null", url])
        #expect(plain.stderrText.contains("* resolved a.test via doh"), "\(plain.stderrText)")
        #expect(plain.stderrText.contains(", not DNSSEC-validated"), "\(plain.stderrText)")
        // a.test is outside the anchor's zone: validated, and indeterminate.
        let validated = try await httpdns(["fetch", "-v", "-o", "/dev/null", "--dnssec", "report", "--trust-anchor", anchorFile, url])
        #expect(validated.status == 0, "\(validated.stderrText)")
        #expect(validated.stderrText.contains(", DNSSEC indeterminate: "), "\(validated.stderrText)")
        #expect(validated.stderrText.contains("* resolver: DNSSEC a.test: indeterminate"), "\(validated.stderrText)")
    }

    @Test("probe says how the addresses' answer validated, in its first line and in each --json object")
    func probeOutcome() async throws {
        let url = fixture.url("a.test").absoluteString
        let text = try await httpdns(["probe", "--dnssec", "report", "--trust-anchor", anchorFile, url])
        #expect(text.stdoutText.split(separator: "\n").first?.hasSuffix("(source doh, dnssec indeterminate)") == true, "\(text.stdoutText)")
        let json = try await httpdns(["probe", "--json", "--dnssec", "report", "--trust-anchor", anchorFile, url])
        let objects = jsonLines(json.stdoutText)
        #expect(!objects.isEmpty, "\(json.stdoutText)")
        #expect(objects.allSatisfy { $0["dnssec"] as? String == "indeterminate" }, "\(json.stdoutText)")
        let plain = try await httpdns(["probe", "--json", url])
        #expect(jsonLines(plain.stdoutText).allSatisfy { $0["dnssec"] == nil }, "no key without --dnssec")
    }
}
