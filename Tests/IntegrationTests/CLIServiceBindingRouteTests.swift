import Foundation
import Testing
import HTTPDNS
import TestSupport

/// `httpdns fetch`, `probe` and `pins` following HTTPS records (RFC 9460) from unbound's DoH endpoint to
/// nginx's SVCB_PORT, run as a user runs them. Nothing listens on 443 or 80.
@Suite("httpdns fetch, probe and pins follow HTTPS records")
struct CLIServiceBindingRouteTests {
    let fixture: Fixture

    init() throws { fixture = try Fixture() }

    var recordPort: Int {
        get throws { try #require(fixture.servers.serviceBindingPort, "servers.env has no SVCB_PORT: restart the test servers") }
    }

    func run(_ command: String, _ arguments: [String]) async throws -> CommandResult {
        try await fixture.httpdns([command] + arguments + fixture.dohOptions + ["--no-fallback"])
    }

    @Test("fetch -v says the record's port and ALPN, and connects there with the origin's SNI, verified")
    func fetchVerbose() async throws {
        let port = try recordPort
        let result = try await run("fetch", ["-v", "https://h1.svc.test/"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "vhost=svc.test\n")
        #expect(result.stderrText.contains("* HTTPS record priority 1: port \(port) (not 443), alpn http/1.1 (HTTP/1.1)\n"), "\(result.stderrText)")
        #expect(result.stderrText.contains("* connected to 127.0.0.1 port \(port) (address from doh)"))
        #expect(result.stderrText.contains("* TLS: TLSv1.3, SNI h1.svc.test, ALPN http/1.1"))
        #expect(result.stderrText.contains("verified for h1.svc.test"))
        #expect(result.stderrText.contains("> Host: h1.svc.test\n"))
    }

    @Test("pins shows the chain of the record's endpoint, says where the record sent it, and --no-https-records does not follow it")
    func pinsFollowsTheRecord() async throws {
        let port = try recordPort
        let result = try await run("pins", ["https://port.svc.test/"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stderrText.contains("httpdns: HTTPS record priority 1: port \(port) (not 443)"), "\(result.stderrText)")
        #expect(result.stdoutText.contains("0 subject: "), "\(result.stdoutText)")
        #expect(result.stdoutText.contains("--pinnedpubkey 'sha256//"))
        let without = try await run("pins", ["--no-https-records", "https://port.svc.test/"])
        #expect(without.status == 7, "\(without.stderrText)")
        #expect(!without.stderrText.contains("HTTPS record"), "\(without.stderrText)")
    }

    @Test("fetch -v says h3 was skipped and the hint used for another TargetName")
    func fetchHintsAndHTTP3() async throws {
        let h3 = try await run("fetch", ["-v", "https://h3.svc.test/"])
        #expect(h3.status == 0, "\(h3.stderrText)")
        #expect(h3.stderrText.contains("* HTTPS record priority 1: h3 skipped (this libcurl has no HTTP/3)\n"))
        let target = try await run("fetch", ["-v", "https://target.svc.test/"])
        #expect(target.status == 0, "\(target.stderrText)")
        #expect(target.stderrText.contains("target real.svc.test, hints 127.0.0.51 used"), "\(target.stderrText)")
        #expect(target.stderrText.contains("* connected to 127.0.0.51 port \(try recordPort) (address from an HTTPS record hint)"))
    }

    @Test("fetch upgrades http:// by the record, and --no-https-upgrade keeps it (port 80: refused)")
    func fetchUpgrade() async throws {
        let upgraded = try await run("fetch", ["-v", "http://up.svc.test/"])
        #expect(upgraded.status == 0, "\(upgraded.stderrText)")
        #expect(upgraded.stderrText.contains("* HTTPS record priority 1: upgraded http to https, port \(try recordPort) (not 443)"), "\(upgraded.stderrText)")
        #expect(upgraded.stderrText.contains("verified for up.svc.test"))
        let kept = try await run("fetch", ["--no-https-upgrade", "http://up.svc.test/"])
        #expect(kept.status == 7, "\(kept.stderrText)")
        #expect(kept.stderrText.contains("could not connect to up.svc.test:80"), "\(kept.stderrText)")
    }

    @Test("--no-https-records asks for none: the origin's port 443 is used")
    func fetchWithoutRecords() async throws {
        let result = try await run("fetch", ["-v", "--no-https-records", "https://port.svc.test/"])
        #expect(result.status == 7, "\(result.stderrText)")
        #expect(!result.stderrText.contains("HTTPS"), "\(result.stderrText)")
        #expect(result.stderrText.contains("could not connect to port.svc.test:443"))
    }

    @Test("fetch -v says why a hostile record was rejected, and falls back to the origin's port")
    func fetchHostile() async throws {
        let result = try await run("fetch", ["-v", "https://zero.svc.test/"])
        #expect(result.status == 7, "\(result.stderrText)")
        #expect(result.stderrText.contains("* HTTPS record priority 1 rejected: port 0\n"), "\(result.stderrText)")
        #expect(result.stderrText.contains("* no usable HTTPS record: connecting to zero.svc.test's addresses on port 443\n"))
        #expect(result.stderrText.contains("could not connect to zero.svc.test:443"))
    }

    @Test("fetch -v says that the record's endpoint could not be reached and where the request went instead")
    func fetchUnreachable() async throws {
        let result = try await run("fetch", ["-v", "https://dead.svc.test/"])
        #expect(result.status == 7, "\(result.stderrText)")
        #expect(
            result.stderrText.contains(
                "* HTTPS record priority 1: dead.svc.test port 9 could not be reached; connecting to dead.svc.test's addresses on port 443\n"),
            "\(result.stderrText)")
        #expect(result.stderrText.contains("could not connect to dead.svc.test:443"))
    }

    @Test("fetch -v says that the first record's endpoint could not be reached and that the next record's was tried")
    func fetchNextRecord() async throws {
        let result = try await run("fetch", ["-v", "https://next.svc.test/"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(
            result.stderrText.contains("* HTTPS record priority 1: next.svc.test port 9 could not be reached; trying HTTPS record priority 2\n"),
            "\(result.stderrText)")
    }

    @Test(
        "fetch -v says why records the resolver could not use were dropped, and where the request goes",
        arguments: [
            ("bad.svc.test", "its HTTPS query failed (above)"), ("mandatory.svc.test", "its HTTPS query failed (above)"),
            ("pointer.svc.test", "its HTTPS query failed (above)"),
            ("loop.svc.test", "AliasMode records loop: loop.svc.test -> loop2.svc.test -> loop.svc.test (RFC 9460 §3.1)")
        ])
    func fetchDroppedRecords(host: String, why: String) async throws {
        let result = try await run("fetch", ["-v", "https://\(host)/"])
        #expect(result.status == 7, "\(result.stderrText)")
        #expect(
            result.stderrText.contains(
                "* resolver: no usable HTTPS record for \(host): \(why); a request goes to \(host)'s own addresses and port, as without records\n"),
            "\(result.stderrText)")
        #expect(result.stderrText.contains("could not connect to \(host):443"))
    }

    @Test("probe names the record's port in a failure to connect there, in text and --json", arguments: [("dead.svc.test", 9), ("svc.test", 8443)])
    func probeUnreachable(host: String, port: Int) async throws {
        let text = try await run("probe", ["https://\(host)/"])
        #expect(text.status == 1, "\(text.stderrText)")
        let lines = text.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("# HTTPS record priority 1: port \(port) (not 443)") }, "\(lines)")
        #expect(lines.last?.hasPrefix("127.0.0.1 FAILED could not connect to \(host):\(port) (addresses tried: 127.0.0.1): ") == true, "\(lines)")
        let json = try await run("probe", ["--json", "https://\(host)/"])
        #expect(json.status == 1, "\(json.stderrText)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdoutText.utf8)) as? [String: Any])
        #expect(object["healthy"] as? Bool == false)
        #expect((object["message"] as? String)?.hasPrefix("could not connect to \(host):\(port) ") == true, "\(object)")
        #expect((object["https_record"] as? String)?.hasPrefix("HTTPS record priority 1: port \(port) (not 443)") == true, "\(object)")
        #expect(object["https_record_notes"] as? [String] == [], "\(object)")
    }

    @Test("probe --json carries a rejected record's notes, as the text's '#' lines")
    func probeRejectedJSON() async throws {
        let text = try await run("probe", ["https://zero.svc.test/"])
        let notes = ["HTTPS record priority 1 rejected: port 0", "no usable HTTPS record: connecting to zero.svc.test's addresses on port 443"]
        for note in notes { #expect(text.stdoutText.contains("# \(note)\n"), "\(text.stdoutText)") }
        let json = try await run("probe", ["--json", "https://zero.svc.test/"])
        #expect(json.status == 1, "\(json.stderrText)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdoutText.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["address", "healthy", "error", "message", "rank", "https_record", "https_record_notes"], "\(object)")
        #expect(object["https_record"] as? String == "no HTTPS record used")
        #expect(object["https_record_notes"] as? [String] == notes, "\(object)")
        #expect((object["message"] as? String)?.hasPrefix("could not connect to zero.svc.test:443 ") == true, "\(object)")
    }

    @Test(
        "probe says why the resolver dropped the records, in text and --json, without -v",
        arguments: [
            ("loop.svc.test", "AliasMode records loop: loop.svc.test -> loop2.svc.test -> loop.svc.test (RFC 9460 §3.1)"),
            ("bad.svc.test", "could not get the HTTPS records of 'bad.svc.test': ")
        ])
    func probeDroppedRecords(host: String, why: String) async throws {
        let text = try await run("probe", ["https://\(host)/"])
        #expect(text.status == 1, "\(text.stderrText)")
        let lines = text.stdoutText.split(separator: "\n").map(String.init)
        let note = try #require(lines.first { $0.hasPrefix("# no usable HTTPS record: ") }, "\(lines)")
        #expect(note.contains(why) && note.hasSuffix("; probing \(host)'s addresses on port 443"), "\(note)")
        let json = try await run("probe", ["--json", "https://\(host)/"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdoutText.utf8)) as? [String: Any])
        #expect(object["https_record"] as? String == "no HTTPS record used")
        #expect(object["https_record_notes"] as? [String] == [String(note.dropFirst(2))], "\(object)")
    }

    @Test("probe prints what the record changed and probes the record's port")
    func probe() async throws {
        let port = try recordPort
        let result = try await run("probe", ["https://port.svc.test/"])
        #expect(result.status == 0, "\(result.stderrText)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.contains("# HTTPS record priority 1: port \(port) (not 443), alpn h2,http/1.1"), "\(lines)")
        #expect(lines.last?.hasPrefix("127.0.0.1 ok ") == true)
        #expect(lines.last?.contains("sni=port.svc.test verified=true") == true)
        let json = try await run("probe", ["--json", "http://up.svc.test/"])
        #expect(json.status == 0, "\(json.stderrText)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdoutText.utf8)) as? [String: Any])
        #expect(object["healthy"] as? Bool == true)
        #expect((object["https_record"] as? String)?.contains("upgraded http to https, port \(port)") == true, "\(object)")
        #expect(object["https_record_notes"] as? [String] == [], "\(object)")
    }
}
