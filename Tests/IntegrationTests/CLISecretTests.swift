import Foundation
import Glibc
import Testing
import TestSupport

extension ResolverIntegrationSuites {
    /// The vendor providers' secrets kept off the command line: `--secret-file`, `HTTPDNS_SECRET`,
    /// and never a secret in `-v`, errors or reports. Run as the built `httpdns` against the
    /// provider test server.
    @Suite("httpdns secrets from a file or the environment")
    struct CLISecretTests {
        let fixture: Fixture
        let server: ProviderTestServer

        init() async throws {
            fixture = try Fixture()
            server = try await ProviderTestServer.shared()
        }

        var common: [String] {
            ["--resolve", "dns.test:\(server.port):127.0.0.1", "--cacert", fixture.servers.caCertificate.path, "--type", "A", "--no-fallback"]
        }
        var ali: [String] { ["--provider", "httpdns-ali", "--endpoint", server.baseURL.absoluteString, "--account-id", server.accountID] }
        var dnspodDES: [String] { ["--provider", "httpdns-dnspod", "--endpoint", server.baseURL.absoluteString, "--key-id", server.keyID] }

        /// A file holding `contents` with `mode`, in a directory of its own (removed by the caller).
        func secretFile(_ contents: String, mode: mode_t) throws -> (file: URL, directory: URL) {
            let directory = try fixture.scratchDirectory("secret")
            let file = directory.appendingPathComponent("secret")
            try Data(contents.utf8).write(to: file)
            #expect(chmod(file.path, mode) == 0)
            return (file, directory)
        }

        @Test("--secret-file signs httpdns-ali requests; a private file (0600) gets no warning")
        func privateSecretFile() async throws {
            let (file, directory) = try secretFile(server.secret + "\n", mode: 0o600)
            defer { try? FileManager.default.removeItem(at: directory) }
            let result = try await fixture.httpdns(["resolve", "b.test", "--secret-file", file.path] + ali + common)
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stdoutText.contains("b.test 127.0.0.1"))
            #expect(result.stderrText.isEmpty, "\(result.stderrText)")
            #expect(!server.requests(containing: "/100000/sign_d?host=b.test").isEmpty)
        }

        @Test("a --secret-file its group or others can read is used, with a warning naming it and the fix")
        func readableSecretFile() async throws {
            let (file, directory) = try secretFile(server.desKey, mode: 0o644)
            defer { try? FileManager.default.removeItem(at: directory) }
            let result = try await fixture.httpdns(["resolve", "a.test", "--secret-file", file.path] + dnspodDES + common)
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(
                result.stderrText
                    == "httpdns: warning: --secret-file \(file.path) can be read by other users (mode 0644); make it private: chmod 600 \(file.path)\n")
            #expect(!result.stderrText.contains(server.desKey))
        }

        @Test("HTTPDNS_SECRET gives the secret when no option does; -v never shows it")
        func environmentSecret() async throws {
            let result = try await fixture.httpdns(["resolve", "-v", "v4only.test"] + dnspodDES + common, environment: ["HTTPDNS_SECRET": server.desKey])
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stdoutText.contains("v4only.test 127.0.0.1"))
            #expect(!result.stderrText.contains(server.desKey) && !result.stderrText.contains("dnspodpa"), "\(result.stderrText)")
            #expect(server.requests(containing: "alg=des").allSatisfy { !$0.contains("v4only") })
        }

        @Test("the HTTPS token entry's token comes from the environment and never reaches -v or errors")
        func tokenNeverPrinted() async throws {
            let entry = ["--provider", "httpdns-dnspod", "--endpoint", server.baseURL.absoluteString]
            let good = try await fixture.httpdns(["resolve", "-v", "a.test"] + entry + common, environment: ["HTTPDNS_SECRET": server.token])
            #expect(good.status == 0, "\(good.stderrText)")
            #expect(!good.stderrText.contains(server.token), "\(good.stderrText)")
            // A dead endpoint: the failure is reported, the token is not.
            let dead = try fixture.deadEndpoint()
            let failed = try await fixture.httpdns(
                ["resolve", "-v", "a.test", "--provider", "httpdns-dnspod", "--endpoint", dead.url.absoluteString, "--resolve", "dns.test:\(dead.url.port!):127.0.0.1"]
                    + ["--cacert", fixture.servers.caCertificate.path, "--no-fallback"], environment: ["HTTPDNS_SECRET": server.token])
            #expect(failed.status != 0)
            #expect(failed.stderrText.contains("endpoint failed"), "\(failed.stderrText)")
            #expect(!failed.stderrText.contains(server.token), "\(failed.stderrText)")
        }

        @Test(
            "unusable secrets are refused with exit 2, naming the file but never what it holds",
            arguments: [
                ("", "is empty"), ("two\nlines", "holds more than one line"), ("short", "expected httpdns-dnspod's DES key (at least 8 bytes; the first 8 are used), got 5 bytes")
            ])
        func unusableSecretFile(contents: String, message: String) async throws {
            let (file, directory) = try secretFile(contents, mode: 0o600)
            defer { try? FileManager.default.removeItem(at: directory) }
            let result = try await fixture.httpdns(["resolve", "a.test", "--secret-file", file.path] + dnspodDES + common)
            #expect(result.status == 2)
            #expect(result.stderrText.contains("--secret-file \(file.path)") && result.stderrText.contains(message), "\(result.stderrText)")
            if !contents.isEmpty { #expect(!result.stderrText.contains(contents.split(separator: "\n")[0]), "\(result.stderrText)") }
        }

        @Test("--secret with --secret-file, a missing file, or --key-id without any secret is exit 2")
        func conflictingOrMissing() async throws {
            let both = try await fixture.httpdns(["resolve", "a.test", "--secret", "x", "--secret-file", "/nonexistent"] + ali + common)
            #expect(both.status == 2)
            #expect(both.stderrText.contains("--secret and --secret-file both give the secret"), "\(both.stderrText)")
            let missing = try await fixture.httpdns(["resolve", "a.test", "--secret-file", "/nonexistent/secret"] + ali + common)
            #expect(missing.status == 2)
            #expect(
                missing.stderrText == "httpdns: --secret-file: cannot read '/nonexistent/secret': No such file or directory (see 'httpdns help resolve')\n",
                "\(missing.stderrText)")
            let none = try await fixture.httpdns(["resolve", "a.test"] + dnspodDES + common)
            #expect(none.status == 2)
            #expect(none.stderrText.contains("--secret-file, HTTPDNS_SECRET or --secret"), "\(none.stderrText)")
        }
    }
}
