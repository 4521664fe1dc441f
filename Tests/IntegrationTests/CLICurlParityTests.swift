import Foundation
import Testing
import HTTPDNS
import TestSupport

/// `fetch` where a new user's walkthrough found it acting otherwise than curl on the same command
/// line: the form Content-Type, mixed data options, repeated `--resolve` and `-o`, `-s` with `-k`,
/// `-f` with `-i`, and `-v` with proxy credentials.
@Suite("httpdns fetch as curl", .serialized)
struct CLICurlParityTests {
    let fixture: Fixture

    init() throws { fixture = try Fixture() }

    var doh: [String] { fixture.dohOptions }

    func httpdns(_ arguments: [String]) async throws -> CommandResult {
        try await fixture.httpdns(arguments)
    }

    /// The Content-Type lines nginx received (its `/headers` echo, HTTP/1.1).
    func contentTypes(_ options: [String]) async throws -> [String] {
        let result = try await httpdns(["fetch", "--http1.1"] + options + [fixture.url("a.test", "/headers").absoluteString] + doh)
        #expect(result.status == 0, "\(result.stderrText)")
        return result.stdoutText.split(separator: "\r\n").filter { $0.lowercased().hasPrefix("content-type:") }.map(String.init)
    }

    @Test("-d and --data-binary send the form Content-Type unless -H sets one or leaves it out, as curl")
    func formContentType() async throws {
        let form = "Content-Type: application/x-www-form-urlencoded"
        #expect(try await contentTypes(["-d", "x"]) == [form])
        #expect(try await contentTypes(["--data-binary", "x"]) == [form])
        #expect(try await contentTypes(["-H", "Content-Type:", "-d", "x"]) == [])
        #expect(try await contentTypes(["-H", "content-type:", "--data-binary", "x"]) == [])
        #expect(try await contentTypes(["-H", "Content-Type: text/plain", "--data-binary", "x"]) == ["Content-Type: text/plain"])
    }

    @Test("-d and --data-binary mixed are joined with '&' in the order given, as curl")
    func mixedDataOptions() async throws {
        let result = try await httpdns(["fetch", "-d", "a", "--data-binary", "b", "-d", "c", fixture.url("a.test", "/echo").absoluteString] + doh)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "a&b&c")
    }

    @Test("a later --resolve entry for the same HOST:PORT replaces an earlier one, as curl")
    func laterResolveEntryWins() async throws {
        let port = fixture.servers.httpsPort
        // Nothing listens on 127.0.0.9: the first entry alone fails to connect (7).
        let result = try await httpdns([
            "fetch", "--resolve", "a.test:\(port):127.0.0.9", "--resolve", "a.test:\(port):127.0.0.1",
            "--cacert", fixture.servers.caCertificate.path, "-m", "10", fixture.url("a.test").absoluteString
        ])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "vhost=a.test\n")
    }

    @Test("--resolve -HOST:PORT removes the entry given before it, as curl")
    func resolveRemoval() async throws {
        let port = fixture.servers.httpsPort
        let url = fixture.url("a.test").absoluteString
        let removed = try await httpdns(["fetch", "-v", "--resolve", "a.test:\(port):127.0.0.1", "--resolve", "-a.test:\(port)", url] + doh)
        #expect(removed.status == 0, "\(removed.stderrText)")
        #expect(removed.stderrText.contains("resolved a.test via doh"), "\(removed.stderrText)")
        let kept = try await httpdns(["fetch", "-v", "--resolve", "a.test:\(port):127.0.0.1", "--resolve", "-a.test:1", url] + doh)
        #expect(kept.status == 0, "\(kept.stderrText)")
        #expect(!kept.stderrText.contains("via doh"), "\(kept.stderrText)")
        for bad in ["-a.test", "-a.test:0", "-:443"] {
            let result = try await httpdns(["fetch", "--resolve", bad, url] + doh)
            #expect(result.status == 2, "\(bad): \(result.stderrText)")
            #expect(
                result.stderrText.hasPrefix("httpdns: --resolve: expected -HOST:PORT to remove an entry (PORT from 1 to 65535, or *), got '\(bad)'"),
                "\(result.stderrText)")
        }
    }

    @Test("-o twice for one URL is refused before any traffic, and neither file is written")
    func repeatedOutput() async throws {
        let directory = try fixture.scratchDirectory("cli-parity")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = directory.appendingPathComponent("first"), second = directory.appendingPathComponent("second")
        let result = try await httpdns(["fetch", "-o", first.path, "-o", second.path, fixture.url("a.test").absoluteString] + doh)
        #expect(result.status == 2)
        #expect(result.stderrText.contains("-o given 2 times"), "\(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: first.path) && !FileManager.default.fileExists(atPath: second.path))
    }

    @Test("-s -k prints no warning, as curl -sk prints nothing; -k alone and -sS -k warn")
    func silentInsecure() async throws {
        let url = fixture.url("self-signed.test").absoluteString
        let silent = try await httpdns(["fetch", "-s", "-k", url] + doh)
        #expect(silent.status == 0, "\(silent.stderrText)")
        #expect(silent.stdoutText == "vhost=self-signed.test\n")
        #expect(silent.stderrText.isEmpty, "\(silent.stderrText)")
        for options in [["-k"], ["-s", "-S", "-k"]] {
            let result = try await httpdns(["fetch"] + options + [url] + doh)
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stderrText.contains("warning: certificate verification is disabled"), "\(options): \(result.stderrText)")
        }
    }

    @Test(
        "-f with -i or -I prints the failed response's head, then exits 22 without its body, as curl",
        arguments: [["-f", "-i"], ["-f", "-I"], ["-f", "-i", "--http1.1"]])
    func failWithInclude(options: [String]) async throws {
        let result = try await httpdns(["fetch"] + options + [fixture.url("a.test", "/status/404").absoluteString] + doh)
        #expect(result.status == 22, "\(result.stderrText)")
        let expected = options.contains("--http1.1") ? "HTTP/1.1 404 Not Found\r\n" : "HTTP/2 404\r\n"
        #expect(result.stdoutText.hasPrefix(expected), "\(result.stdoutText)")
        #expect(result.stdoutText.lowercased().contains("x-vhost: a.test\r\n"), "\(result.stdoutText)")
        #expect(result.stdoutText.hasSuffix("\r\n\r\n"), "the body was printed: \(result.stdoutText)")
    }

    @Test("a password in the URL is not repeated in error messages: -f's, --max-redirs', -w %{errormsg}")
    func errorsRedactURLPassword() async throws {
        let withPassword = { (path: String) in
            var components = URLComponents(url: fixture.url("a.test", path), resolvingAgainstBaseURL: false)!
            components.user = "user"
            components.password = "s3cret"
            return components.url!.absoluteString
        }
        let failed = try await httpdns(["fetch", "-f", "-w", "%{errormsg}", withPassword("/status/404")] + doh)
        #expect(failed.status == 22, "\(failed.stderrText)")
        #expect(failed.stderrText.contains("user:***@a.test"), "\(failed.stderrText)")
        #expect(!failed.stderrText.contains("s3cret") && !failed.stdoutText.contains("s3cret"), "\(failed.stderrText)\(failed.stdoutText)")
        let redirected = try await httpdns(["fetch", "-L", "--max-redirs", "0", withPassword("/redirect/302/b")] + doh)
        #expect(redirected.status == 47, "\(redirected.stderrText)")
        #expect(!redirected.stderrText.contains("s3cret"), "\(redirected.stderrText)")
    }

    @Test("-L with -i or -I prints every response's head, the redirect's first, as curl; -i -L -o writes them all into the file")
    func includeFollowsEveryHop() async throws {
        let url = fixture.url("a.test", "/redirect/302/b").absoluteString
        for options in [["-i", "--http1.1"], ["-I"]] {
            let result = try await httpdns(["fetch", "-L"] + options + [url] + doh)
            #expect(result.status == 0, "\(result.stderrText)")
            let heads = result.stdoutText.components(separatedBy: "\r\n\r\n")
            #expect(heads.count == 3, "\(result.stdoutText)")
            #expect(heads[0].hasPrefix(options.contains("-I") ? "HTTP/2 302\r\n" : "HTTP/1.1 302 Moved Temporarily\r\n"), "\(result.stdoutText)")
            #expect(heads[0].lowercased().contains("x-vhost: a.test"), "\(result.stdoutText)")
            #expect(heads[1].lowercased().contains("x-vhost: b.test"), "\(result.stdoutText)")
        }
        let directory = try fixture.scratchDirectory("cli-parity")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("out")
        let written = try await httpdns(["fetch", "-L", "-i", "-o", file.path, url] + doh)
        #expect(written.status == 0, "\(written.stderrText)")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.hasPrefix("HTTP/2 302\r\n") && text.contains("\r\n\r\nHTTP/2 200\r\n"), "\(text)")
        // Past --max-redirs the redirect's head is still printed, then 47, as curl.
        let limited = try await httpdns(["fetch", "-L", "-i", "--max-redirs", "0", url] + doh)
        #expect(limited.status == 47, "\(limited.stderrText)")
        #expect(limited.stdoutText.hasPrefix("HTTP/2 302\r\n") && !limited.stdoutText.contains("200"), "\(limited.stdoutText)")
    }

    @Test("-v does not print a proxy's password")
    func verboseRedactsProxyPassword() async throws {
        let proxy = try await ProxyTestServer.shared()
        let withCredentials = "http://user:s3cret@127.0.0.1:\(proxy.port)"
        let result = try await httpdns(["fetch", "-v", "-x", withCredentials, fixture.url("a.test").absoluteString, "--cacert", fixture.servers.caCertificate.path])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stderrText.contains("via proxy http://user:***@127.0.0.1:\(proxy.port)"), "\(result.stderrText)")
        #expect(!result.stderrText.contains("s3cret"), "\(result.stderrText)")
    }
}
