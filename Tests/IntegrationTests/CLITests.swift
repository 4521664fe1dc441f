import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import Testing
import HTTPDNS
@testable import DNSResolver
import TestSupport

/// The `httpdns` executable as a user runs it, against the real servers.
// One command at a time: each test starts a process, and dozens at once on two cores would make
// the library tests that measure time (timeouts, cancellation) measure the machine instead.
@Suite("httpdns command line", .serialized)
struct CLITests {
    let fixture: Fixture
    let binary = PackagePaths.builtProduct("httpdns")

    init() throws { fixture = try Fixture() }

    var doh: [String] { fixture.dohOptions }

    func httpdns(_ arguments: [String], environment: [String: String]? = nil) async throws -> CommandResult {
        try await fixture.httpdns(arguments, environment: environment)
    }

    func scratchDirectory() throws -> URL { try fixture.scratchDirectory("cli") }

    @Test("fetch gets the virtual host for the name and -v reports address, SNI, ALPN and certificate")
    func fetchVerbose() async throws {
        let result = try await httpdns(["fetch", "-v", fixture.url("a.test").absoluteString] + doh)
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
    func fetchIncludeHeaders() async throws {
        let result = try await httpdns(["fetch", "-i", "--http1.1", fixture.url("b.test").absoluteString] + doh)
        #expect(result.status == 0)
        #expect(result.stdoutText.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(result.stdoutText.contains("X-SNI: b.test\r\n"))
        #expect(result.stdoutText.hasSuffix("\r\n\r\nvhost=b.test\n"))
    }

    @Test("-i prints the HTTP/1.1 status line with its reason phrase as received, as curl; HTTP/2 has none")
    func includeKeepsReasonPhrase() async throws {
        let url = fixture.url("a.test", "/status/404").absoluteString
        let http1 = try await httpdns(["fetch", "-i", "--http1.1", url] + doh)
        #expect(http1.status == 0, "\(http1.stderrText)")
        #expect(http1.stdoutText.hasPrefix("HTTP/1.1 404 Not Found\r\n"), "\(http1.stdoutText)")
        let http2 = try await httpdns(["fetch", "-i", url] + doh)
        #expect(http2.status == 0, "\(http2.stderrText)")
        #expect(http2.stdoutText.hasPrefix("HTTP/2 404\r\n"), "\(http2.stdoutText)")
    }

    @Test("curl's -I, -A and -m: HEAD with the head printed, the User-Agent, the time limit")
    func curlShortOptions() async throws {
        let head = try await httpdns(["fetch", "-I", "--http1.1", fixture.url("b.test").absoluteString] + doh)
        #expect(head.status == 0, "\(head.stderrText)")
        #expect(head.stdoutText.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(head.stdoutText.hasSuffix("\r\n\r\n"), "a HEAD response has no body: \(head.stdoutText)")
        let headers = fixture.url("a.test", "/headers").absoluteString
        // (nginx's echo of the request headers works over HTTP/1.1 only.)
        let agent = try await httpdns(["fetch", "--http1.1", "-A", "agent/7", headers] + doh)
        #expect(agent.stdoutText.contains("User-Agent: agent/7"), "\(agent.stdoutText)")
        let none = try await httpdns(["fetch", "--http1.1", "-A", "", headers] + doh)
        #expect(none.status == 0 && !none.stdoutText.contains("User-Agent"), "\(none.stdoutText)")
        let explicit = try await httpdns(["fetch", "--http1.1", "-A", "agent/7", "-H", "User-Agent: mine", headers] + doh)
        #expect(explicit.stdoutText.contains("User-Agent: mine") && !explicit.stdoutText.contains("agent/7"))
        let slow = try await httpdns(["fetch", "-m", "0.5", fixture.url("a.test", "/slow").absoluteString] + doh)
        #expect(slow.status == 28, "\(slow.stderrText)")
        let headWithBody = try await httpdns(["fetch", "-I", "-d", "x", fixture.url("a.test").absoluteString] + doh)
        #expect(headWithBody.status == 2)
        // curl's -I -X GET still asks for no body; here the library would fetch it: refused.
        let headWithMethod = try await httpdns(["fetch", "-I", "-X", "GET", fixture.url("a.test").absoluteString] + doh)
        #expect(headWithMethod.status == 2, "\(headWithMethod.stdoutText)")
    }

    @Test("the naive IP URL with a Host header exits 60")
    func naiveWayExits60() async throws {
        let url = "https://127.0.0.1:\(fixture.servers.httpsPort)/"
        let result = try await httpdns(["fetch", "-H", "Host: a.test", "--cacert", fixture.servers.caCertificate.path, url])
        #expect(result.status == 60)
        #expect(result.stderrText.contains("certificate verification failed"))
    }

    @Test("a certificate for another name exits 60")
    func wrongNameExits60() async throws {
        let result = try await httpdns(["fetch", fixture.url("wrong.test").absoluteString] + doh)
        #expect(result.status == 60)
    }

    @Test("NXDOMAIN exits 6")
    func nxdomainExits6() async throws {
        let result = try await httpdns(["fetch", fixture.url("nope.test").absoluteString] + doh)
        #expect(result.status == 6)
        #expect(result.stderrText.contains("NXDOMAIN"))
    }

    @Test("the DoH server down falls back to system DNS, and exits 6 with --no-fallback")
    func dohDownFallback() async throws {
        let dead = try fixture.deadEndpoint()
        let options = [
            "--doh-url", dead.url.absoluteString, "--resolve", "dns.test:\(dead.url.port!):127.0.0.1",
            "--cacert", fixture.servers.caCertificate.path
        ]
        let url = fixture.url("localhost").absoluteString
        let fallback = try await httpdns(["fetch", "-v", url] + options)
        #expect(fallback.status == 0, "\(fallback.stderrText)")
        #expect(fallback.stdoutText == "vhost=localhost\n")
        #expect(fallback.stderrText.contains("via system"))
        // localhost always goes to the system resolver (it bypasses HTTPDNS); a DoH-only name fails.
        let strict = try await httpdns(["fetch", fixture.url("a.test").absoluteString, "--no-fallback"] + options)
        #expect(strict.status == 6)
        #expect(strict.stderrText.contains(dead.url.absoluteString))
    }

    @Test("nothing listening exits 7")
    func refusedExits7() async throws {
        let port = try FreePort.tcp()
        let result = try await httpdns(["fetch", "https://a.test:\(port)/", "--resolve", "a.test:\(port):127.0.0.1"])
        #expect(result.status == 7)
        // The message names the address, not the transport's internal routing name.
        #expect(result.stderrText.contains("127.0.0.1"))
        #expect(!result.stderrText.contains(".invalid"))
    }

    @Test("an IPv6 address is bracketed before its port in messages: [::1]:PORT")
    func ipv6EndpointIsBracketed() async throws {
        let port = try FreePort.tcp()
        let result = try await httpdns(["fetch", "https://[::1]:\(port)/"])
        #expect(result.status == 7, "\(result.stderrText)")
        #expect(result.stderrText.contains("could not connect to [::1]:\(port)"), "\(result.stderrText)")
        #expect(!result.stderrText.contains(" ::1:\(port)"), "\(result.stderrText)")
    }

    @Test("--max-time on a slow server exits 28, and the message names the limit as given")
    func slowExits28() async throws {
        let result = try await httpdns(["fetch", "--max-time", "1", fixture.url("a.test", "/slow").absoluteString] + doh)
        #expect(result.status == 28)
        #expect(result.stderrText.hasSuffix(" (-m 1 s)\n"), "\(result.stderrText)")
    }

    @Test("--max-time running out during the DoH lookup exits 28, and the process never crashes on its way out")
    func timeLimitDuringLookupExitsCleanly() async throws {
        // The exit ran OpenSSL's atexit clean-up while the DoH transfer was still in TLS on another
        // thread: 6-10 runs in 20 died with SIGSEGV (139) in pthread_rwlock_unlock.
        var statuses: [Int32] = []
        for _ in 0..<20 {
            let result = try await httpdns(["fetch", "-s", "-o", "/dev/null", "-m", "0.002", fixture.url("b.test").absoluteString] + doh)
            statuses.append(result.status)
        }
        #expect(statuses.allSatisfy { $0 == 28 }, "\(statuses)")
    }

    @Test("-f with HTTP 404 exits 22 and writes nothing to -o")
    func failExits22() async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.txt").path
        let result = try await httpdns(["fetch", "-f", "-o", output, fixture.url("a.test", "/status/404").absoluteString] + doh)
        #expect(result.status == 22)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("-o writes the body to the file and nothing to stdout")
    func outputFile() async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("large.bin")
        let result = try await httpdns(["fetch", "-o", output.path, fixture.url("a.test", "/large").absoluteString] + doh)
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        #expect(try Data(contentsOf: output) == Data(contentsOf: fixture.servers.largeFile))
    }

    @Test("a large body streams to stdout byte-exact")
    func largeBodyToStdout() async throws {
        let result = try await httpdns(["fetch", fixture.url("a.test", "/large").absoluteString] + doh)
        #expect(result.status == 0)
        #expect(result.stdout == (try Data(contentsOf: fixture.servers.largeFile)))
    }

    @Test("--data-binary @FILE sends 1 MiB byte-exact", arguments: ["--http1.1", "--http2"])
    func dataBinaryFile(version: String) async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let payload = TransportTests.randomBytes(1 << 20)
        let input = directory.appendingPathComponent("in.bin")
        try payload.write(to: input)
        let result = try await httpdns(["fetch", version, "--data-binary", "@\(input.path)", fixture.url("a.test", "/echo").absoluteString] + doh)
        #expect(result.status == 0)
        #expect(result.stdout == payload)
    }

    @Test("-d sends form data like curl")
    func formData() async throws {
        let result = try await httpdns(["fetch", "-d", "a=1&b=2", fixture.url("a.test", "/echo").absoluteString] + doh)
        #expect(result.status == 0)
        #expect(result.stdoutText == "a=1&b=2")
    }

    @Test("resolve prints one line per address with TTL and source")
    func resolveLines() async throws {
        let result = try await httpdns(["resolve"] + doh + ["a.test", "v4only.test"])
        #expect(result.status == 0, "\(result.stderrText)")
        let lines = Set(result.stdoutText.split(separator: "\n").map(String.init))
        #expect(
            lines == [
                "a.test 127.0.0.1 ttl=300 source=doh", "a.test ::1 ttl=300 source=doh",
                "v4only.test 127.0.0.1 ttl=300 source=doh"
            ])
    }

    @Test("resolve --type A --json gives one JSON object per host")
    func resolveJSON() async throws {
        let result = try await httpdns(["resolve", "--type", "A", "--json"] + doh + ["www.a.test"])
        #expect(result.status == 0)
        let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        #expect(object?["host"] as? String == "www.a.test")
        #expect(object?["addresses"] as? [String] == ["127.0.0.1"])
        #expect(object?["ttl"] as? Int == 120)
        #expect(object?["source"] as? String == "doh")
    }

    @Test("resolve of a missing name exits 6")
    func resolveNXDOMAIN() async throws {
        let result = try await httpdns(["resolve"] + doh + ["a.test", "nope.test"])
        #expect(result.status == 6)
        #expect(result.stdoutText.contains("a.test 127.0.0.1"))
    }

    @Test("HTTPDNS_DOH_URL selects the endpoint when --doh-url is absent")
    func environmentEndpoint() async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["HTTPDNS_DOH_URL"] = fixture.servers.dohURL.absoluteString
        let result = try await httpdns(
            [
                "resolve", "--no-fallback", "--resolve", "dns.test:\(fixture.servers.dohPort):127.0.0.1",
                "--cacert", fixture.servers.caCertificate.path, "b.test"
            ], environment: environment)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText.contains("source=doh"))
    }

    @Test(
        "bad input exits 2 with a one-line message and writes nothing to -o",
        arguments: [
            ["fetch", "not a url"],
            ["fetch", "ftp://a.test/"],
            ["fetch", "https://a.test/", "--resolve", "a.test:notaport:127.0.0.1"],
            ["fetch", "https://a.test/", "--resolve", "a.test:443:not-an-ip"],
            ["fetch", "https://a.test/", "--cacert", "/nonexistent/ca.pem"],
            ["fetch", "https://a.test/", "--bogus"],
            ["fetch", "https://a.test/", "--max-time", "soon"],
            ["fetch", "https://a.test/", "-m", "1e17"],
            ["fetch", "https://a.test/", "-H", "Transfer-Encoding: chunked"],
            ["fetch", "https://a.test/", "-H", "Content-Length: 3", "-d", "hello"],
            ["fetch", "https://a.test/", "--connect-timeout", "9999999999999999999"],
            ["probe", "https://a.test/", "--max-time", "1e300"],
            ["probe", "https://a.test/", "--connect-timeout", "-1"],
            ["pins", "https://a.test/", "--connect-timeout", "NaN"],
            ["resolve", "--provider", "httpdns-ali", "--account-id", "a b", "a.test"],
            ["resolve", "--cache-file", "", "a.test"],
            ["resolve", "--bypass", "", "a.test"],
            ["resolve", "--bypass", "bad name", "a.test"],
            ["resolve", "--bypass", ".", "a.test"],
            ["resolve", "--provider", "httpdns-ali", "--account-id", "1", "--secret", "", "a.test"],
            ["resolve", "--provider", "httpdns-dnspod", "--key-id", "", "--secret", "0123456789abcdef", "a.test"],
            ["fetch", "https://a.test/", "-H", "no colon"],
            ["fetch"],
            ["resolve", "--type", "MX", "a.test"],
            ["resolve"],
            ["frobnicate"],
            ["help", "frobnicate"],
            ["fetch", "a.test:443/"]
        ])
    func badInput(arguments: [String]) async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out")
        let withOutput = arguments.first == "fetch" ? arguments + ["-o", output.path] : arguments
        let result = try await httpdns(withOutput)
        #expect(result.status == 2, "\(arguments): \(result.stderrText)")
        #expect(result.stderrText.split(separator: "\n").count == 1, "\(result.stderrText)")
        #expect(result.stderrText.hasPrefix("httpdns: "))
        #expect(result.stdout.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("-o to a directory (exit 23, curl's write failure) or an empty name (exit 2) is refused before any traffic", arguments: ["DIR", ""])
    func badOutputPath(path: String) async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = path == "DIR" ? directory.path : path
        let result = try await httpdns(["fetch", "-o", output, fixture.url("a.test").absoluteString] + doh)
        #expect(result.status == (path == "DIR" ? 23 : 2), "\(result.stderrText)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test(
        "-v's lines and -k's warning reach the terminal before the body, as curl's: with -i, and with -o naming stderr or stdout",
        arguments: [["-v"], ["-v", "-i"], ["-v", "-o", "/dev/stderr"], ["-v", "-o", "/dev/stdout"], ["-k"], ["-k", "-i"], ["-k", "-o", "/dev/stderr"]])
    func verboseAndWarningPrecedeTheBody(options: [String]) async throws {
        // stderr and stdout in one pipe: their order is the order they were written in.
        let result = try await fixture.httpdnsMerged(["fetch"] + options + [fixture.url("a.test").absoluteString] + doh)
        #expect(result.status == 0, "\(result.stdoutText)")
        let merged = result.stdoutText
        let body = try #require(merged.range(of: "vhost=a.test\n"), "\(merged)")
        #expect(merged.hasSuffix("vhost=a.test\n"), "\(merged)")
        let marker = options.contains("-v") ? "< HTTP/2 200\n" : "warning: certificate verification is disabled"
        let report = try #require(merged.range(of: marker), "\(merged)")
        #expect(report.upperBound <= body.lowerBound, "\(merged)")
        if options.contains("-i") {
            let head = try #require(merged.range(of: "HTTP/2 200\r\n"), "\(merged)")
            #expect(report.upperBound <= head.lowerBound && head.upperBound <= body.lowerBound, "\(merged)")
        }
    }

    @Test(
        "an -o file that cannot be written is named with its option, before any traffic and when a write fails, as curl names it",
        arguments: [[], ["-i"]])
    func outputFailureNamesTheOption(options: [String]) async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("missing")
        let file = missing.appendingPathComponent("out").path
        let refused = try await httpdns(["fetch"] + options + ["-o", file, fixture.url("a.test").absoluteString] + doh)
        #expect(refused.status == 23, "\(refused.stderrText)")
        #expect(refused.stderrText == "httpdns: -o: cannot write '\(file)': No such file or directory\n")
        // /dev/full takes the open and fails every write (ENOSPC).
        let full = try await httpdns(["fetch"] + options + ["-o", "/dev/full", fixture.url("a.test").absoluteString] + doh)
        #expect(full.status == 23, "\(full.stderrText)")
        #expect(full.stderrText == "httpdns: -o: writing '/dev/full' failed: No space left on device\n")
    }

    @Test("-o into a device node writes in place and leaves the node a device")
    func outputToDevice() async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A private null device: had the output replaced it, /dev/null itself would be at stake.
        let device = directory.appendingPathComponent("null").path
        #expect(mknod(device, S_IFCHR | 0o666, dev_t((1 << 8) | 3)) == 0, "mknod needs root") // major 1, minor 3: the null device
        let result = try await httpdns(["fetch", "-o", device, fixture.url("a.test").absoluteString] + doh)
        #expect(result.status == 0, "\(result.stderrText)")
        var info = stat()
        #expect(stat(device, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFCHR)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["null"])
    }

    @Test("-i -o FILE writes the head and then the body into FILE, as curl, and nothing on stdout; a failure leaves FILE as it was")
    func includeIntoFile() async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.txt")
        let result = try await httpdns(["fetch", "-i", "--http1.1", "-o", output.path, fixture.url("b.test").absoluteString] + doh)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText.isEmpty, "\(result.stdoutText)")
        let written = try String(contentsOf: output, encoding: .utf8)
        #expect(written.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(written)")
        #expect(written.contains("X-SNI: b.test\r\n"))
        #expect(written.hasSuffix("\r\n\r\nvhost=b.test\n"))
        // -f with a 404: no file is made, the earlier one stays as it was, nothing is left beside it.
        let failed = try await httpdns(["fetch", "-i", "-f", "-o", output.path, fixture.url("a.test", "/status/404").absoluteString] + doh)
        #expect(failed.status == 22)
        #expect(try String(contentsOf: output, encoding: .utf8) == written)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.txt"])
        // -I -o FILE: the head alone.
        let head = try await httpdns(["fetch", "-I", "--http1.1", "-o", output.path, fixture.url("b.test").absoluteString] + doh)
        #expect(head.status == 0, "\(head.stderrText)")
        let headOnly = try String(contentsOf: output, encoding: .utf8)
        #expect(headOnly.hasPrefix("HTTP/1.1 200 OK\r\n") && headOnly.hasSuffix("\r\n\r\n"), "\(headOnly)")
        // A write that fails (a private "full" device: major 1, minor 7) stops the transfer: exit 23.
        let full = directory.appendingPathComponent("full").path
        #expect(mknod(full, S_IFCHR | 0o666, dev_t((1 << 8) | 7)) == 0, "mknod needs root")
        let noSpace = try await httpdns(["fetch", "-i", "-o", full, fixture.url("a.test", "/large").absoluteString] + doh)
        #expect(noSpace.status == 23, "\(noSpace.stderrText)")
        #expect(noSpace.stderrText.contains("No space left on device"), "\(noSpace.stderrText)")
    }

    @Test("-o through a symbolic link writes the link's target and keeps the link")
    func outputThroughSymlink() async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("target.txt")
        let link = directory.appendingPathComponent("link.txt")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let result = try await httpdns(["fetch", "-o", link.path, fixture.url("b.test").absoluteString] + doh)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
        #expect(try String(contentsOf: target, encoding: .utf8) == "vhost=b.test\n")
    }

    @Test("a closed stdout is exit 23 with a message, not a crash")
    func closedStdoutExits23() async throws {
        let command = ([binary.path, "fetch", fixture.url("a.test", "/large").absoluteString] + doh)
            .map { "'" + $0 + "'" }.joined(separator: " ")
        let result = try await Command.runDetached(
            URL(fileURLWithPath: "/bin/bash"),
            ["-c", "\(command) | head -c 10 >/dev/null; echo \"status=${PIPESTATUS[0]}\""])
        #expect(result.stdoutText.contains("status=23"), "\(result.stdoutText)\(result.stderrText)")
        #expect(result.stderrText.contains("writing the output failed"))
    }

    @Test(
        "resolve, probe, pins and httpdns --help with stdout full exit 23, the status their exit tables list",
        arguments: [["resolve", "a.test"], ["probe", "URL"], ["pins", "URL"], ["--help"]])
    func fullStdoutExits23(arguments: [String]) async throws {
        let url = fixture.url("a.test").absoluteString
        let command = ([binary.path] + arguments.map { $0 == "URL" ? url : $0 } + (arguments == ["--help"] ? [] : doh)).map { "'" + $0 + "'" }.joined(separator: " ")
        let result = try await Command.runDetached(URL(fileURLWithPath: "/bin/bash"), ["-c", "\(command) >/dev/full; echo \"status=$?\" >&2"])
        #expect(result.stderrText.hasSuffix("httpdns: writing the output failed: No space left on device\nstatus=23\n"), "\(result.stderrText)")
    }

    @Test(
        "started with stdout closed (>&-), a body for stdout is exit 23 saying stdout is closed, never written into a file opened later; -o FILE still works",
        arguments: [(["-o", "/dev/stdout"], 23), ([], 23), (["-i", "-o", "/dev/stdout"], 23), (["-o", "/dev/null"], 0)])
    func closedStdoutAtStart(options: [String], status: Int) async throws {
        let command = ([binary.path, "fetch"] + options + [fixture.url("a.test").absoluteString] + doh)
            .map { "'" + $0 + "'" }.joined(separator: " ")
        let result = try await Command.runDetached(URL(fileURLWithPath: "/bin/bash"), ["-c", "\(command) >&-; echo \"status=$?\" >&2"])
        #expect(result.stderrText.hasSuffix("status=\(status)\n"), "\(result.stderrText)")
        if status == 23 {
            #expect(result.stderrText.hasPrefix("httpdns: cannot write to standard output: it is closed"), "\(result.stderrText)")
            #expect(!result.stderrText.contains("Invalid argument"), "\(result.stderrText)")
        }
    }

    @Test(
        "-k's warning on a closed or broken stderr is dropped: exit 0 with the body, not a crash",
        arguments: ["2>&-", "2>&1 | head -c 1 >/dev/null"])
    func insecureWarningWithoutStderr(redirection: String) async throws {
        // The warning is the library's (HTTPClient, with no trustEventHandler); it trapped on EBADF
        // and EPIPE (exit 132).
        let command = ([binary.path, "fetch", "-k", "-o", "/dev/null", fixture.url("a.test").absoluteString] + doh)
            .map { "'" + $0 + "'" }.joined(separator: " ")
        for _ in 0..<5 {
            let result = try await Command.runDetached(URL(fileURLWithPath: "/bin/bash"), ["-c", "\(command) \(redirection); echo \"status=${PIPESTATUS[0]}\""])
            #expect(result.stdoutText.hasSuffix("status=0\n"), "\(result.stdoutText)\(result.stderrText)")
        }
    }

    @Test(
        "probe and pins take 0 as no limit, as fetch and curl do",
        arguments: [["probe", "--connect-timeout", "0", "--max-time", "0"], ["pins", "--connect-timeout", "0"]])
    func zeroTimeLimitIsNoLimit(options: [String]) async throws {
        let result = try await httpdns(options + [fixture.url("a.test").absoluteString] + doh)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(!result.stdoutText.isEmpty)
    }

    @Test("-x with --noproxy \"\" goes through the proxy even for a host the environment's no_proxy names, as curl does")
    func emptyNoproxyOverridesEnvironment() async throws {
        let proxy = try await ProxyTestServer.shared()
        let connect = "CONNECT b.test:\(fixture.servers.httpsPort)"
        let before = proxy.requests(containing: connect).count
        // The real environment of the child process: libcurl, left to itself, reads no_proxy there.
        let result = try await httpdns(
            ["fetch", "-x", proxy.url.absoluteString, "--noproxy", "", fixture.url("b.test").absoluteString] + doh,
            environment: ["no_proxy": "b.test", "NO_PROXY": "b.test"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "vhost=b.test\n")
        #expect(proxy.requests(containing: connect).count == before + 1)
    }

    @Test("-o replacing an existing file keeps its permissions: a private file stays private, as with curl")
    func outputKeepsPermissions() async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("private.txt")
        try Data("secret\n".utf8).write(to: file)
        try #require(chmod(file.path, 0o600) == 0)
        let result = try await httpdns(["fetch", "-o", file.path, fixture.url("b.test").absoluteString] + doh)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try String(contentsOf: file, encoding: .utf8) == "vhost=b.test\n")
        var info = stat()
        try #require(stat(file.path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    @Test("repeated -d and --data-binary pieces are joined with '&', as curl does, none dropped")
    func repeatedDataIsJoined() async throws {
        let form = try await httpdns(["fetch", "-d", "a=1", "-d", "b=2", fixture.url("a.test", "/echo").absoluteString] + doh)
        #expect(form.status == 0, "\(form.stderrText)")
        #expect(form.stdoutText == "a=1&b=2")
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("piece.bin")
        try Data("x\ny".utf8).write(to: file)
        let binary = try await httpdns(["fetch", "--data-binary", "a", "--data-binary", "@\(file.path)", fixture.url("a.test", "/echo").absoluteString] + doh)
        #expect(binary.status == 0, "\(binary.stderrText)")
        #expect(binary.stdoutText == "a&x\ny")
    }

    /// bash's `$'\xff'` passes the byte itself in argv, which Swift's String arguments would repair;
    /// the combining marks (U+0301, U+0338) would merge with the option letter or '=' before them
    /// if options were split by Character.
    @Test(
        "inline data is sent as the command line's bytes, as curl sends it: not UTF-8 (not as U+FFFD), or starting with a combining mark",
        arguments: [
            ("--data-binary $'\\xff\\xfe\\xe9'", [0xFF, 0xFE, 0xE9]), ("--data-binary=$'\\xff\\xfe\\xe9'", [0xFF, 0xFE, 0xE9]),
            ("-d $'\\xff\\xfe\\xe9'", [0xFF, 0xFE, 0xE9]), ("--data=$'\\xff\\xfe\\xe9'", [0xFF, 0xFE, 0xE9]),
            ("-sd$'\\xff\\xfe\\xe9'", [0xFF, 0xFE, 0xE9]), ("-d$'\\xcc\\x81x'", [0xCC, 0x81, 0x78]),
            ("--data=$'\\xcc\\xb8x'", [0xCC, 0xB8, 0x78]), ("-sd$'\\xcc\\x81x'", [0xCC, 0x81, 0x78]),
            ("--data-binary=$'\\xcc\\x81x'", [0xCC, 0x81, 0x78])
        ] as [(String, [UInt8])])
    func inlineDataIsByteExact(option: String, sent: [UInt8]) async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("echo.bin")
        let command = ([binary.path, "fetch", "-o", output.path, fixture.url("a.test", "/echo").absoluteString] + doh)
            .map { "'" + $0 + "'" }.joined(separator: " ")
        let result = try await Command.runDetached(URL(fileURLWithPath: "/bin/bash"), ["-c", "\(command) \(option)"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try Data(contentsOf: output) == Data(sent))
    }

    @Test(
        "text that is not UTF-8 (a header, user agent, output path, @file name, URL, name to resolve) is refused, not sent or written as U+FFFD",
        arguments: [
            "fetch -H $'X-A: caf\\xe9' URL", "fetch -A $'caf\\xe9' URL", "fetch -o $'DIR/out\\xe9' URL",
            "fetch --output=$'DIR/out\\xe9' URL", "fetch -d $'@DIR/body\\xe9' URL", "fetch --data-binary $'@DIR/body\\xe9' URL",
            "fetch $'https://a.test/caf\\xe9'", "resolve $'caf\\xe9.test'"
        ])
    func nonUTF8TextIsRefused(command: String) async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The body file's name as Swift would read the argument (U+FFFD): it must not be sent.
        try Data("x".utf8).write(to: directory.appendingPathComponent("body\u{FFFD}"))
        let line = command.replacingOccurrences(of: "DIR", with: directory.path)
            .replacingOccurrences(of: "URL", with: "'\(fixture.url("a.test", "/echo").absoluteString)'")
        let quotedDoH = doh.map { "'" + $0 + "'" }.joined(separator: " ")
        let result = try await Command.runDetached(URL(fileURLWithPath: "/bin/bash"), ["-c", "'\(binary.path)' \(line) \(quotedDoH)"])
        #expect(result.status == 2, "\(result.stderrText)")
        #expect(result.stderrText.contains("not valid UTF-8"), "\(result.stderrText)")
        #expect(result.stdout.isEmpty)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(left == ["body\u{FFFD}"], "\(left)")
    }

    @Test("-H 'Name:' leaves out a header libcurl adds, -H 'Name;' sends it empty, and Host cannot be left out, as in curl")
    func headerRemovalAndEmptyHeaders() async throws {
        let url = fixture.url("a.test", "/headers").absoluteString
        let normal = try await httpdns(["fetch", "--http1.1", url] + doh)
        #expect(normal.stdoutText.lowercased().contains("user-agent: httpdns/"), "\(normal.stdoutText)")
        #expect(normal.stdoutText.lowercased().contains("accept: */*"), "\(normal.stdoutText)")
        let edited = try await httpdns(["fetch", "--http1.1", "-H", "User-Agent:", "-H", "Accept:", "-H", "X-Empty;", url] + doh)
        #expect(edited.status == 0, "\(edited.stderrText)")
        let lines = edited.stdoutText.lowercased().split(separator: "\r\n").map(String.init)
        #expect(!lines.contains { $0.hasPrefix("user-agent:") }, "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("accept:") }, "\(lines)")
        #expect(lines.contains("x-empty:"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("host: a.test") }, "\(lines)")
        let host = try await httpdns(["fetch", "-H", "Host:", url] + doh)
        #expect(host.status == 2)
        #expect(host.stderrText.contains("Host header cannot be left out"), "\(host.stderrText)")
    }

    @Test("--pinnedpubkey with an empty value or another hash than sha256 is a usage error, not a file name", arguments: ["", "sha1//abc", "md5//abc"])
    func pinnedPublicKeyValues(value: String) async throws {
        let result = try await httpdns(["fetch", "--pinnedpubkey", value, fixture.url("a.test").absoluteString] + doh)
        #expect(result.status == 2)
        #expect(result.stderrText.contains(value.isEmpty ? "empty value" : "unsupported pin"), "\(result.stderrText)")
        #expect(!result.stderrText.contains("cannot read file"), "\(result.stderrText)")
    }

    @Test("--max-time 0, --connect-timeout 0 and --max-redirs -1 mean no limit, and -x '' no proxy, as in curl; negative times are refused")
    func curlNoLimitValues() async throws {
        let url = fixture.url("a.test").absoluteString
        let unlimited = try await httpdns(["fetch", "--max-time", "0", "--connect-timeout", "0", "-L", "--max-redirs", "-1", url] + doh)
        #expect(unlimited.status == 0, "\(unlimited.stderrText)")
        #expect(unlimited.stdoutText == "vhost=a.test\n")
        // A dead proxy in the environment: -x "" sends the request direct anyway.
        let direct = try await httpdns(["fetch", "-x", "", url] + doh, environment: ["https_proxy": "http://127.0.0.1:9"])
        #expect(direct.status == 0, "\(direct.stderrText)")
        #expect(direct.stdoutText == "vhost=a.test\n")
        let negative = try await httpdns(["fetch", "--max-time", "-1", url] + doh)
        #expect(negative.status == 2)
        #expect(
            negative.stderrText == "httpdns: --max-time: expected a duration in seconds (0 to 2147483.647; 0: no limit), got '-1' (see 'httpdns help fetch')\n",
            "\(negative.stderrText)")
    }

    @Test("--pinnedpubkey with '//' inside a file path is still a file name")
    func pinnedPublicKeyPathWithDoubleSlash() async throws {
        let result = try await httpdns(["fetch", "--pinnedpubkey", "keys//missing.pem", fixture.url("a.test").absoluteString] + doh)
        #expect(result.status == 2)
        #expect(result.stderrText.contains("keys//missing.pem"), "\(result.stderrText)")
        #expect(!result.stderrText.contains("unsupported pin"), "\(result.stderrText)")
    }

    @Test(
        "-o naming stdout or stderr (/dev/stdout, /dev/fd/2, /proc/self/fd/1, the file > or 2> sent it to) writes through that descriptor, in place: the shell's writes around it stay",
        arguments: [
            (1, "/dev/stdout"), (1, "/dev/fd/1"), (1, "/proc/self/fd/1"), (1, "LOG"),
            (2, "/dev/stderr"), (2, "/dev/fd/2"), (2, "/proc/self/fd/2"), (2, "LOG")
        ])
    func outputToStandardStreamWritesInPlace(fd: Int, path: String) async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // { echo before; fetch -o PATH; echo after; } with descriptor fd sent to the file log ("LOG"
        // names that file itself).
        let log = directory.appendingPathComponent("log").path
        let command = ([binary.path, "fetch", "-o", path == "LOG" ? log : path, fixture.url("b.test").absoluteString] + doh)
            .map { "'" + $0 + "'" }.joined(separator: " ")
        let echo = fd == 1 ? "" : " >&2"
        let result = try await Command.runDetached(
            URL(fileURLWithPath: "/bin/bash"),
            ["-c", "{ echo before\(echo); \(command); s=$?; echo after\(echo); } \(fd)>'\(log)'; echo \"status=$s\""])
        #expect(result.stdoutText == "status=0\n", "\(result.stdoutText)\(result.stderrText)")
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "before\nvhost=b.test\nafter\n")
    }

    @Test("-o - writes the body to stdout, as curl does")
    func outputDash() async throws {
        let result = try await httpdns(["fetch", "-o", "-", fixture.url("b.test").absoluteString] + doh)
        #expect(result.status == 0)
        #expect(result.stdoutText == "vhost=b.test\n")
        #expect(!FileManager.default.fileExists(atPath: "-"))
    }

    @Test("SIGTERM during a download exits 143 and leaves no output or temporary file")
    func interruptedDownloadLeavesNothing() async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("slow.txt").path
        let process = Process()
        process.executableURL = binary
        process.arguments = ["fetch", "-o", output, fixture.url("a.test", "/slow").absoluteString] + doh
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait until the transfer is under way (its temporary file exists), then interrupt it.
        let deadline = Date().addingTimeInterval(4)
        while Date() < deadline, try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try !FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "the transfer never started")
        process.terminate()
        while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        #expect(process.terminationStatus == 143)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("--stale serves an expired answer once and its background refresh reaches the cache file")
    func staleRefreshIsPersisted() async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = directory.appendingPathComponent("cache.sqlite")
        let fresh = try await httpdns(["resolve", "--type", "A", "--cache-file", cache.path] + doh + ["a.test"])
        #expect(fresh.status == 0)
        // Age the row and change its address, as a cache written long ago would be.
        try SQLiteDatabase(path: cache.path, readOnly: false, busyTimeout: 1)
            .execute("UPDATE answers SET expires = \(Date().timeIntervalSince1970 - 100), addresses = '192.0.2.1'")

        let stale = try await httpdns(["resolve", "--type", "A", "--stale", "--cache-file", cache.path] + doh + ["a.test"])
        #expect(stale.status == 0)
        #expect(stale.stdoutText == "a.test 192.0.2.1 ttl=0 source=cache stale\n")
        let refreshed = try await httpdns(["resolve", "--type", "A", "--stale", "--cache-file", cache.path] + doh + ["a.test"])
        #expect(refreshed.stdoutText.hasPrefix("a.test 127.0.0.1 ttl="))
        #expect(refreshed.stdoutText.hasSuffix(" source=cache\n"))
    }

    @Test("fetch --stale -m: the background refresh is waited for only within what is left of -m")
    func staleRefreshWaitIsBoundedByMaxTime() async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = directory.appendingPathComponent("cache.sqlite")
        let url = fixture.url("a.test").absoluteString
        let fresh = try await httpdns(["fetch", "-s", "-o", "/dev/null", "--cache-file", cache.path, url] + doh)
        #expect(fresh.status == 0, "\(fresh.stderrText)")
        try SQLiteDatabase(path: cache.path, readOnly: false, busyTimeout: 1)
            .execute("UPDATE answers SET expires = \(Date().timeIntervalSince1970 - 100)")
        // The refresh goes to a DoH endpoint that never completes a connection (5 s per exchange).
        let port = try FreePort.tcp()
        let hole = try ResolverIntegrationSuites.HappyEyeballsTests.blackHole("127.0.0.1", port: port)
        defer { hole.forEach { close($0) } }
        let start = ContinuousClock.now
        let stale = try await httpdns([
            "fetch", "-s", "-o", "/dev/null", "--stale", "-m", "2", "--no-fallback", "--cache-file", cache.path,
            "--doh-url", "https://dns.test:\(port)/dns-query", "--resolve", "dns.test:\(port):127.0.0.1",
            "--cacert", fixture.servers.caCertificate.path, url
        ])
        #expect(stale.status == 0, "\(stale.stderrText)")
        // -m's 2 s, and slack for starting the process (about 1 s under ThreadSanitizer).
        #expect(ContinuousClock.now - start < .seconds(2 + TestTimeScale.scaled(2.5)), "the refresh was waited for past -m")
    }

    @Test("a cache file that cannot be used is reported without -v")
    func cacheFileWarnings() async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await httpdns(["resolve", "--cache-file", directory.path] + doh + ["a.test"])
        #expect(result.status == 0)
        #expect(result.stderrText.contains("httpdns: warning: "))
        #expect(result.stderrText.contains(directory.path))
    }

    @Test("an invalid PEM file for --cacert exits 2 naming the file")
    func invalidPEM() async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pem = directory.appendingPathComponent("bad.pem")
        try Data("-----BEGIN CERTIFICATE-----\nnot base64!!\n-----END CERTIFICATE-----\n".utf8).write(to: pem)
        let result = try await httpdns(["fetch", "https://a.test/", "--cacert", pem.path])
        #expect(result.status == 2)
        #expect(result.stderrText.contains(pem.path))
    }

    @Test("--help works for every command", arguments: [["--help"], ["fetch", "--help"], ["resolve", "--help"], ["help", "fetch"]])
    func help(arguments: [String]) async throws {
        let result = try await httpdns(arguments)
        #expect(result.status == 0)
        #expect(result.stdoutText.contains("Usage: httpdns"))
    }
}
