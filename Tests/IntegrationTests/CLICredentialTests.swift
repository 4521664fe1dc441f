import Foundation
import Testing
import HTTPDNS
import TestSupport

/// `httpdns fetch -u` and `-e` against nginx's `/credentials`, which echoes the request's
/// `Authorization` and `Referer`, and its redirects to it on the same origin and to b.test.
@Suite("httpdns fetch -u and -e", .serialized)
struct CLICredentialTests {
    let fixture: Fixture

    init() throws { fixture = try Fixture() }

    func fetch(_ arguments: [String]) async throws -> CommandResult {
        try await fixture.httpdns(["fetch"] + arguments + fixture.dohOptions)
    }

    /// What `/credentials` echoes.
    func echo(host: String, authorization: String = "", referer: String = "") -> String {
        "host=\(host)\nauthorization=\(authorization)\nreferer=\(referer)\n"
    }

    func basic(_ credentials: String) -> String { "Basic " + Data(credentials.utf8).base64EncodedString() }

    @Test("-u sends Basic credentials; only the first ':' ends the user")
    func sendsBasicCredentials() async throws {
        let result = try await fetch(["-u", "us:er:pa:ss", fixture.url("a.test", "/credentials").absoluteString])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == echo(host: "a.test", authorization: basic("us:er:pa:ss")))
    }

    @Test("-u credentials go on to a redirect on the same origin, never to another host")
    func credentialsStayWithTheirOrigin() async throws {
        let same = try await fetch(["-L", "-u", "user:pw", fixture.url("a.test", "/redirect/credentials").absoluteString])
        #expect(same.status == 0, "\(same.stderrText)")
        #expect(same.stdoutText == echo(host: "a.test", authorization: basic("user:pw")))
        let other = try await fetch(["-L", "-u", "user:pw", fixture.url("a.test", "/redirect/credentials/b").absoluteString])
        #expect(other.status == 0, "\(other.stderrText)")
        #expect(other.stdoutText == echo(host: "b.test"))
    }

    @Test("-u without a password exits 2 before any traffic, without waiting for input")
    func missingPasswordIsRefused() async throws {
        // A value without ':' is often a token: it is not repeated in the message (logs).
        let result = try await fetch(["-u", "tok3n-value", fixture.url("a.test", "/credentials").absoluteString])
        #expect(result.status == 2)
        #expect(result.stderrText.contains("-u USER has no password"), "\(result.stderrText)")
        #expect(!result.stderrText.contains("tok3n-value"), "\(result.stderrText)")
        #expect(result.stdout.isEmpty)
    }

    @Test("-v names the -u user and never shows the password, plain or encoded")
    func verboseHidesThePassword() async throws {
        let result = try await fetch(["-v", "-L", "-u", "alice:s3cret-pw", fixture.url("a.test", "/redirect/credentials").absoluteString])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stderrText.contains("* Server auth using Basic with user 'alice'"), "\(result.stderrText)")
        #expect(!result.stderrText.contains("s3cret-pw"))
        #expect(!result.stderrText.contains(Data("alice:s3cret-pw".utf8).base64EncodedString()))
    }

    @Test("an -H Authorization wins over -u")
    func headerWinsOverUser() async throws {
        let result = try await fetch(["-u", "user:pw", "-H", "Authorization: Bearer token", fixture.url("a.test", "/credentials").absoluteString])
        #expect(result.stdoutText == echo(host: "a.test", authorization: "Bearer token"))
    }

    @Test("-e sends Referer on the request; without ';auto' a redirect keeps it as given")
    func sendsReferer() async throws {
        let result = try await fetch(["-e", "https://ref.example/page", fixture.url("a.test", "/credentials").absoluteString])
        #expect(result.stdoutText == echo(host: "a.test", referer: "https://ref.example/page"))
        let followed = try await fetch(["-L", "-e", "https://ref.example/page", fixture.url("a.test", "/redirect/credentials/b").absoluteString])
        #expect(followed.stdoutText == echo(host: "b.test", referer: "https://ref.example/page"))
    }

    @Test("-e ';auto' with -L sends the URL redirected from, without credentials or fragment, to any host")
    func autoReferer() async throws {
        let from = fixture.url("a.test", "/redirect/credentials/b").absoluteString + "?q=1"
        let withCredentials = from.replacingOccurrences(of: "https://", with: "https://x:y@") + "#part"
        let result = try await fetch(["-L", "-e", "https://ref.example/page;auto", withCredentials])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == echo(host: "b.test", referer: from))
        let first = try await fetch(["-e", "https://ref.example/page;auto", fixture.url("a.test", "/credentials").absoluteString])
        #expect(first.stdoutText == echo(host: "a.test", referer: "https://ref.example/page"))
    }

    @Test("an -H Referer wins over -e ';auto' on every request")
    func headerWinsOverAutoReferer() async throws {
        let result = try await fetch(["-L", "-e", ";auto", "-H", "Referer: mine", fixture.url("a.test", "/redirect/credentials/b").absoluteString])
        #expect(result.stdoutText == echo(host: "b.test", referer: "mine"))
    }
}
