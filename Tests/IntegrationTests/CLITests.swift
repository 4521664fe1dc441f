import Foundation
import Testing
import HTTPDNS
import TestSupport

/// The `httpdns` executable as a user runs it, against the real servers.
@Suite("httpdns command line", .serialized)  // each test blocks a cooperative thread on a subprocess
struct CLITests {
    let fixture: Fixture
    let binary = PackagePaths.builtProduct("httpdns")

    init() throws { fixture = try Fixture() }

    /// DoH through unbound, its host bootstrapped by --resolve, the test CA trusted.
    var doh: [String] {
        let servers = fixture.servers
        return ["--doh-url", servers.dohURL.absoluteString,
                "--resolve", "dns.test:\(servers.dohPort):127.0.0.1",
                "--cacert", servers.caCertificate.path]
    }

    func httpdns(_ arguments: [String], environment: [String: String]? = nil) throws -> CommandResult {
        try Command.run(binary, arguments, environment: environment, timeout: 60)
    }

    func scratchDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test("fetch gets the virtual host for the name and -v reports address, SNI, ALPN and certificate")
    func fetchVerbose() throws {
        let result = try httpdns(["fetch", "-v", fixture.url("a.test").absoluteString] + doh)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "vhost=a.test\n")
        let report = result.stderrText
        #expect(report.contains("resolved a.test via doh (\(fixture.servers.dohURL.absoluteString))"))
        #expect(report.contains("connected to "))
        #expect(report.contains("(address from doh)"))
        #expect(report.contains("SNI a.test"))
        #expect(report.contains("ALPN h2"))
        #expect(report.contains("subject CN=a.test"))
        #expect(report.contains("issuer CN=httpdns Test Root CA"))
    }

    @Test("fetch -i prints the status line and headers before the body; --http1.1 is honoured")
    func fetchIncludeHeaders() throws {
        let result = try httpdns(["fetch", "-i", "--http1.1", fixture.url("b.test").absoluteString] + doh)
        #expect(result.status == 0)
        #expect(result.stdoutText.hasPrefix("HTTP/1.1 200\r\n"))
        #expect(result.stdoutText.contains("X-SNI: b.test\r\n"))
        #expect(result.stdoutText.hasSuffix("\r\n\r\nvhost=b.test\n"))
    }

    @Test("the naive IP URL with a Host header exits 60")
    func naiveWayExits60() throws {
        let url = "https://127.0.0.1:\(fixture.servers.httpsPort)/"
        let result = try httpdns(["fetch", "-H", "Host: a.test", "--cacert", fixture.servers.caCertificate.path, url])
        #expect(result.status == 60)
        #expect(result.stderrText.contains("certificate verification failed"))
    }

    @Test("a certificate for another name exits 60")
    func wrongNameExits60() throws {
        let result = try httpdns(["fetch", fixture.url("wrong.test").absoluteString] + doh)
        #expect(result.status == 60)
    }

    @Test("NXDOMAIN exits 6")
    func nxdomainExits6() throws {
        let result = try httpdns(["fetch", fixture.url("nope.test").absoluteString] + doh)
        #expect(result.status == 6)
        #expect(result.stderrText.contains("NXDOMAIN"))
    }

    @Test("the DoH server down falls back to system DNS, and exits 6 with --no-fallback")
    func dohDownFallback() throws {
        let dead = try fixture.deadEndpoint()
        let options = ["--doh-url", dead.url.absoluteString, "--resolve", "dns.test:\(dead.url.port!):127.0.0.1",
                       "--cacert", fixture.servers.caCertificate.path]
        let url = fixture.url("localhost").absoluteString
        let fallback = try httpdns(["fetch", "-v", url] + options)
        #expect(fallback.status == 0, "\(fallback.stderrText)")
        #expect(fallback.stdoutText == "vhost=localhost\n")
        #expect(fallback.stderrText.contains("via system"))
        let strict = try httpdns(["fetch", url, "--no-fallback"] + options)
        #expect(strict.status == 6)
        #expect(strict.stderrText.contains(dead.url.absoluteString))
    }

    @Test("nothing listening exits 7")
    func refusedExits7() throws {
        let port = try FreePort.tcp()
        let result = try httpdns(["fetch", "https://a.test:\(port)/", "--resolve", "a.test:\(port):127.0.0.1"])
        #expect(result.status == 7)
    }

    @Test("--max-time on a slow server exits 28")
    func slowExits28() throws {
        let result = try httpdns(["fetch", "--max-time", "1", fixture.url("a.test", "/slow").absoluteString] + doh)
        #expect(result.status == 28)
    }

    @Test("-f with HTTP 404 exits 22 and writes nothing to -o")
    func failExits22() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.txt").path
        let result = try httpdns(["fetch", "-f", "-o", output, fixture.url("a.test", "/status/404").absoluteString] + doh)
        #expect(result.status == 22)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("-o writes the body to the file and nothing to stdout")
    func outputFile() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("large.bin")
        let result = try httpdns(["fetch", "-o", output.path, fixture.url("a.test", "/large").absoluteString] + doh)
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        #expect(try Data(contentsOf: output) == Data(contentsOf: fixture.servers.largeFile))
    }

    @Test("--data-binary @FILE sends 1 MiB byte-exact", arguments: ["--http1.1", "--http2"])
    func dataBinaryFile(version: String) throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let payload = TransportTests.randomBytes(1 << 20)
        let input = directory.appendingPathComponent("in.bin")
        try payload.write(to: input)
        let result = try httpdns(["fetch", version, "--data-binary", "@\(input.path)", fixture.url("a.test", "/echo").absoluteString] + doh)
        #expect(result.status == 0)
        #expect(result.stdout == payload)
    }

    @Test("-d sends form data like curl")
    func formData() throws {
        let result = try httpdns(["fetch", "-d", "a=1&b=2", fixture.url("a.test", "/echo").absoluteString] + doh)
        #expect(result.status == 0)
        #expect(result.stdoutText == "a=1&b=2")
    }

    @Test("resolve prints one line per address with TTL and source")
    func resolveLines() throws {
        let result = try httpdns(["resolve"] + doh + ["a.test", "v4only.test"])
        #expect(result.status == 0, "\(result.stderrText)")
        let lines = Set(result.stdoutText.split(separator: "\n").map(String.init))
        #expect(lines == ["a.test 127.0.0.1 ttl=300 source=doh", "a.test ::1 ttl=300 source=doh",
                          "v4only.test 127.0.0.1 ttl=300 source=doh"])
    }

    @Test("resolve --type A --json gives one JSON object per host")
    func resolveJSON() throws {
        let result = try httpdns(["resolve", "--type", "A", "--json"] + doh + ["www.a.test"])
        #expect(result.status == 0)
        let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        #expect(object?["host"] as? String == "www.a.test")
        #expect(object?["addresses"] as? [String] == ["127.0.0.1"])
        #expect(object?["ttl"] as? Int == 120)
        #expect(object?["source"] as? String == "doh")
    }

    @Test("resolve of a missing name exits 6")
    func resolveNXDOMAIN() throws {
        let result = try httpdns(["resolve"] + doh + ["a.test", "nope.test"])
        #expect(result.status == 6)
        #expect(result.stdoutText.contains("a.test 127.0.0.1"))
    }

    @Test("HTTPDNS_DOH_URL selects the endpoint when --doh-url is absent")
    func environmentEndpoint() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["HTTPDNS_DOH_URL"] = fixture.servers.dohURL.absoluteString
        let result = try httpdns(["resolve", "--no-fallback", "--resolve", "dns.test:\(fixture.servers.dohPort):127.0.0.1",
                                  "--cacert", fixture.servers.caCertificate.path, "b.test"], environment: environment)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText.contains("source=doh"))
    }

    @Test("bad input exits 2 with a one-line message and writes nothing to -o",
          arguments: [
            ["fetch", "not a url"],
            ["fetch", "ftp://a.test/"],
            ["fetch", "https://a.test/", "--resolve", "a.test:notaport:127.0.0.1"],
            ["fetch", "https://a.test/", "--resolve", "a.test:443:not-an-ip"],
            ["fetch", "https://a.test/", "--cacert", "/nonexistent/ca.pem"],
            ["fetch", "https://a.test/", "--bogus"],
            ["fetch", "https://a.test/", "--max-time", "soon"],
            ["fetch", "https://a.test/", "-H", "no colon"],
            ["fetch"],
            ["resolve", "--type", "MX", "a.test"],
            ["resolve"],
            ["frobnicate"],
          ])
    func badInput(arguments: [String]) throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out")
        let withOutput = arguments.first == "fetch" ? arguments + ["-o", output.path] : arguments
        let result = try httpdns(withOutput)
        #expect(result.status == 2, "\(arguments): \(result.stderrText)")
        #expect(result.stderrText.split(separator: "\n").count == 1, "\(result.stderrText)")
        #expect(result.stderrText.hasPrefix("httpdns: "))
        #expect(result.stdout.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("an invalid PEM file for --cacert exits 2 naming the file")
    func invalidPEM() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pem = directory.appendingPathComponent("bad.pem")
        try Data("-----BEGIN CERTIFICATE-----\nnot base64!!\n-----END CERTIFICATE-----\n".utf8).write(to: pem)
        let result = try httpdns(["fetch", "https://a.test/", "--cacert", pem.path])
        #expect(result.status == 2)
        #expect(result.stderrText.contains(pem.path))
    }

    @Test("--help works for every command", arguments: [["--help"], ["fetch", "--help"], ["resolve", "--help"], ["help", "fetch"]])
    func help(arguments: [String]) throws {
        let result = try httpdns(arguments)
        #expect(result.status == 0)
        #expect(result.stdoutText.contains("Usage: httpdns"))
    }
}
