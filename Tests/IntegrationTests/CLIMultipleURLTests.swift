import Foundation
import Testing
import HTTPDNS
import TestSupport

/// `fetch` with several URLs, cookies, `-4`/`-6` and `--json`, against the real servers, as curl
/// users expect them.
@Suite("httpdns fetch: several URLs, cookies, -4/-6, --json", .serialized)
struct CLIMultipleURLTests {
    let fixture: Fixture

    init() throws { fixture = try Fixture() }

    var doh: [String] { fixture.dohOptions }

    func httpdns(_ arguments: [String]) async throws -> CommandResult {
        try await fixture.httpdns(arguments)
    }

    @Test("several URLs write to stdout in order, and the second reuses the first's connection")
    func severalURLsShareAConnection() async throws {
        let result = try await httpdns(["fetch", "-v", fixture.url("a.test").absoluteString, fixture.url("a.test").absoluteString] + doh)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "vhost=a.test\nvhost=a.test\n")
        let connected = result.stderrText.split(separator: "\n").filter { $0.hasPrefix("* connected to") }
        #expect(connected.count == 2)
        #expect(connected.last?.hasSuffix(", reused connection") == true, "\(result.stderrText)")
    }

    @Test("each -o is paired with a URL in order, wherever it stands, as curl pairs them; a URL without one goes to stdout")
    func outputsPairWithURLsInOrder() async throws {
        let directory = try fixture.scratchDirectory("multi-o")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = directory.appendingPathComponent("first").path
        let second = directory.appendingPathComponent("second").path
        let result = try await httpdns(
            [
                "fetch", "-o", first, "-o", second, fixture.url("a.test").absoluteString,
                fixture.url("b.test").absoluteString, fixture.url("www.a.test").absoluteString
            ] + doh)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try String(contentsOfFile: first, encoding: .utf8) == "vhost=a.test\n")
        #expect(try String(contentsOfFile: second, encoding: .utf8) == "vhost=b.test\n")
        #expect(result.stdoutText.hasPrefix("vhost="))
    }

    @Test("more -o options than URLs are refused before any traffic")
    func moreOutputsThanURLs() async throws {
        let result = try await httpdns(["fetch", "-o", "/tmp/a", "-o", "/tmp/b", fixture.url("a.test").absoluteString] + doh)
        #expect(result.status == 2)
        #expect(result.stderrText.contains("-o given 2 times for 1 URL"))
        let mixed = try await httpdns(
            [
                "fetch", "-o", "/tmp/a", "-O", "-o", "/tmp/b", fixture.url("a.test").absoluteString,
                fixture.url("b.test", "/x").absoluteString
            ] + doh)
        #expect(mixed.status == 2)
        #expect(mixed.stderrText.contains("3 output options (-o/-O) for 2 URLs"))
    }

    @Test("a failed URL does not stop the next; the exit status is the last transfer's, as curl's")
    func failureDoesNotStopTheRest() async throws {
        let bad = fixture.url("wrong.test").absoluteString
        let good = fixture.url("a.test").absoluteString
        let lastGood = try await httpdns(["fetch", "-s", bad, good] + doh)
        #expect(lastGood.status == 0)
        #expect(lastGood.stdoutText == "vhost=a.test\n")
        let lastBad = try await httpdns(["fetch", "-s", good, bad] + doh)
        #expect(lastBad.status == 60)
        #expect(lastBad.stdoutText == "vhost=a.test\n")
    }

    @Test("--parallel runs every transfer and exits with a failure's status")
    func parallel() async throws {
        let directory = try fixture.scratchDirectory("parallel")
        defer { try? FileManager.default.removeItem(at: directory) }
        var arguments = ["fetch", "--parallel", "--parallel-max", "3", "-s"]
        for index in 0..<6 {
            arguments += ["-o", directory.appendingPathComponent("\(index)").path, fixture.url(index.isMultiple(of: 2) ? "a.test" : "b.test").absoluteString]
        }
        let result = try await httpdns(arguments + doh)
        #expect(result.status == 0, "\(result.stderrText)")
        for index in 0..<6 {
            #expect(
                try String(contentsOfFile: directory.appendingPathComponent("\(index)").path, encoding: .utf8)
                    == "vhost=\(index.isMultiple(of: 2) ? "a.test" : "b.test")\n")
        }
        let failing = try await httpdns(
            [
                "fetch", "-Z", "-s", "-o", "/dev/null", fixture.url("a.test").absoluteString,
                fixture.url("wrong.test").absoluteString
            ] + doh)
        #expect(failing.status == 60)
    }

    @Test("-c writes the cookies the responses set, bound to the host name, not the address; -b sends them back to that name only")
    func cookieJarRoundTrip() async throws {
        let directory = try fixture.scratchDirectory("cookies")
        defer { try? FileManager.default.removeItem(at: directory) }
        let jar = directory.appendingPathComponent("jar.txt").path
        let set = try await httpdns(
            [
                "fetch", "-c", jar, fixture.url("a.test", "/cookie/set").absoluteString,
                fixture.url("a.test", "/cookie/inspect").absoluteString
            ] + doh)
        #expect(set.status == 0, "\(set.stderrText)")
        // The second URL got the cookies the first set, the longer path first (RFC 6265 §5.4).
        #expect(set.stdoutText.hasSuffix("cookie=scoped=1; site=a.test\n"), "\(set.stdoutText)")
        let text = try String(contentsOfFile: jar, encoding: .utf8)
        #expect(text.hasPrefix("# Netscape HTTP Cookie File\n"))
        #expect(text.contains("a.test\tFALSE\t/\tFALSE\t0\tsite\ta.test\n"))
        #expect(text.contains("a.test\tFALSE\t/cookie\tFALSE\t0\tscoped\t1\n"))
        #expect(!text.contains("127.0.0.1"))

        let again = try await httpdns(["fetch", "-b", jar, fixture.url("a.test", "/cookie/inspect").absoluteString] + doh)
        #expect(again.stdoutText == "cookie=scoped=1; site=a.test\n")
        let otherName = try await httpdns(["fetch", "-b", jar, fixture.url("b.test", "/cookie/inspect").absoluteString] + doh)
        #expect(otherName.stdoutText == "cookie=\n")
    }

    @Test("-b NAME=VALUE sends the string as given")
    func cookieString() async throws {
        let result = try await httpdns(["fetch", "-b", "a=1; b=2", fixture.url("a.test", "/cookie/inspect").absoluteString] + doh)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "cookie=a=1; b=2\n")
    }

    @Test("a malformed cookie file is refused before any traffic, naming its line, and -c leaves the jar as it was")
    func malformedCookieFile() async throws {
        let directory = try fixture.scratchDirectory("bad-cookies")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("jar.txt").path
        let contents = "# Netscape HTTP Cookie File\na.test\tFALSE\t/\tFALSE\t0\tgood\t1\nnot a cookie line\n"
        try contents.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await httpdns(["fetch", "-b", file, "-c", file, fixture.url("a.test", "/cookie/set").absoluteString] + doh)
        #expect(result.status == 2)
        #expect(result.stderrText.contains("line 3 is not a cookie"), "\(result.stderrText)")
        #expect(result.stdoutText.isEmpty)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == contents)
    }

    @Test("-4 connects to the IPv4 address of the resolution, -6 to the IPv6 one")
    func addressFamilies() async throws {
        let four = try await httpdns(["fetch", "-4", "-w", "%{remote_ip}", "-o", "/dev/null", fixture.url("a.test").absoluteString] + doh)
        #expect(four.status == 0, "\(four.stderrText)")
        #expect(four.stdoutText == "127.0.0.1")
        let six = try await httpdns(["fetch", "-6", "-w", "%{remote_ip}", "-o", "/dev/null", fixture.url("a.test").absoluteString] + doh)
        #expect(six.status == 0, "\(six.stderrText)")
        #expect(six.stdoutText == "::1")
    }

    @Test("--json writes one JSON object per URL with -w's variables, as curl's %{json}")
    func jsonOutput() async throws {
        let result = try await httpdns(
            [
                "fetch", "--json", "-o", "/dev/null", "-o", "/dev/null", fixture.url("a.test").absoluteString,
                fixture.url("a.test", "/status/404").absoluteString
            ] + doh)
        #expect(result.status == 0, "\(result.stderrText)")
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.count == 2)
        let objects = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects[0]?["http_code"] as? Int == 200)
        #expect(objects[0]?["urlnum"] as? Int == 0)
        #expect(objects[0]?["errormsg"] is NSNull)
        #expect(objects[1]?["http_code"] as? Int == 404)
        #expect(objects[1]?["urlnum"] as? Int == 1)
        #expect(objects[1]?["url_effective"] as? String == fixture.url("a.test", "/status/404").absoluteString)
        let format = try await httpdns(["fetch", "-w", "%{json}", "-o", "/dev/null", fixture.url("a.test").absoluteString] + doh)
        let object = try JSONSerialization.jsonObject(with: Data(format.stdoutText.utf8)) as? [String: Any]
        #expect(object?["remote_ip"] as? String != nil)
        #expect(object?["exitcode"] as? Int == 0)
    }
}
