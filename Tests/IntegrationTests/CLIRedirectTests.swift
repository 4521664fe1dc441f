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

    func fetch(_ arguments: [String]) throws -> CommandResult {
        let servers = fixture.servers
        return try Command.run(binary, ["fetch"] + arguments + [
            "--doh-url", servers.dohURL.absoluteString, "--resolve", "dns.test:\(servers.dohPort):127.0.0.1",
            "--cacert", servers.caCertificate.path,
        ], timeout: 60)
    }

    @Test("-L follows a cross-host redirect to b.test, resolved and verified for b.test")
    func followsCrossHost() throws {
        let result = try fetch(["-L", "-v", "-i", fixture.url("a.test", "/redirect/302/b").absoluteString])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText.lowercased().contains("x-sni: b.test\r\n"))
        #expect(result.stdoutText.hasSuffix("\r\n\r\n" + RedirectTests.inspect(method: "GET", host: "b.test:\(fixture.servers.httpsPort)")))
        #expect(result.stderrText.contains("* redirected to \(fixture.url("b.test", "/inspect").absoluteString)"))
        #expect(result.stderrText.contains("SNI b.test"))
        #expect(result.stderrText.contains("verified for b.test"))
    }

    @Test("-L keeps method and body across a 307")
    func keepsBodyAcross307() throws {
        let result = try fetch(["-L", "--data-binary", "kept", fixture.url("a.test", "/redirect/307/b").absoluteString])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == RedirectTests.inspect(method: "POST", host: "b.test:\(fixture.servers.httpsPort)", body: "kept"))
    }

    @Test("without -L the redirect response is printed")
    func noFollowWithoutL() throws {
        let result = try fetch(["-i", fixture.url("a.test", "/redirect/302/b").absoluteString])
        #expect(result.status == 0)
        #expect(result.stdoutText.hasPrefix("HTTP/2 302\r\n"))
    }

    @Test("--max-redirs limits the chain; one more exits 47")
    func maxRedirs() throws {
        let url = fixture.url("a.test", "/redirect/chain").absoluteString
        #expect(try fetch(["-L", "--max-redirs", "2", url]).status == 0)
        let result = try fetch(["-L", "--max-redirs", "1", url])
        #expect(result.status == 47)
        #expect(result.stderrText.contains("stopped after 1 redirect"))
        #expect(try fetch(["-L", "--max-redirs", "x", url]).status == 2)
    }
}
