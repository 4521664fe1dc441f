import Foundation
import Testing
import HTTPDNS
import TestSupport

extension CLITests {
    /// Options that read a file read a pipe too, as curl does: process substitution (`<(command)`,
    /// a `/dev/fd/N`), a FIFO, `/dev/stdin`, read once and whole.
    @Suite("httpdns reads pipes where curl does")
    struct CLIPipeInputTests {
        let fixture: Fixture
        let binary = PackagePaths.builtProduct("httpdns")

        init() throws { fixture = try Fixture() }

        var doh: [String] { fixture.dohOptions }

        /// Runs `script` with bash, in which `$HTTPDNS` is the built binary.
        func bash(_ script: String, in directory: URL? = nil) async throws -> CommandResult {
            let setup = "HTTPDNS='\(binary.path)'; " + (directory.map { "cd '\($0.path)'; " } ?? "")
            return try await Command.runDetached(URL(fileURLWithPath: "/bin/bash"), ["-c", setup + script], timeout: 60)
        }

        /// `arguments` quoted for bash.
        func quoted(_ arguments: [String]) -> String {
            arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        }

        @Test(
            "-d @<(command) and --data-binary @<(command) send what the command prints, as curl",
            arguments: [("-d", "a=1\\nb=2", "a=1b=2"), ("--data-binary", "a\\r\\nb\\0c", "a\r\nb\0c")])
        func processSubstitutionBody(option: String, printed: String, sent: String) async throws {
            let url = fixture.url("a.test", "/echo").absoluteString
            let result = try await bash("$HTTPDNS fetch \(option) @<(printf '\(printed)') \(quoted([url] + doh))")
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stdout == Data(sent.utf8), "\(result.stdoutText.debugDescription)")
        }

        @Test("a body read from a pipe goes out with its Content-Length, not chunked")
        func pipedBodyHasContentLength() async throws {
            let url = fixture.url("a.test", "/headers").absoluteString
            let result = try await bash("$HTTPDNS fetch --http1.1 --data-binary @<(printf abc) \(quoted([url] + doh))")
            #expect(result.status == 0, "\(result.stderrText)")
            let lines = result.stdoutText.lowercased().split(separator: "\r\n").map(String.init)
            #expect(lines.contains("content-length: 3"), "\(lines)")
            #expect(!lines.contains { $0.hasPrefix("transfer-encoding:") }, "\(lines)")
        }

        @Test("--data-binary @/dev/stdin sends piped standard input, as @- does")
        func devStdinBody() async throws {
            let url = fixture.url("a.test", "/echo").absoluteString
            let result = try await bash("printf 'piped\\n' | $HTTPDNS fetch --data-binary @/dev/stdin \(quoted([url] + doh))")
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stdoutText == "piped\n")
        }

        @Test("--data-binary @FILE sends a kernel file whose size reads 0 (/proc), as curl", arguments: ["--data-binary", "-d"])
        func procFileBody(option: String) async throws {
            let url = fixture.url("a.test", "/echo").absoluteString
            let path = "/proc/sys/kernel/ostype"
            let expected = try String(contentsOfFile: path, encoding: .utf8)
            let result = try await bash("$HTTPDNS fetch \(option) @\(path) \(quoted([url] + doh))")
            #expect(result.status == 0, "\(result.stderrText)")
            // -d drops line breaks, as curl does.
            #expect(result.stdoutText == (option == "-d" ? expected.replacingOccurrences(of: "\n", with: "") : expected))
        }

        @Test("--data-binary @FIFO sends what a background writer puts into the FIFO")
        func fifoBody() async throws {
            let directory = try fixture.scratchDirectory("pipes")
            defer { try? FileManager.default.removeItem(at: directory) }
            let url = fixture.url("a.test", "/echo").absoluteString
            let result = try await bash(
                "mkfifo body && { printf 'from a fifo' > body & } && $HTTPDNS fetch --data-binary @body \(quoted([url] + doh))",
                in: directory)
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stdoutText == "from a fifo")
        }

        @Test("--data-binary @- with standard input closed is bad input (2) that says so")
        func closedStandardInput() async throws {
            let url = fixture.url("a.test", "/echo").absoluteString
            let result = try await bash("$HTTPDNS fetch --data-binary @- \(quoted([url] + doh)) <&-")
            #expect(result.status == 2, "\(result.stderrText)")
            #expect(result.stderrText.contains("--data-binary: cannot read standard input: it is closed"), "\(result.stderrText)")
        }

        /// Reopened by path, a standard descriptor the process was started without reaches the
        /// placeholder pipe the process holds itself, whose read never ends: refused, never read.
        @Test(
            "with standard input or output closed, a path to it (/dev/stdin, /dev/fd/0, /dev/stdout) is bad input (2) naming the closed stream, not a read that never ends",
            arguments: [
                ("--data-binary @/dev/stdin", "<&-", "--data-binary: cannot read '/dev/stdin': it is standard input, which is closed"),
                ("-d @/dev/fd/0", "<&-", "-d: cannot read '/dev/fd/0': it is standard input, which is closed"),
                ("--data-binary @/proc/self/fd/0", "<&-", "--data-binary: cannot read '/proc/self/fd/0': it is standard input, which is closed"),
                ("--cacert /dev/stdin", "<&-", "--cacert: cannot read '/dev/stdin': it is standard input, which is closed"),
                ("--data-binary @/dev/stdout", ">&-", "--data-binary: cannot read '/dev/stdout': it is standard output, which is closed")
            ])
        func closedStandardStreamByPath(options: String, redirection: String, message: String) async throws {
            let url = fixture.url("a.test", "/echo").absoluteString
            // `timeout` ends a read that hangs (124) well before the helper's own limit.
            let result = try await bash("timeout 10 $HTTPDNS fetch \(options) \(quoted([url] + doh)) \(redirection)")
            #expect(result.status == 2, "\(result.stderrText)")
            #expect(result.stderrText.contains(message), "\(result.stderrText)")
        }

        @Test(
            "a body file that is missing or a directory is refused before any traffic (2), saying which",
            arguments: [
                ("--data-binary", "MISSING", "No such file or directory"), ("--data-binary", "DIR", "Is a directory"),
                ("-d", "MISSING", "No such file or directory"), ("-d", "DIR", "Is a directory")
            ])
        func unreadableBodyFile(option: String, file: String, reason: String) async throws {
            let directory = try fixture.scratchDirectory("pipes")
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = file == "DIR" ? directory.path : directory.appendingPathComponent("missing").path
            let result = try await fixture.httpdns(["fetch", option, "@" + path, fixture.url("a.test", "/echo").absoluteString] + doh)
            #expect(result.status == 2, "\(result.stderrText)")
            #expect(result.stderrText.contains("\(option): cannot read '\(path)': \(reason)"), "\(result.stderrText)")
        }

        @Test("--cacert, --doh-cacert and --pinnedpubkey read process substitution")
        func trustFilesFromPipes() async throws {
            let servers = fixture.servers
            let url = fixture.url("a.test").absoluteString
            let resolver = quoted(["--doh-url", servers.dohURL.absoluteString, "--resolve", "dns.test:\(servers.dohPort):127.0.0.1", "--no-fallback"])
            let ca = quoted([servers.caCertificate.path])
            let anchors = try await bash("$HTTPDNS fetch \(resolver) --cacert <(cat \(ca)) \(quoted([url]))")
            #expect(anchors.status == 0, "\(anchors.stderrText)")
            #expect(anchors.stdoutText == "vhost=a.test\n")
            // The DoH endpoint verifies with the piped CA; the target, without --cacert, does not (60).
            let dohAnchors = try await bash("$HTTPDNS fetch \(resolver) --doh-cacert <(cat \(ca)) \(quoted([url]))")
            #expect(dohAnchors.status == 60, "\(dohAnchors.stderrText)")
            // A certificate pins its key; it is read once, for the key and then for the certificate.
            let leaf = quoted([servers.leaf("a.test").certificate.path])
            let pinned = try await bash("$HTTPDNS fetch --pinnedpubkey <(cat \(leaf)) \(quoted([url] + doh))")
            #expect(pinned.status == 0, "\(pinned.stderrText)")
            let mismatch = try await bash("$HTTPDNS fetch --pinnedpubkey <(cat \(leaf)) \(quoted([fixture.url("b.test").absoluteString] + doh))")
            #expect(mismatch.status == 90, "\(mismatch.stderrText)")
        }

        @Test("--cert and --key read process substitution, PEM and PKCS#12, and reach mtls.test")
        func clientIdentityFromPipes() async throws {
            let url = quoted([fixture.url("mtls.test").absoluteString] + doh)
            let certificate = quoted([fixture.file("CLIENT_CERT").path]), key = quoted([fixture.file("CLIENT_ENCRYPTED_KEY").path])
            let password = quoted([fixture.clientPassword])
            let pem = try await bash("$HTTPDNS fetch --cert <(cat \(certificate)) --key <(cat \(key)) --pass \(password) \(url)")
            #expect(pem.status == 0, "\(pem.stderrText)")
            #expect(pem.stdoutText == "vhost=mtls.test\n")
            let p12 = quoted([fixture.file("CLIENT_LEGACY_P12").path])
            let pkcs12 = try await bash("$HTTPDNS fetch --cert-type P12 --cert <(cat \(p12)) --pass \(password) \(url)")
            #expect(pkcs12.status == 0, "\(pkcs12.stderrText)")
            #expect(pkcs12.stdoutText == "vhost=mtls.test\n")
        }
    }
}
