import Foundation
import Testing
import HTTPDNS
import TestSupport

/// `httpdns fetch -L` and `--max-redirs`, as a user runs them.
@Suite("httpdns fetch -L")
struct CLIRedirectTests {
    let fixture: Fixture
    let binary = PackagePaths.builtProduct("httpdns")

    init() throws { fixture = try Fixture() }

    func fetch(_ arguments: [String]) async throws -> CommandResult {
        let servers = fixture.servers
        return try await Command.runDetached(
            binary,
            ["fetch"] + arguments + [
                "--doh-url", servers.dohURL.absoluteString, "--resolve", "dns.test:\(servers.dohPort):127.0.0.1",
                "--cacert", servers.caCertificate.path
            ], timeout: 60)
    }

    @Test("-L follows a cross-host redirect to b.test, resolved and verified for b.test")
    func followsCrossHost() async throws {
        let result = try await fetch(["-L", "-v", "-i", fixture.url("a.test", "/redirect/302/b").absoluteString])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText.lowercased().contains("x-sni: b.test\r\n"))
        #expect(result.stdoutText.hasSuffix("\r\n\r\n" + RedirectTests.inspect(method: "GET", host: "b.test:\(fixture.servers.httpsPort)")))
        // Each hop is described: a.test's 302 (its own SNI and certificate), then b.test's 200.
        let report = result.stderrText
        #expect(report.contains("SNI a.test"))
        #expect(report.contains("verified for a.test"))
        #expect(report.contains("< HTTP/2 302\n"), "\(report)")
        #expect(report.contains("< location: \(fixture.url("b.test", "/inspect").absoluteString)\n"), "\(report)")
        #expect(report.contains("< \n* following the 302 redirect to \(fixture.url("b.test", "/inspect").absoluteString)\n"), "\(report)")
        #expect(report.contains("SNI b.test"))
        #expect(report.contains("verified for b.test"))
        let hops = ["SNI a.test", "< HTTP/2 302", "* following the 302", "SNI b.test", "< HTTP/2 200"].map { report.range(of: $0)?.lowerBound }
        #expect(!hops.contains(nil) && hops.map { $0! } == hops.map { $0! }.sorted(), "\(report)")
    }

    @Test("-v describes the response before its body reaches stdout, as curl does")
    func verboseLinesComeBeforeTheBody() async throws {
        // One stream for both, so their order is the order they were written in.
        let arguments = [
            "fetch", "-v", "-L", fixture.url("a.test", "/redirect/302/b").absoluteString,
            "--doh-url", fixture.servers.dohURL.absoluteString, "--resolve", "dns.test:\(fixture.servers.dohPort):127.0.0.1",
            "--cacert", fixture.servers.caCertificate.path
        ]
        let result = try await fixture.httpdnsMerged(arguments)
        #expect(result.status == 0, "\(result.stdoutText)")
        let merged = result.stdoutText
        let status = try #require(merged.range(of: "< HTTP/2 200\n"), "\(merged)")
        let body = try #require(merged.range(of: "method=GET\n"), "\(merged)")
        #expect(status.upperBound <= body.lowerBound, "\(merged)")
        #expect(merged.hasSuffix(RedirectTests.inspect(method: "GET", host: "b.test:\(fixture.servers.httpsPort)")))
    }

    @Test("-L keeps method and body across a 307")
    func keepsBodyAcross307() async throws {
        let result = try await fetch(["-L", "--data-binary", "kept", fixture.url("a.test", "/redirect/307/b").absoluteString])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == RedirectTests.inspect(method: "POST", host: "b.test:\(fixture.servers.httpsPort)", body: "kept"))
    }

    @Test("without -L the redirect response is printed")
    func noFollowWithoutL() async throws {
        let result = try await fetch(["-i", fixture.url("a.test", "/redirect/302/b").absoluteString])
        #expect(result.status == 0)
        #expect(result.stdoutText.hasPrefix("HTTP/2 302\r\n"))
    }

    @Test("--max-redirs limits the chain; one more exits 47")
    func maxRedirs() async throws {
        let url = fixture.url("a.test", "/redirect/chain").absoluteString
        #expect(try await fetch(["-L", "--max-redirs", "2", url]).status == 0)
        let result = try await fetch(["-L", "--max-redirs", "1", url])
        #expect(result.status == 47)
        #expect(result.stderrText.contains("stopped after 1 redirect"))
        #expect(try await fetch(["-L", "--max-redirs", "x", url]).status == 2)
    }

    @Test("-v past --max-redirs describes the response that went over the limit, without following it")
    func verboseReportsTheResponseOverTheLimit() async throws {
        let result = try await fetch(["-v", "-L", "--max-redirs", "2", fixture.url("a.test", "/redirect/loop").absoluteString])
        #expect(result.status == 47)
        let report = result.stderrText
        #expect(report.components(separatedBy: "< HTTP/2 302\n").count - 1 == 3, "\(report)")
        #expect(report.components(separatedBy: "* following the 302 redirect").count - 1 == 2, "\(report)")
    }
}
