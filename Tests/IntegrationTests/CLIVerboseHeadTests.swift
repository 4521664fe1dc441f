import Foundation
import Testing
import HTTPDNS
import TestSupport

/// `fetch -v`'s `>` request-head and `<` response-head lines, as curl prints them, against the
/// real nginx over HTTP/1.1 and HTTP/2.
@Suite("httpdns fetch -v: request and response head lines")
struct CLIVerboseHeadTests {
    let fixture: Fixture

    init() throws { fixture = try Fixture() }

    func fetch(_ arguments: [String]) async throws -> CommandResult {
        try await fixture.httpdns(["fetch"] + arguments + fixture.dohOptions)
    }

    /// stderr's lines that start with `prefix` and a space, or are `prefix` and a space alone.
    static func lines(_ text: String, _ prefix: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { $0.hasPrefix(prefix + " ") }
    }

    var authority: String { "a.test:\(fixture.servers.httpsPort)" }

    @Test("HTTP/1.1: the request head as libcurl sent it (a Basic credential as ***), then the response head as received, after the connection's lines")
    func http1() async throws {
        let result = try await fetch(["-v", "--http1.1", "-u", "me:pw", "-H", "X-Test: 1", fixture.url("a.test", "/inspect").absoluteString])
        #expect(result.status == 0, "\(result.stderrText)")
        let report = result.stderrText
        #expect(
            Self.lines(report, ">") == [
                "> GET /inspect HTTP/1.1", "> Host: \(authority)", "> Accept: */*", "> X-Test: 1", "> Authorization: Basic ***",
                "> User-Agent: httpdns/1.0", "> "
            ], "\(report)")
        let received = Self.lines(report, "<")
        #expect(received.first == "< HTTP/1.1 200 OK", "\(report)")
        #expect(received.last == "< ", "\(report)")
        #expect(received.contains("< X-Vhost: a.test") && received.contains("< X-Protocol: HTTP/1.1"), "\(report)")
        #expect(received.filter { $0 == "< " }.count == 1, "\(report)")
        // Where the request went, then what it sent, then what came back.
        let order = ["* TLS: ", "> GET /inspect HTTP/1.1", "> ", "< HTTP/1.1 200 OK"].map { report.range(of: $0)?.lowerBound }
        #expect(!order.contains(nil) && order.map { $0! } == order.map { $0! }.sorted(), "\(report)")
        #expect(result.stdoutText.contains("method=GET\n"))
    }

    @Test("HTTP/2: '> GET / HTTP/2' and '< HTTP/2 200', no pseudo-header field")
    func http2() async throws {
        let result = try await fetch(["-v", fixture.url("a.test").absoluteString])
        #expect(result.status == 0, "\(result.stderrText)")
        let report = result.stderrText
        let sent = Self.lines(report, ">"), received = Self.lines(report, "<")
        #expect(sent.first == "> GET / HTTP/2" && sent.contains("> Host: \(authority)") && sent.last == "> ", "\(report)")
        #expect(received.first == "< HTTP/2 200" && received.contains("< x-vhost: a.test") && received.last == "< ", "\(report)")
        #expect(!(sent + received).contains { $0.hasPrefix("> :") || $0.hasPrefix("< :") }, "\(report)")
        #expect(result.stdoutText == "vhost=a.test\n")
    }

    @Test("-L: each hop's request and response, in order, each before the redirect it leads to")
    func redirects() async throws {
        let result = try await fetch(["-v", "-L", "--http1.1", fixture.url("a.test", "/redirect/chain").absoluteString])
        #expect(result.status == 0, "\(result.stderrText)")
        let report = result.stderrText
        let heads = (Self.lines(report, ">") + Self.lines(report, "<")).filter { $0.hasPrefix("> GET") || $0.hasPrefix("< HTTP/") }
        #expect(
            Set(heads) == [
                "> GET /redirect/chain HTTP/1.1", "< HTTP/1.1 302 Moved Temporarily", "> GET /redirect/307 HTTP/1.1",
                "< HTTP/1.1 307 Temporary Redirect", "> GET /inspect HTTP/1.1", "< HTTP/1.1 200 OK"
            ], "\(report)")
        let order = [
            "> GET /redirect/chain HTTP/1.1", "< HTTP/1.1 302 Moved Temporarily", "< Location: /redirect/307", "* following the 302",
            "> GET /redirect/307 HTTP/1.1", "< HTTP/1.1 307 Temporary Redirect", "* following the 307", "> GET /inspect HTTP/1.1", "< HTTP/1.1 200 OK"
        ].map { report.range(of: $0)?.lowerBound }
        #expect(!order.contains(nil) && order.map { $0! } == order.map { $0! }.sorted(), "\(report)")
    }

    @Test("a 100 Continue is printed as received, its head ended, before the final response")
    func continueResponse() async throws {
        let result = try await fetch(["-v", "--http1.1", "-H", "Expect: 100-continue", "-d", "hello", fixture.url("a.test", "/echo").absoluteString])
        #expect(result.status == 0, "\(result.stderrText)")
        let received = Self.lines(result.stderrText, "<")
        #expect(Array(received.prefix(3)) == ["< HTTP/1.1 100 Continue", "< ", "< HTTP/1.1 200 OK"], "\(result.stderrText)")
        #expect(Self.lines(result.stderrText, ">").contains("> Expect: 100-continue"))
        #expect(result.stdoutText == "hello")
    }

    @Test("-f: the head of the response that failed is printed too", arguments: [["--http1.1"], []])
    func failedResponse(version: [String]) async throws {
        let result = try await fetch(["-v", "-f"] + version + [fixture.url("a.test", "/status/404").absoluteString])
        #expect(result.status == 22, "\(result.stderrText)")
        let status = version.isEmpty ? "< HTTP/2 404" : "< HTTP/1.1 404 Not Found"
        #expect(Self.lines(result.stderrText, "<").first == status, "\(result.stderrText)")
        #expect(Self.lines(result.stderrText, ">").first == "> GET /status/404 HTTP/\(version.isEmpty ? "2" : "1.1")", "\(result.stderrText)")
    }

    @Test("without -v no head line is printed")
    func quietWithoutVerbose() async throws {
        let result = try await fetch([fixture.url("a.test").absoluteString])
        #expect(result.status == 0)
        #expect(Self.lines(result.stderrText, ">").isEmpty && Self.lines(result.stderrText, "<").isEmpty, "\(result.stderrText)")
    }
}
