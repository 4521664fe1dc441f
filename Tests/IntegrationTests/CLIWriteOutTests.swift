import Foundation
import Testing
import HTTPDNS
import TestSupport

/// `httpdns fetch -w`: the values written are the transfer's own.
@Suite("httpdns fetch -w", .serialized)
struct CLIWriteOutTests {
    let fixture: Fixture

    init() throws { fixture = try Fixture() }

    func fetch(_ arguments: [String], stdin: Data? = nil) async throws -> CommandResult {
        try await Command.runDetached(PackagePaths.builtProduct("httpdns"), ["fetch"] + arguments + fixture.dohOptions, stdin: stdin, timeout: 60)
    }

    /// `-w FORMAT`'s fields, for a format of `name=%{name}` pairs separated by '|'.
    func fields(_ output: String) -> [String: String] {
        Dictionary(
            output.split(separator: "|").map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
            }, uniquingKeysWith: { $1 })
    }

    func format(_ names: [String]) -> String { names.map { "\($0)=%{\($0)}" }.joined(separator: "|") }

    @Test("%{http_code} is the response's status: 404 from a 404 endpoint, 200, and 000 when nothing answered")
    func httpCode() async throws {
        let missing = try await fetch(["-o", "/dev/null", "-w", "%{http_code}|%{response_code}", fixture.url("a.test", "/status/404").absoluteString])
        #expect(missing.status == 0, "\(missing.stderrText)")
        #expect(missing.stdoutText == "404|404")
        let found = try await fetch(["-o", "/dev/null", "-w", "%{http_code}", fixture.url("a.test").absoluteString])
        #expect(found.stdoutText == "200")
        let port = try FreePort.tcp()
        let refused = try await fetch(["-s", "-w", "%{http_code} %{exitcode}", "https://a.test:\(port)/", "--resolve", "a.test:\(port):127.0.0.1"])
        #expect(refused.status == 7)
        #expect(refused.stdoutText == "000 7")
    }

    @Test("the output comes after the body, on stdout, with \\n and %% as curl writes them")
    func afterTheBody() async throws {
        let result = try await fetch(["-w", "\\n[%{http_code} 100%%]\\n", fixture.url("a.test").absoluteString])
        #expect(result.stdoutText == "vhost=a.test\n\n[200 100%]\n")
    }

    @Test("%{remote_ip} and %{remote_port} are the address connected to, as -v reports it")
    func remoteAddress() async throws {
        let port = fixture.servers.httpsPort
        let pinned = try await fetch([
            "-o", "/dev/null", "-w", "%{remote_ip} %{remote_port}", fixture.url("a.test").absoluteString,
            "--resolve", "a.test:\(port):127.0.0.1"
        ])
        #expect(pinned.status == 0, "\(pinned.stderrText)")
        #expect(pinned.stdoutText == "127.0.0.1 \(port)")
        // Over DoH a.test has ::1 and 127.0.0.1 (when the machine has IPv6): the one connected to.
        let resolved = try await fetch(["-v", "-o", "/dev/null", "-w", "%{remote_ip}", fixture.url("a.test").absoluteString])
        #expect(["127.0.0.1", "::1"].contains(resolved.stdoutText), "\(resolved.stdoutText)")
        #expect(resolved.stderrText.contains("* connected to \(resolved.stdoutText) port \(port) "), "\(resolved.stderrText)")
    }

    @Test("the times are the transfer's: in order, time_namelookup includes the DoH lookup, and a 0.3 s answer takes 0.3 s")
    func times() async throws {
        let names = ["time_namelookup", "time_connect", "time_appconnect", "time_starttransfer", "time_total"]
        let result = try await fetch(["-o", "/dev/null", "-w", format(names), fixture.url("a.test", "/delay").absoluteString])
        #expect(result.status == 0, "\(result.stderrText)")
        let values = fields(result.stdoutText)
        let times = try names.map { name in try #require(values[name].flatMap(Double.init), "\(name) in \(result.stdoutText)") }
        #expect(times.allSatisfy { $0 > 0 }, "\(result.stdoutText)")
        #expect(times == times.sorted(), "\(result.stdoutText)")
        // The DoH exchange (a TLS handshake of its own) is most of the time before connecting on
        // loopback: libcurl's own lookup alone (of the address handed to it) would be a sliver of it.
        #expect(times[0] >= times[1] / 2, "\(result.stdoutText)")
        #expect(times[3] >= 0.3 && times[4] >= 0.3, "\(result.stdoutText)")
        #expect(times[4] < 10, "\(result.stdoutText)")
        // Six decimals, as curl writes them.
        #expect(values["time_total"]?.split(separator: ".").last?.count == 6, "\(result.stdoutText)")
        // A plain-HTTP request has no TLS phase: 0, as in curl.
        let plain = try await fetch(["-o", "/dev/null", "-w", "%{time_appconnect}", "http://a.test:\(fixture.servers.httpPort)/"])
        #expect(plain.stdoutText == "0.000000", "\(plain.stderrText)")
    }

    @Test("%{size_header} counts the head's bytes as received and %{size_download} the body's")
    func sizes() async throws {
        let result = try await fetch(["--http1.1", "-i", "-w", "|%{size_header}|%{size_download}", fixture.url("a.test", "/status/404").absoluteString])
        #expect(result.status == 0, "\(result.stderrText)")
        let text = result.stdoutText
        let head = try #require(text.range(of: "\r\n\r\n"), "\(text)")
        let parts = text[head.upperBound...].split(separator: "|", omittingEmptySubsequences: false)
        #expect(parts.count == 3, "\(text)")
        #expect(parts.first == "status=404\n")
        #expect(parts.dropFirst().first.map(String.init) == String(text.utf8.distance(from: text.startIndex, to: head.upperBound)))
        #expect(parts.last == "11")
    }

    @Test("%{size_download} counts the bytes received, before --compressed decodes them, as curl")
    func sizeBeforeDecoding() async throws {
        let decoded = try await fetch(["--compressed", "-w", "|%{size_download}", fixture.url("a.test", "/gzip").absoluteString])
        #expect(decoded.status == 0, "\(decoded.stderrText)")
        let parts = decoded.stdoutText.split(separator: "|")
        let received = try #require(parts.last.flatMap { Int($0) }, "\(decoded.stdoutText)")
        #expect(received > 0 && received < parts[0].utf8.count, "\(decoded.stdoutText)")
        let plain = try await fetch(["-o", "/dev/null", "-w", "%{size_download}", fixture.url("a.test", "/gzip").absoluteString])
        #expect(plain.stdoutText == String("\(String(repeating: "compressible ", count: 64))\n".utf8.count))
    }

    @Test("with -L: num_redirects, url_effective the last URL, size_header summed over the requests")
    func redirects() async throws {
        let names = ["num_redirects", "url_effective", "http_code", "size_header"]
        let followed = try await fetch(["-o", "/dev/null", "-L", "-w", format(names), fixture.url("a.test", "/redirect/302/b").absoluteString])
        #expect(followed.status == 0, "\(followed.stderrText)")
        let values = fields(followed.stdoutText)
        #expect(values["num_redirects"] == "1")
        #expect(values["url_effective"] == fixture.url("b.test", "/inspect").absoluteString)
        #expect(values["http_code"] == "200")
        // The heads of one transfer, as -i prints them (the redirect's and the last), against its
        // own size_header: heads fetched by other runs may differ, as nginx's X-Connection (its
        // connection serial number) grows a digit at 1,000, 10,000. HTTP/1.1, whose heads -i
        // prints byte for byte as received (libcurl counts an HTTP/2 status line with a space
        // more than curl prints).
        let included = try await fetch(["--http1.1", "-i", "-L", "-w", "|%{size_header}", fixture.url("a.test", "/redirect/302/b").absoluteString])
        #expect(included.status == 0, "\(included.stderrText)")
        let text = included.stdoutText
        let redirectHead = try #require(text.range(of: "\r\n\r\n"), "\(text)")
        #expect(text.hasPrefix("HTTP/1.1 302 "), "\(text)")
        #expect(text[redirectHead.upperBound...].hasPrefix("HTTP/1.1 200 OK\r\n"), "\(text)")
        let lastHead = try #require(text[redirectHead.upperBound...].range(of: "\r\n\r\n"), "\(text)")
        let headBytes = text.utf8.distance(from: text.startIndex, to: lastHead.upperBound)
        let written = try #require(text.split(separator: "|").last.flatMap { Int($0) }, "\(text)")
        #expect(written == headBytes, "\(text)")
    }

    @Test("after a failure: exitcode and errormsg, the status that failed -f, ssl_verify_result for a chain that did not verify")
    func failures() async throws {
        let failed = try await fetch([
            "-s", "-f", "--http1.1", "-w", format(["http_code", "exitcode", "errormsg", "http_version", "content_type"]),
            fixture.url("a.test", "/status/404").absoluteString
        ])
        #expect(failed.status == 22)
        let values = fields(failed.stdoutText)
        #expect(values["http_code"] == "404")
        // From the failed response's head, as curl reports them after -f.
        #expect(values["http_version"] == "1.1", "\(failed.stdoutText)")
        #expect(values["content_type"] == "application/octet-stream", "\(failed.stdoutText)")
        #expect(values["exitcode"] == "22")
        #expect(values["errormsg"]?.contains("404") == true, "\(failed.stdoutText)")
        let wrongName = try await fetch(["-s", "-w", format(["exitcode", "ssl_verify_result", "remote_ip"]), fixture.url("wrong.test").absoluteString])
        #expect(wrongName.status == 60)
        let verdict = fields(wrongName.stdoutText)
        #expect(verdict["exitcode"] == "60")
        // X509_V_ERR_HOSTNAME_MISMATCH; curl, checking the name itself, says 1.
        #expect(verdict["ssl_verify_result"] == "62", "\(wrongName.stdoutText)")
        #expect(["127.0.0.1", "::1"].contains(verdict["remote_ip"] ?? ""), "\(wrongName.stdoutText)")
        let fine = try await fetch(["-o", "/dev/null", "-w", format(["exitcode", "errormsg", "ssl_verify_result", "content_type"]), fixture.url("a.test").absoluteString])
        #expect(fields(fine.stdoutText) == ["exitcode": "0", "errormsg": "", "ssl_verify_result": "0", "content_type": "application/octet-stream"])
    }

    @Test("-w @- reads the format from stdin; an unknown variable warns on stderr and writes nothing, as curl")
    func formatFromStdinAndUnknownVariable() async throws {
        let result = try await fetch(
            ["-o", "/dev/null", "-w", "@-", fixture.url("a.test").absoluteString],
            stdin: Data("code %{http_code}\n[%{no_such_variable}]\n".utf8))
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "code 200[]")
        #expect(result.stderrText.contains("unknown --write-out variable: 'no_such_variable'"), "\(result.stderrText)")
    }
}
