import Foundation
import HTTPDNS
import HTTPDNSCLI
import Testing
import TestSupport

extension DNSSECCLITests {
    @Test("--dnssec POLICY:PATTERN: require for the pattern's hosts, the lone POLICY for the others")
    func hostPolicies() async throws {
        let result = try await httpdns([
            "resolve", "--dnssec", "report", "--dnssec", "require:*.tampered.dnssec.test", "--trust-anchor", anchorFile, "-4",
            "www.expired.dnssec.test", "www.tampered.dnssec.test"
        ])
        #expect(result.status == HTTPDNSTool.ExitStatus.couldNotResolve, "\(result.stderrText)")
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("www.expired.dnssec.test 127.0.0.1 ") && $0.hasSuffix(" dnssec=bogus") }, "\(result.stdoutText)")
        #expect(!result.stdoutText.contains("www.tampered"), "\(result.stdoutText)")
        #expect(result.stderrText.contains("'www.tampered.dnssec.test': the answer failed DNSSEC validation"), "\(result.stderrText)")

        // A pattern alone validates only its hosts: others are not validated (no dnssec= field).
        let only = try await httpdns(["resolve", "--dnssec", "require:**.signed.dnssec.test", "--trust-anchor", anchorFile, "-4", "www.signed.dnssec.test", "www.tampered.dnssec.test"])
        #expect(only.status == 0, "\(only.stderrText)")
        #expect(only.stdoutText.contains("www.signed.dnssec.test 127.0.0.1 ttl="))
        let onlyLines = only.stdoutText.split(separator: "\n")
        #expect(onlyLines.contains { $0.hasPrefix("www.signed.dnssec.test ") && $0.hasSuffix(" dnssec=secure") }, "\(only.stdoutText)")
        #expect(onlyLines.contains { $0.hasPrefix("www.tampered.dnssec.test 127.0.0.66 ") && !$0.contains("dnssec=") }, "\(only.stdoutText)")
    }

    @Test("--dnssec with a bad pattern, or one pattern given two policies, is a usage error (exit 2)")
    func hostPolicyUsage() async throws {
        let bad = try await httpdns(["resolve", "--dnssec", "require:a.*.test", "a.test"])
        #expect(bad.status == HTTPDNSTool.ExitStatus.usage)
        #expect(bad.stderrText.contains("--dnssec: expected POLICY:PATTERN with a host pattern"), "\(bad.stderrText)")
        #expect(bad.stderrText.contains("wildcard"), "\(bad.stderrText)")
        let policy = try await httpdns(["resolve", "--dnssec", "maybe:a.test", "a.test"])
        #expect(policy.status == HTTPDNSTool.ExitStatus.usage)
        #expect(policy.stderrText.contains("expected off, report or require"), "\(policy.stderrText)")
        let twice = try await httpdns(["resolve", "--dnssec", "require:a.test", "--dnssec", "report:A.test.", "a.test"])
        #expect(twice.status == HTTPDNSTool.ExitStatus.usage)
        #expect(twice.stderrText.contains("a.test is given both require and report"), "\(twice.stderrText)")
        let anchorOnly = try await httpdns(["resolve", "--dnssec", "off:a.test", "--trust-anchor", anchorFile, "a.test"])
        #expect(anchorOnly.status == HTTPDNSTool.ExitStatus.usage)
    }
}
