import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
    import Glibc
#endif

/// The servers from `scripts/test-servers.sh` are real and configured as the other integration
/// tests assume, checked with curl and openssl rather than with our own client.
@Suite("Test servers", .serialized) // each test blocks a cooperative thread on a subprocess
struct TestServersTests {
    let servers: TestServers

    init() throws {
        servers = try TestServers.shared()
    }

    @Test("a.test is served over HTTP/2 by its own virtual host, chosen by SNI")
    func virtualHostBySNI() async throws {
        let response = try await curl([
            "--http2", "--include", "--resolve", "a.test:\(servers.httpsPort):127.0.0.1",
            servers.httpsURL("a.test").absoluteString
        ])
        #expect(response.statusLine == "HTTP/2 200")
        #expect(response.headers["x-sni"] == "a.test")
        #expect(response.headers["x-vhost"] == "a.test")
        #expect(response.headers["x-protocol"] == "HTTP/2.0")
        #expect(response.body == Data("vhost=a.test\n".utf8))
    }

    @Test("A request to an IP literal, without SNI, gets the default server and its certificate")
    func defaultServerForIPLiteral() async throws {
        let response = try await curl(["--insecure", "--include", "https://127.0.0.1:\(servers.httpsPort)/"])
        #expect(response.headers["x-vhost"] == "default.test")
        #expect(response.body == Data("vhost=default.test\n".utf8))

        let handshake = try await Command.runDetached(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            [
                "s_client", "-connect", "127.0.0.1:\(servers.httpsPort)", "-noservername",
                "-CAfile", servers.caCertificate.path, "-verify_return_error"
            ],
            timeout: 20
        )
        #expect(handshake.status == 0, "\(handshake.stderrText)")
        #expect(handshake.stdoutText.contains("CN = default.test"))
    }

    @Test("wrong.test presents the other.test certificate, which a name-checking client refuses")
    func wrongHostCertificateIsRefused() async throws {
        let result = try await curlResult([
            "--resolve", "wrong.test:\(servers.httpsPort):127.0.0.1",
            servers.httpsURL("wrong.test").absoluteString
        ])
        #expect(result.status == 60, "curl: \(result.stderrText)") // CURLE_PEER_FAILED_VERIFICATION
    }

    @Test("/echo returns a 1 MiB body byte for byte", arguments: ["--http1.1", "--http2"])
    func echoIsByteExact(httpVersion: String) async throws {
        var generator = SystemRandomNumberGenerator()
        let body = Data((0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let result = try await curlResult(
            [
                httpVersion, "--data-binary", "@-", "--header", "Content-Type: application/octet-stream",
                "--resolve", "b.test:\(servers.httpsPort):127.0.0.1", servers.httpsURL("b.test", path: "/echo").absoluteString
            ],
            stdin: body
        )
        #expect(result.status == 0, "curl: \(result.stderrText)")
        #expect(result.stdout == body)
    }

    @Test("DoH answers an A query for a.test with 127.0.0.1")
    func dohAnswersA() async throws {
        let answer = try await doh(query(name: "a.test", type: 1))
        #expect(answer.count > 12)
        #expect(answer[3] & 0x0F == 0) // RCODE NOERROR
        #expect(answer.hex.contains("7f000001"))
    }

    @Test("DoH answers NXDOMAIN for a name outside the zone's data")
    func dohAnswersNXDOMAIN() async throws {
        let answer = try await doh(query(name: "nope.test", type: 1))
        #expect(answer.count > 12)
        #expect(answer[3] & 0x0F == 3) // RCODE NXDOMAIN
        #expect(answer[6...7] == Data([0, 0])) // ANCOUNT
        #expect(answer[8...9] == Data([0, 1])) // NSCOUNT: the SOA, for the negative TTL
    }

    @Test("DoH follows the CNAME chain chain.test → www.a.test → a.test in one answer")
    func dohFollowsCNAMEChain() async throws {
        let answer = try await doh(query(name: "chain.test", type: 1))
        #expect(answer[3] & 0x0F == 0)
        #expect(answer[6...7] == Data([0, 3])) // two CNAMEs and the A record
        #expect(answer.hex.hasSuffix("7f000001"))
    }

    @Test("DoH is served over HTTP/2")
    func dohUsesHTTP2() async throws {
        let result = try await curlResult(
            [
                "--http2", "--output", "/dev/null", "--write-out", "%{http_version} %{http_code}",
                "--resolve", "dns.test:\(servers.dohPort):127.0.0.1",
                servers.dohURL.absoluteString + "?dns=" + query(name: "a.test", type: 1).base64URL
            ]
        )
        #expect(result.status == 0, "curl: \(result.stderrText)")
        #expect(result.stdoutText == "2 200")
    }

    @Test("The httpdns executable is found next to the test bundle")
    func builtProductIsFound() {
        let path = PackagePaths.builtProduct("httpdns").path
        #expect(FileManager.default.isExecutableFile(atPath: path), "looked at \(path)")
    }

    // MARK: - Helpers

    /// curl with the test root CA, never a proxy, and a bound on the whole transfer.
    private func curlResult(_ arguments: [String], stdin: Data? = nil) async throws -> CommandResult {
        try await Command.runDetached(
            URL(fileURLWithPath: "/usr/bin/curl"),
            [
                "--silent", "--show-error", "--noproxy", "*", "--max-time", "20",
                "--cacert", servers.caCertificate.path
            ] + arguments,
            stdin: stdin,
            timeout: 30
        )
    }

    /// A successful curl call with `--include`, split into status line, headers and body.
    private func curl(_ arguments: [String]) async throws -> HTTPResponse {
        let result = try await curlResult(arguments)
        try #require(result.status == 0, "curl: \(result.stderrText)")
        return try #require(HTTPResponse(result.stdout), "unparsable response: \(result.stdoutText)")
    }

    @Test("the watchdog stops the servers once their owner has exited, even as an unreaped zombie")
    func watchdogStopsServersOfAZombieOwner() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-watchdog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = PackagePaths.scripts.appendingPathComponent("test-servers.sh")
        defer {
            _ = try? Command.run(URL(fileURLWithPath: "/bin/bash"), [script.path, "stop", directory.path], timeout: 30)
            try? FileManager.default.removeItem(at: directory)
        }
        // The owner: a child of this process that exits at once and is not reaped until the end
        // of the test, so it stays a zombie, which `kill -0` still finds.
        var child: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        defer { argv.forEach { free($0) } }
        try #require(posix_spawn(&child, "/bin/true", nil, nil, argv, environ) == 0)
        defer { var status: Int32 = 0; waitpid(child, &status, 0) }
        let owner = String(child)
        var isZombie = false
        let deadline = Date().addingTimeInterval(10)
        while !isZombie, Date() < deadline {
            isZombie = ((try? String(contentsOfFile: "/proc/\(owner)/stat", encoding: .utf8)) ?? "").contains(") Z ")
            if !isZombie { try await Task.sleep(for: .milliseconds(20)) }
        }
        try #require(isZombie, "the owner should be a zombie")

        let started = try await Command.runDetached(
            URL(fileURLWithPath: "/bin/bash"), [script.path, "start", directory.path],
            environment: ["TEST_SERVERS_OWNER_PID": owner], timeout: 120)
        try #require(started.status == 0, "\(started.stderrText)")
        // From start's own output: the watchdog may already have stopped the servers and removed
        // their pid files.
        let nginx = try #require(started.stdoutText.split(separator: "\n").first { $0.hasPrefix("NGINX_PID=") }?.dropFirst("NGINX_PID=".count))

        // The watchdog removes servers.env after nginx has exited: wait for both.
        let environmentFile = directory.appendingPathComponent("servers.env").path
        var stopped = false, removed = false
        let stopDeadline = Date().addingTimeInterval(20)
        while !(stopped && removed), Date() < stopDeadline {
            stopped = !FileManager.default.fileExists(atPath: "/proc/\(nginx)")
            removed = !FileManager.default.fileExists(atPath: environmentFile)
            if !(stopped && removed) { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(stopped, "nginx \(nginx) still runs although its owner \(owner) is a zombie")
        #expect(removed, "servers.env is left behind")
    }

    /// POSTs a wire-format query to the DoH endpoint (RFC 8484 §4.1) and returns the answer bytes.
    private func doh(_ query: Data) async throws -> Data {
        let result = try await curlResult(
            [
                "--data-binary", "@-", "--header", "Content-Type: application/dns-message",
                "--header", "Accept: application/dns-message",
                "--resolve", "dns.test:\(servers.dohPort):127.0.0.1", servers.dohURL.absoluteString
            ],
            stdin: query
        )
        try #require(result.status == 0, "curl: \(result.stderrText)")
        return result.stdout
    }

    /// A recursion-desired query for `name`, class IN, built by hand (RFC 1035 §4.1).
    private func query(name: String, type: UInt16) -> Data {
        var message = Data([0x00, 0x00, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00])
        for label in name.split(separator: ".") {
            message.append(UInt8(label.utf8.count))
            message.append(contentsOf: label.utf8)
        }
        message.append(contentsOf: [0x00, UInt8(type >> 8), UInt8(type & 0xFF), 0x00, 0x01])
        return message
    }
}

/// An HTTP response as `curl --include` prints it (the last one, after any 1xx).
private struct HTTPResponse {
    let statusLine: String
    /// Lower-cased names.
    let headers: [String: String]
    let body: Data

    init?(_ output: Data) {
        let separator = Data("\r\n\r\n".utf8)
        guard let end = output.range(of: separator) else { return nil }
        let lines = String(decoding: output[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        statusLine = lines[0].trimmingCharacters(in: .whitespaces)
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        self.headers = headers
        body = Data(output[end.upperBound...])
    }
}

private extension Data {
    var hex: String { map { String(format: "%02x", $0) }.joined() }
    /// RFC 4648 §5 without padding, as RFC 8484 §4.1 wants for the `dns` parameter.
    var base64URL: String {
        base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
