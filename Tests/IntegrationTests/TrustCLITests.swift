import Foundation
import Testing
import HTTPDNS
import TestSupport

extension TrustSuites {
    /// `httpdns` trust options and `pins` as a user runs them, against the real servers.
    @Suite("httpdns trust options", .serialized)
    struct TrustCLITests {
        let fixture: Fixture
        let binary = PackagePaths.builtProduct("httpdns")

        init() throws { fixture = try Fixture() }

        var doh: [String] { fixture.dohOptions }

        /// Runs the binary without holding a cooperative thread (see `Command.runDetached`).
        func httpdns(_ arguments: [String]) async throws -> CommandResult {
            try await fixture.httpdns(arguments)
        }

        @Test("pins prints the chain with subjects, issuers, expiry and pins, and a line that fetch accepts")
        func pinsPrintsPasteablePins() async throws {
            let result = try await httpdns(["pins", fixture.url("a.test").absoluteString] + doh)
            #expect(result.status == 0, "\(result.stderrText)")
            let leaf = try fixture.leafCertificate("a.test")
            let lines = result.stdoutText.split(separator: "\n").map(String.init)
            #expect(lines.contains("0 subject: \(leaf.subject)"))
            #expect(lines.contains("  issuer:  \(leaf.issuer)"))
            #expect(lines.contains("  pin:     \(leaf.publicKeyPin)"))
            #expect(lines.contains("1 subject: \(fixture.testCA[0].subject)"))
            // The ready-to-paste line pins the server's key alone; with the CA's pin in it, it let
            // through every host the CA signs (b.test below).
            let last = try #require(lines.last)
            #expect(last == "--pinnedpubkey '\(leaf.publicKeyPin)'")
            #expect(lines.dropLast().last == "issuer pins (each matches any certificate its key signed, for any host): \(fixture.testCA[0].publicKeyPin)")
            let pins = String(last.dropFirst("--pinnedpubkey '".count).dropLast())
            let fetched = try await httpdns(["fetch", "--pinnedpubkey", pins, fixture.url("a.test").absoluteString] + doh)
            #expect(fetched.status == 0)
            #expect(fetched.stdoutText == "vhost=a.test\n")
            let other = try await httpdns(["fetch", "--pinnedpubkey", pins, fixture.url("b.test").absoluteString] + doh)
            #expect(other.status == 90, "\(other.stderrText)")
        }

        @Test("a public-key pin mismatch exits 90 and lists the presented pins")
        func pinMismatchExits90() async throws {
            let wrong = fixture.otherCA[0].publicKeyPin.description
            let result = try await httpdns(["fetch", "--pinnedpubkey", wrong, fixture.url("a.test").absoluteString] + doh)
            #expect(result.status == 90)
            #expect(result.stderrText.contains(try fixture.leafCertificate("a.test").publicKeyPin.description))
            #expect(result.stderrText.contains("CN=a.test"))
        }

        @Test("-k with a pin that fails still says verification was off, without -v, before the pin failure")
        func insecurePinMismatchWarns() async throws {
            let wrong = fixture.otherCA[0].publicKeyPin.description
            let result = try await httpdns(["fetch", "-k", "--pinnedpubkey", wrong, fixture.url("wrong.test").absoluteString] + doh)
            #expect(result.status == 90)
            let warning = try #require(result.stderrText.range(of: "httpdns: warning: certificate verification is disabled"), "\(result.stderrText)")
            let failure = try #require(result.stderrText.range(of: "pin"), "\(result.stderrText)")
            #expect(warning.lowerBound < failure.lowerBound, "\(result.stderrText)")
            #expect(!result.stderrText.contains("verified for"))
        }

        /// `openssl pkey -pubout` of a leaf's key, as PEM or DER, in a fresh directory.
        func publicKeyFile(_ name: String, format: String) async throws -> URL {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-pubkey-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let file = directory.appendingPathComponent("\(name).pubkey.\(format.lowercased())")
            let result = try await Command.runDetached(
                URL(fileURLWithPath: "/usr/bin/openssl"),
                ["pkey", "-in", fixture.servers.leaf(name).key.path, "-pubout", "-outform", format, "-out", file.path], timeout: 30)
            #expect(result.status == 0, "\(result.stderrText)")
            return file
        }

        @Test("a public-key file (PEM, DER, or a certificate) pins the same SPKI as its sha256// form")
        func publicKeyFilePins() async throws {
            let expected = try fixture.leafCertificate("a.test").publicKeyPin
            let pem = try await publicKeyFile("a.test", format: "PEM")
            let der = try await publicKeyFile("a.test", format: "DER")
            defer { [pem, der].forEach { try? FileManager.default.removeItem(at: $0.deletingLastPathComponent()) } }
            #expect(try CertificatePin.publicKey(contentsOf: pem) == expected)
            #expect(try CertificatePin.publicKey(contentsOf: der) == expected)
            #expect(try CertificatePin.publicKey(contentsOf: fixture.servers.leaf("a.test").certificate) == expected)
            #expect(throws: TrustError.self) { try CertificatePin.publicKey(contentsOf: fixture.servers.leaf("a.test").key) }
            #expect(throws: TrustError.unreadableFile(path: "/nonexistent/key.pem", reason: "No such file or directory")) {
                try CertificatePin.publicKey(contentsOf: URL(fileURLWithPath: "/nonexistent/key.pem"))
            }
        }

        @Test("--pinnedpubkey FILE, as curl: the server's key passes, another key exits 90, a non-key file exits 2")
        func pinnedPublicKeyFile() async throws {
            let good = try await publicKeyFile("a.test", format: "PEM")
            let other = try await publicKeyFile("b.test", format: "DER")
            defer { [good, other].forEach { try? FileManager.default.removeItem(at: $0.deletingLastPathComponent()) } }
            let passed = try await httpdns(["fetch", "--pinnedpubkey", good.path, fixture.url("a.test").absoluteString] + doh)
            #expect(passed.status == 0, "\(passed.stderrText)")
            #expect(passed.stdoutText == "vhost=a.test\n")
            let mismatch = try await httpdns(["fetch", "--pinnedpubkey", other.path, fixture.url("a.test").absoluteString] + doh)
            #expect(mismatch.status == 90)
            // A cert-sha256// pin is still a pin, not a file name.
            let certificatePin = try fixture.leafCertificate("a.test").certificatePin.description
            let byCertificate = try await httpdns(["fetch", "--pinnedpubkey", certificatePin, fixture.url("a.test").absoluteString] + doh)
            #expect(byCertificate.status == 0, "\(byCertificate.stderrText)")
            let notKey = try await httpdns(["fetch", "--pinnedpubkey", fixture.servers.leaf("a.test").key.path, fixture.url("a.test").absoluteString] + doh)
            #expect(notKey.status == 2)
            #expect(notKey.stderrText.contains("no PEM or DER public key"), "\(notKey.stderrText)")
        }

        @Test("--pin-cert with the leaf's fingerprint passes; another fingerprint exits 90")
        func pinCert() async throws {
            let hex = try fixture.leafCertificate("b.test").sha256.map { String(format: "%02X", $0) }.joined(separator: ":")
            #expect(try await httpdns(["fetch", "--pin-cert", hex, fixture.url("b.test").absoluteString] + doh).status == 0)
            let other = fixture.otherCA[0].sha256.map { String(format: "%02x", $0) }.joined()
            let mismatch = try await httpdns(["fetch", "--pin-cert", other, fixture.url("b.test").absoluteString] + doh)
            #expect(mismatch.status == 90)
            // The failure lists the whole-certificate pins the server presented, ready to compare.
            let presented = try fixture.leafCertificate("b.test").certificatePin.description
            #expect(mismatch.stderrText.contains(presented), "\(mismatch.stderrText)")
        }

        @Test(
            "a pin mismatch shows each pin as the command line wrote it (a fingerprint with colons and capitals, a hex digest, a key file), with its normalized form beside it"
        )
        func mismatchShowsPinsAsWritten() async throws {
            let other = fixture.otherCA[0]
            let fingerprint = other.sha256.map { String(format: "%02X", $0) }.joined(separator: ":")
            let byFingerprint = try await httpdns(["fetch", "--pin-cert", fingerprint, fixture.url("b.test").absoluteString] + doh)
            #expect(byFingerprint.status == 90, "\(byFingerprint.stderrText)")
            #expect(byFingerprint.stderrText.contains("matches \(fingerprint) (\(other.certificatePin))\n"), "\(byFingerprint.stderrText)")
            let hex = "sha256//" + String(repeating: "0", count: 64)
            let normalized = "sha256//" + Data(count: 32).base64EncodedString()
            let byHex = try await httpdns(["fetch", "--pinnedpubkey", " \(hex) ", fixture.url("b.test").absoluteString] + doh)
            #expect(byHex.status == 90, "\(byHex.stderrText)")
            #expect(byHex.stderrText.contains("matches \(hex) (\(normalized))\n"), "\(byHex.stderrText)")
            // A pin written as its normalized form is shown once.
            let asIs = try await httpdns(["fetch", "--pinnedpubkey", normalized, fixture.url("b.test").absoluteString] + doh)
            #expect(asIs.stderrText.contains("matches \(normalized)\n"), "\(asIs.stderrText)")
            // A certificate file pins its key.
            let file = fixture.servers.otherCACertificate.path
            let byFile = try await httpdns(["fetch", "--pinnedpubkey", file, fixture.url("b.test").absoluteString] + doh)
            #expect(byFile.status == 90, "\(byFile.stderrText)")
            #expect(byFile.stderrText.contains("matches \(file) (\(other.publicKeyPin))\n"), "\(byFile.stderrText)")
        }

        @Test("an untrusted, self-signed or expired certificate exits 60", arguments: ["self-signed.test", "expired.test", "wrong.test"])
        func verificationFailureExits60(host: String) async throws {
            #expect(try await httpdns(["fetch", fixture.url(host).absoluteString] + doh).status == 60)
        }

        @Test("-k fetches from a self-signed server and warns on stderr")
        func insecureWarns() async throws {
            let result = try await httpdns(["fetch", "-k", fixture.url("self-signed.test").absoluteString] + doh)
            #expect(result.status == 0)
            #expect(result.stdoutText == "vhost=self-signed.test\n")
            #expect(result.stderrText.contains("warning: certificate verification is disabled"))
        }

        @Test(
            "-k -v reports the certificate as not verified, even one whose chain OpenSSL accepts for another name",
            arguments: ["wrong.test", "self-signed.test", "a.test"])
        func insecureVerboseSaysNotVerified(host: String) async throws {
            let result = try await httpdns(["fetch", "-k", "-v", fixture.url(host).absoluteString] + doh)
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(
                result.stderrText.contains("; not verified (verification disabled): neither the chain nor the name \(host) was checked"),
                "\(result.stderrText)")
            #expect(!result.stderrText.contains("; verified for"), "\(result.stderrText)")
            let verified = try await httpdns(["fetch", "-v", fixture.url("a.test").absoluteString] + doh)
            #expect(verified.stderrText.contains("; verified for a.test"), "\(verified.stderrText)")
            #expect(!verified.stderrText.contains("not verified"), "\(verified.stderrText)")
        }

        @Test("-k -v with an IP literal says the certificate was not checked, not that it was checked against the IP")
        func insecureVerboseIPLiteral() async throws {
            let url = "https://127.0.0.1:\(fixture.servers.httpsPort)/"
            let result = try await httpdns(["fetch", "-k", "-v", url])
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stderrText.contains("127.0.0.1 is an IP literal: no resolution, no SNI sent, certificate not checked (verification disabled)"), "\(result.stderrText)")
            #expect(result.stderrText.contains("; not verified (verification disabled)"), "\(result.stderrText)")
        }

        @Test("probe -k says verified=false verification=disabled in its line, and false and disabled in --json", arguments: ["wrong.test", "self-signed.test", "a.test"])
        func probeInsecureSaysNotVerified(host: String) async throws {
            let text = try await httpdns(["probe", "-k", fixture.url(host).absoluteString] + doh)
            #expect(text.status == 0, "\(text.stdoutText)\(text.stderrText)")
            let lines = text.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }
            #expect(!lines.isEmpty)
            for line in lines {
                #expect(line.contains("sni=\(host) verified=false verification=disabled status=200"), "\(line)")
                #expect(!line.contains("verified=true"))
            }
            for tls in try await probeTLSObjects(["-k", fixture.url(host).absoluteString]) {
                #expect(tls["verified"] as? Bool == false)
                #expect(tls["verification"] as? String == "disabled")
            }
        }

        /// `probe --json ARGUMENTS`'s `tls` objects, one per address (at least one).
        func probeTLSObjects(_ arguments: [String]) async throws -> [[String: Any]] {
            let json = try await httpdns(["probe", "--json"] + arguments + doh)
            #expect(json.status == 0, "\(json.stderrText)")
            let objects = try json.stdoutText.split(separator: "\n").map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            }
            #expect(!objects.isEmpty)
            return try objects.map { try #require($0["tls"] as? [String: Any]) }
        }

        @Test("probe --json with verification says verified and true")
        func probeJSONVerified() async throws {
            for tls in try await probeTLSObjects([fixture.url("a.test").absoluteString]) {
                #expect(tls["verified"] as? Bool == true)
                #expect(tls["verification"] as? String == "verified")
            }
        }

        @Test("pins -k says the chain it prints was not verified")
        func pinsInsecureSaysNotVerified() async throws {
            let result = try await httpdns(["pins", "-k", fixture.url("self-signed.test").absoluteString] + doh)
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stderrText.contains("not verified (verification disabled)"), "\(result.stderrText)")
            let verified = try await httpdns(["pins", fixture.url("a.test").absoluteString] + doh)
            #expect(!verified.stderrText.contains("not verified"), "\(verified.stderrText)")
        }

        @Test(
            "-k -w %{ssl_verify_result} is what verification would have found, as curl's: never 0 for a certificate that would fail",
            arguments: [("self-signed.test", "18"), ("wrong.test", "62"), ("expired.test", "10"), ("a.test", "0")])
        func insecureWriteOutVerifyResult(host: String, code: String) async throws {
            let result = try await httpdns(["fetch", "-s", "-k", "-o", "/dev/null", "-w", "%{ssl_verify_result}", fixture.url(host).absoluteString] + doh)
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stdoutText == code)
        }

        @Test("-k -v warns once per new connection, among its connection lines: after where the addresses came from, before '* connected'; each -L hop's own")
        func insecureVerboseWarnsAtTheConnection() async throws {
            let warning = "httpdns: warning: certificate verification is disabled; the connection to"
            // stderr and stdout in one pipe: their order is the order they were written in.
            // Twice the same URL: the second transfer reuses the connection, and is not warned about again.
            let url = fixture.url("self-signed.test").absoluteString
            let single = try await fixture.httpdnsMerged(["fetch", "-k", "-v", url, url] + doh)
            #expect(single.status == 0, "\(single.stdoutText)")
            let lines = single.stdoutText.split(separator: "\n").map(String.init)
            let warned = lines.indices.filter { lines[$0].hasPrefix(warning) }
            #expect(warned.count == 1, "\(single.stdoutText)")
            let resolved = try #require(lines.firstIndex { $0.hasPrefix("* resolved self-signed.test ") }, "\(single.stdoutText)")
            let connected = try #require(lines.firstIndex { $0.hasPrefix("* connected to ") }, "\(single.stdoutText)")
            #expect(warned == [resolved + 1] && connected == resolved + 2, "\(single.stdoutText)")
            #expect(lines[resolved + 1].hasPrefix("\(warning) self-signed.test:\(fixture.servers.httpsPort) ("), "\(single.stdoutText)")
            #expect(lines.contains { $0.hasPrefix("* connected to ") && $0.hasSuffix(", reused connection") }, "\(single.stdoutText)")

            let redirected = try await fixture.httpdnsMerged(["fetch", "-k", "-v", "-L", "-o", "/dev/null", fixture.url("a.test", "/redirect/302/b").absoluteString] + doh)
            #expect(redirected.status == 0, "\(redirected.stdoutText)")
            let hops = redirected.stdoutText.split(separator: "\n").map(String.init)
            for host in ["a.test", "b.test"] {
                let resolved = try #require(hops.firstIndex { $0.hasPrefix("* resolved \(host) ") }, "\(redirected.stdoutText)")
                #expect(hops[resolved + 1].hasPrefix("\(warning) \(host):"), "\(redirected.stdoutText)")
                #expect(hops[resolved + 2].hasPrefix("* connected to "), "\(redirected.stdoutText)")
            }
            #expect(hops.filter { $0.hasPrefix(warning) }.count == 2, "\(redirected.stdoutText)")
        }

        @Test("--cert FILE:PASSWORD with PKCS#12, and PEM with an encrypted --key and --pass, reach mtls.test")
        func clientCertificates() async throws {
            let url = fixture.url("mtls.test").absoluteString
            let p12 = try await httpdns(["fetch", "--cert", "\(fixture.file("CLIENT_LEGACY_P12").path):secret", "--cert-type", "P12", url] + doh)
            #expect(p12.status == 0, "\(p12.stderrText)")
            #expect(p12.stdoutText == "vhost=mtls.test\n")
            let pem = try await httpdns(
                [
                    "fetch", "--cert", fixture.file("CLIENT_CERT").path, "--key", fixture.file("CLIENT_ENCRYPTED_KEY").path,
                    "--pass", "secret", url
                ] + doh)
            #expect(pem.status == 0, "\(pem.stderrText)")
        }

        @Test("a client certificate the server rejects, or none sent where one is required, exits 58")
        func clientCertificateProblemsExit58() async throws {
            let url = fixture.url("mtls.test").absoluteString
            let untrusted = try await httpdns(["fetch", "--cert", "\(fixture.file("UNTRUSTED_CLIENT_P12").path):secret", url] + doh)
            #expect(untrusted.status == 58)
            let none = try await httpdns(["fetch", url] + doh)
            #expect(none.status == 58)
            #expect(none.stderrText.contains("No required SSL certificate was sent"))
            // With -f too (it used to exit 22: libcurl's CURLOPT_FAILONERROR stopped at the status).
            let failing = try await httpdns(["fetch", "-f", url] + doh)
            #expect(failing.status == 58, "\(failing.stderrText)")
            #expect(failing.stdout.isEmpty)
            // The server's 400 page is the error's, not output (it used to reach stdout).
            #expect(untrusted.stdout.isEmpty, "\(String(decoding: untrusted.stdout, as: UTF8.self))")
            #expect(none.stdout.isEmpty, "\(String(decoding: none.stdout, as: UTF8.self))")
        }

        @Test(
            "a client identity that cannot be loaded is bad input (2), found before any traffic, and says why, naming the option and file at fault",
            arguments: [
                (["--cert", "GARBAGE", "--cert-type", "P12"], "not a PKCS#12 file", "--cert"),
                (["--cert", "GARBAGE"], "no certificate found", "--cert"),
                (["--cert", "CLIENT_P12:nope"], "wrong password", "--cert"),
                (["--cert", "CLIENT_P12"], "a password is required", "--cert"),
                (["--cert", "CLIENT_CERT", "--key", "CLIENT_ENCRYPTED_KEY"], "no passphrase was given", "--key"),
                (["--cert", "CLIENT_NOKEY_P12:secret"], "has no private key", "--cert"),
                (["--cert", "CLIENT_CERT"], "has no private key (give one with a PEM key file or use a PKCS#12 file that holds it); give its key with --key FILE", "--cert"),
                (["--cert", "CLIENT_CERT", "--key", "CLIENT_EXPIRED_KEY"], "does not belong to the client certificate", "--key"),
                (["--cert", "CLIENT_EXPIRED_CERT", "--key", "CLIENT_EXPIRED_KEY"], "is not valid now", "--cert")
            ])
        func unloadableIdentityExits2(options: [String], reason: String, option: String) async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-identity-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let garbage = directory.appendingPathComponent("garbage")
            try Data("not an identity\n".utf8).write(to: garbage)
            // GARBAGE and the servers' CLIENT_* keys stand for files, a ":PASSWORD" kept after them.
            let resolved = options.map { option in
                let name = option.split(separator: ":", maxSplits: 1).first.map(String.init) ?? option
                let path = name == "GARBAGE" ? garbage.path : name.hasPrefix("CLIENT_") ? fixture.file(name).path : name
                return path + option.dropFirst(name.count)
            }
            let result = try await httpdns(["fetch"] + resolved + [fixture.url("mtls.test").absoluteString] + doh)
            #expect(result.status == 2, "\(resolved): \(result.stderrText)")
            #expect(result.stderrText.hasPrefix("httpdns: "), "\(result.stderrText)")
            #expect(result.stderrText.contains(reason), "\(result.stderrText)")
            // As curl's "could not load client key": the option, then the file it named.
            let value = try #require(resolved.firstIndex(of: option).map { resolved[$0 + 1] })
            let path = value.split(separator: ":", maxSplits: 1).first.map(String.init) ?? value
            #expect(result.stderrText.hasPrefix("httpdns: \(option): "), "\(result.stderrText)")
            #expect(result.stderrText.contains("'\(path)'"), "\(result.stderrText)")
            #expect(result.stderrText.split(separator: "\n").count == 1, "\(result.stderrText)")
            #expect(result.stdout.isEmpty)
        }

        @Test("a wrong password given with --pass names --pass; one given after the file name names the option as typed", arguments: ["--cert", "-E"])
        func wrongPasswordNamesItsOption(option: String) async throws {
            let p12 = fixture.file("CLIENT_P12").path
            let url = fixture.url("mtls.test").absoluteString
            let pass = try await httpdns(["fetch", option, p12, "--pass", "nope", url] + doh)
            #expect(pass.status == 2, "\(pass.stderrText)")
            #expect(pass.stderrText.hasPrefix("httpdns: --pass: cannot open client identity '\(p12)': "), "\(pass.stderrText)")
            #expect(pass.stderrText.contains("wrong password"), "\(pass.stderrText)")
            let inline = try await httpdns(["fetch", option, p12 + ":nope", url] + doh)
            #expect(inline.status == 2, "\(inline.stderrText)")
            #expect(inline.stderrText.hasPrefix("httpdns: \(option): cannot open client identity '\(p12)': "), "\(inline.stderrText)")
        }

        @Test("any other HTTP 400 page over TLS is output as it is, short or long")
        func otherBadRequestPagesAreOutput() async throws {
            let short = try await httpdns(["fetch", fixture.url("a.test", "/status/400").absoluteString] + doh)
            #expect(short.status == 0, "\(short.stderrText)")
            #expect(String(decoding: short.stdout, as: UTF8.self) == "status=400\n")
            let long = try await httpdns(["fetch", fixture.url("a.test", "/status/400/long").absoluteString] + doh)
            #expect(long.status == 0, "\(long.stderrText)")
            // -f: exit 22 and no output, short page or long.
            for path in ["/status/400", "/status/400/long"] {
                let failing = try await httpdns(["fetch", "-f", fixture.url("a.test", path).absoluteString] + doh)
                #expect(failing.status == 22, "\(path): \(failing.stderrText)")
                #expect(failing.stdout.isEmpty, "\(path)")
            }
            #expect(String(decoding: long.stdout, as: UTF8.self) == String(repeating: "status=400 ", count: 200) + "\n")
        }

        @Test("--doh-pinnedpubkey applies to the DoH endpoint only")
        func dohPins() async throws {
            let dnsPin = try fixture.leafCertificate("dns.test").publicKeyPin.description
            let good = try await httpdns(["fetch", "--no-fallback", "--doh-pinnedpubkey", dnsPin, fixture.url("a.test").absoluteString] + doh)
            #expect(good.status == 0, "\(good.stderrText)")
            let bad = try await httpdns(
                [
                    "fetch", "--no-fallback", "--doh-pinnedpubkey", fixture.otherCA[0].publicKeyPin.description,
                    fixture.url("a.test").absoluteString
                ] + doh)
            #expect(bad.status == 6)
            #expect(bad.stderrText.contains("certificate pinning failed for dns.test"))
            // The presented chain reads one certificate per line, as for a target's pin mismatch.
            let dnsLine = dnsPin + "  CN=dns.test"
            #expect(bad.stderrText.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix(dnsLine) }, "\(bad.stderrText)")
        }

        @Test("--doh-cacert trusts a CA for the DoH endpoint without trusting it for targets")
        func dohCACert() async throws {
            let servers = fixture.servers
            let arguments = [
                "--doh-url", servers.dohURL.absoluteString, "--resolve", "dns.test:\(servers.dohPort):127.0.0.1",
                "--doh-cacert", servers.caCertificate.path, "--no-fallback"
            ]
            let result = try await httpdns(["fetch", fixture.url("a.test").absoluteString] + arguments)
            // Resolution worked (the DoH server verified); the target did not (no --cacert).
            #expect(result.status == 60, "\(result.stderrText)")
        }

        @Test("malformed pins and --cert-type are usage errors (2)")
        func usageErrors() async throws {
            #expect(try await httpdns(["fetch", "--pinnedpubkey", "sha256//short", fixture.url("a.test").absoluteString] + doh).status == 2)
            #expect(try await httpdns(["fetch", "--cert-type", "DER", "--cert", "x", fixture.url("a.test").absoluteString] + doh).status == 2)
        }

        @Test(
            "identity options that cannot be honoured are refused (2) before any traffic",
            arguments: [
                ["--cert", ""], ["--cert", "/nonexistent/client.p12:secret"], ["--cert", "/tmp"],
                ["--pass", "secret"], ["--cert-type", "P12"]
            ])
        func identityUsageErrors(options: [String]) async throws {
            let result = try await httpdns(["fetch"] + options + [fixture.url("a.test").absoluteString] + doh)
            #expect(result.status == 2, "\(result.stderrText)")
            #expect(result.stderrText.split(separator: "\n").count == 1)
        }
    }
}
