import Foundation
import Glibc
import Testing
import HTTPDNS
@testable import DNSResolver
import TestSupport

extension ResolverIntegrationSuites {
    /// `httpdns resolve` / `probe` additions of the resolver work, run as a user runs them.
    @Suite("httpdns resolve, probe and providers on the command line")
    struct ResolverCLITests {
        let fixture: Fixture
        let binary = PackagePaths.builtProduct("httpdns")

        init() throws { fixture = try Fixture() }

        var doh: [String] { fixture.dohOptions }

        func httpdns(_ arguments: [String]) async throws -> CommandResult {
            try await fixture.httpdns(arguments)
        }

        func jsonLines(_ text: String) -> [[String: Any]] {
            text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }

        @Test("resolve --json reports addresses, ttl, source, provider and latency")
        func resolveJSON() async throws {
            let result = try await httpdns(["resolve", "--json", "a.test"] + doh)
            #expect(result.status == 0, "\(result.stderrText)")
            let object = try #require(jsonLines(result.stdoutText).first)
            #expect(Set(object["addresses"] as? [String] ?? []) == ["127.0.0.1", "::1"])
            #expect(object["provider"] as? String == "doh")
            #expect(object["source"] as? String == "doh")
            #expect((object["latency_ms"] as? Double).map { $0 > 0 } == true)
            #expect(object["stale"] as? Bool == false)
        }

        @Test("options the provider does not take are warned about once each, and resolve and fetch go on")
        func optionsWithoutEffectWarn() async throws {
            let given = ["--account-id", "1", "--key-id", "7", "--secret", "s", "--account-id", "2"]
            let warnings =
                [
                    "httpdns: warning: --account-id has no effect with --provider doh",
                    "httpdns: warning: --secret has no effect with --provider doh",
                    "httpdns: warning: --key-id has no effect with --provider doh"
                ].joined(separator: "\n") + "\n"
            let resolved = try await httpdns(["resolve", "a.test"] + given + doh)
            #expect(resolved.status == 0, "\(resolved.stderrText)")
            #expect(resolved.stderrText == warnings, "\(resolved.stderrText)")
            #expect(resolved.stdoutText.contains("127.0.0.1"), "\(resolved.stdoutText)")
            let fetched = try await httpdns(["fetch", fixture.url("a.test").absoluteString] + given + doh)
            #expect(fetched.status == 0, "\(fetched.stderrText)")
            #expect(fetched.stderrText == warnings, "\(fetched.stderrText)")
            #expect(fetched.stdoutText == "vhost=a.test\n")
            let silent = try await httpdns(["fetch", "-s", fixture.url("a.test").absoluteString] + given + doh)
            #expect(silent.status == 0 && silent.stderrText.isEmpty, "\(silent.stderrText)")
        }

        @Test("resolve -v prints the resolver's events")
        func resolveVerbose() async throws {
            let result = try await httpdns(["resolve", "-v", "a.test"] + doh)
            #expect(result.status == 0)
            #expect(result.stderrText.contains("* resolver: cache miss a.test"))
            #expect(result.stderrText.contains("* resolver: doh \(fixture.servers.dohURL.absoluteString) answered a.test in "))
        }

        @Test("fetch -v prints the resolver's events too")
        func fetchVerbose() async throws {
            let result = try await httpdns(["fetch", "-v", fixture.url("a.test").absoluteString] + doh)
            #expect(result.status == 0)
            #expect(result.stderrText.contains("* resolver: cache miss a.test"))
        }

        @Test("Unicode and trailing-dot names resolve as their A-labels")
        func unicodeNames() async throws {
            let result = try await httpdns(["resolve", "--type", "A", "Bücher.TEST.", "A.test."] + doh)
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stdoutText.contains("xn--bcher-kva.test 127.0.0.1 ttl=300 source=doh"))
            #expect(result.stdoutText.contains("a.test 127.0.0.1 ttl=300 source=doh"))
            let invalid = try await httpdns(["resolve", "bad name.test"] + doh)
            #expect(invalid.status == 2)
            #expect(invalid.stderrText.contains("invalid host name 'bad name.test'"))
        }

        @Test("a host ending in a number is refused before any lookup, with the address it stands for")
        func numericHosts() async throws {
            // Sent to DoH (REFUSED), these went on to getaddrinfo, which read them as addresses.
            let resolve = try await httpdns(["resolve", "-v", "0x7f.1", "2130706433"] + doh)
            #expect(resolve.status == 2)
            #expect(resolve.stderrText.contains("invalid host name '0x7f.1' (an IPv4 address in a legacy form, which is not looked up: write 127.0.0.1)"))
            #expect(!resolve.stderrText.contains("cache miss"), "a lookup started: \(resolve.stderrText)")
            let port = fixture.servers.httpsPort
            let fetch = try await httpdns(["fetch", "https://1.2.3:\(port)/"] + doh)
            #expect(fetch.status != 0 && fetch.stdoutText.isEmpty)
            #expect(fetch.stderrText.contains("invalid host name '1.2.3' (an IPv4 address in a legacy form, which is not looked up: write 1.2.0.3)"), "\(fetch.stderrText)")
        }

        @Test("--provider json, httpdns-ali (signed), httpdns-ali-v2 (HMAC-signed) and httpdns-dnspod (encrypted) with the options each needs")
        func providers() async throws {
            let server = try await ProviderTestServer.shared()
            let common = ["--resolve", "dns.test:\(server.port):127.0.0.1", "--cacert", fixture.servers.caCertificate.path, "--json", "--type", "A"]
            let runs: [(String, [String])] = [
                ("json", ["--provider", "json", "--endpoint", server.url("/resolve").absoluteString]),
                ("httpdns-ali", ["--provider", "httpdns-ali", "--endpoint", server.baseURL.absoluteString, "--account-id", server.accountID, "--secret", server.secret]),
                ("httpdns-ali-v2", ["--provider", "httpdns-ali-v2", "--endpoint", server.baseURL.absoluteString, "--account-id", server.accountID, "--secret", server.v2Secret]),
                ("httpdns-dnspod", ["--provider", "httpdns-dnspod", "--endpoint", server.baseURL.absoluteString, "--key-id", server.keyID, "--alg", "aes", "--secret", server.aesKey])
            ]
            for (kind, options) in runs {
                let result = try await httpdns(["resolve", "b.test"] + options + common)
                #expect(result.status == 0, "\(kind): \(result.stderrText)")
                let object = try #require(jsonLines(result.stdoutText).first)
                #expect(object["provider"] as? String == kind)
                #expect(object["addresses"] as? [String] == ["127.0.0.1"])
            }
            let missing = try await httpdns(["resolve", "b.test", "--provider", "httpdns-ali", "--endpoint", server.baseURL.absoluteString] + common)
            #expect(missing.status == 2)
            #expect(missing.stderrText.contains("--account-id"))
        }

        @Test("--client-ip asks httpdns-ali (ip=) and httpdns-ali-v2 (cip=) for another client's answer; json refuses it")
        func clientAddress() async throws {
            let server = try await ProviderTestServer.shared()
            let common = ["--resolve", "dns.test:\(server.port):127.0.0.1", "--cacert", fixture.servers.caCertificate.path, "--type", "A", "--client-ip", "10.0.0.1"]
            for options in [
                ["--provider", "httpdns-ali", "--account-id", server.accountID], ["--provider", "httpdns-ali-v2", "--account-id", server.accountID]
            ] {
                let result = try await httpdns(["resolve", "a.test", "--endpoint", server.baseURL.absoluteString] + options + common)
                #expect(result.status == 0, "\(options): \(result.stderrText)")
                #expect(result.stdoutText.hasPrefix("a.test 127.0.0.2"), "\(options): \(result.stdoutText)")
            }
            #expect(!server.requests(containing: "/100000/d?host=a.test&query=4&ip=10.0.0.1").isEmpty)
            let refused = try await httpdns(["resolve", "a.test", "--provider", "json", "--client-ip", "10.0.0.1"])
            #expect(refused.status == 2)
            #expect(
                refused.stderrText.contains("--client-ip is for --provider doh (ECS), httpdns-dnspod or httpdns-ali (ip=) or httpdns-ali-v2 (cip=)"),
                "\(refused.stderrText)")
        }

        @Test("--client-ip with doh sends an ECS option that unbound's DoH endpoint takes; a bad prefix is refused")
        func clientSubnet() async throws {
            let result = try await httpdns(["resolve", "a.test", "--type", "A", "--client-ip", "192.0.2.77/24", "-v"] + doh)
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stdoutText.hasPrefix("a.test 127.0.0.1"), "\(result.stdoutText)")
            let bad = try await httpdns(["resolve", "a.test", "--client-ip", "192.0.2.77/33"] + doh)
            #expect(bad.status == 2)
            #expect(bad.stderrText.contains("prefix length must be 0...32 for IPv4, not 33"), "\(bad.stderrText)")
        }

        @Test("--rebinding-guard all drops the test server's loopback answer (exit 6, a warning naming it); the default leaves an endpoint of your own alone")
        func rebindingGuard() async throws {
            let guarded = try await httpdns(["resolve", "a.test", "--type", "A", "--no-fallback", "--rebinding-guard", "all"] + doh)
            #expect(guarded.status == 6, "\(guarded.stdoutText) \(guarded.stderrText)")
            #expect(guarded.stderrText.contains("dropped 127.0.0.1 from"), "\(guarded.stderrText)")
            #expect(guarded.stderrText.contains("DNS rebinding guard"), "\(guarded.stderrText)")
            let plain = try await httpdns(["resolve", "a.test", "--type", "A", "--no-fallback"] + doh)
            #expect(plain.status == 0, "\(plain.stderrText)")
            let wrong = try await httpdns(["resolve", "a.test", "--rebinding-guard", "sometimes"] + doh)
            #expect(wrong.status == 2)
        }

        @Test("--secret-file - reads the secret from standard input, as curl's @-: the signed request is accepted")
        func secretFromStandardInput() async throws {
            let server = try await ProviderTestServer.shared()
            let arguments = [
                "resolve", "a.test", "--provider", "httpdns-ali", "--account-id", server.accountID, "--secret-file", "-", "--endpoint",
                server.baseURL.absoluteString, "--resolve", "dns.test:\(server.port):127.0.0.1", "--cacert", fixture.servers.caCertificate.path,
                "--type", "A", "--no-fallback"
            ]
            let result = try await Command.runDetached(
                URL(fileURLWithPath: "/bin/sh"), ["-c", #"printf '%s\r\n' "$SECRET" | exec "$0" "$@""#, PackagePaths.builtProduct("httpdns").path] + arguments,
                environment: ["SECRET": server.secret, "PATH": "/usr/bin:/bin"], timeout: 60)
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stdoutText.hasPrefix("a.test 127.0.0.1"), "\(result.stdoutText)")
            #expect(!server.requests(containing: "/\(server.accountID)/sign_d?host=a.test").isEmpty)
        }

        @Test("--startup-ip asks the scheduling API for the service IPs and resolves through them; it is refused for other providers")
        func startupIP() async throws {
            let server = try await ProviderTestServer.shared()
            let result = try await httpdns([
                "resolve", "v4only.test", "--provider", "httpdns-ali-v2", "--account-id", server.accountID, "--endpoint", server.baseURL.absoluteString,
                "--startup-ip", "127.0.0.1", "--region", "cn", "--cacert", fixture.servers.caCertificate.path, "--type", "A", "--no-fallback",
                "--secret", server.v2Secret
            ])
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stdoutText.hasPrefix("v4only.test 127.0.0.1"), "\(result.stdoutText)")
            #expect(!server.requests(containing: "/\(server.accountID)/ss?region=cn&n=").isEmpty, "the scheduling request is signed with the account's secret")
            let refused = try await httpdns(["resolve", "a.test", "--provider", "doh", "--startup-ip", "127.0.0.1"])
            #expect(refused.status == 2)
            #expect(refused.stderrText.contains("--startup-ip is for --provider httpdns-ali or httpdns-ali-v2"), "\(refused.stderrText)")
            let badRegion = try await httpdns(["resolve", "a.test", "--provider", "httpdns-ali", "--account-id", "1", "--startup-ip", "127.0.0.1", "--region", "mars"])
            #expect(badRegion.status == 2)
            #expect(badRegion.stderrText.contains("--region"), "\(badRegion.stderrText)")
        }

        @Test("resolve with several names sends them in batches within the provider's limit, printed in order")
        func batchedResolve() async throws {
            let server = try await ProviderTestServer.shared()
            let common = ["--resolve", "dns.test:\(server.port):127.0.0.1", "--cacert", fixture.servers.caCertificate.path, "--type", "A", "--no-fallback"]
            // Alibaba-style: 6 names, the batch API's limit is 5: one resolve of 5, then a d for the sixth.
            let names = ["a.test", "b.test", "v4only.test", "xn--bcher-kva.test", "nodata.test", "ttl0.test"]
            let ali = try await httpdns(
                ["resolve"] + names + ["--provider", "httpdns-ali", "--endpoint", server.baseURL.absoluteString, "--account-id", server.accountID] + common)
            #expect(ali.status == 6, "nodata.test has no address: \(ali.stderrText)")
            #expect(
                ali.stdoutText.split(separator: "\n").map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
                    == ["a.test 127.0.0.1", "b.test 127.0.0.1", "v4only.test 127.0.0.1", "xn--bcher-kva.test 127.0.0.1", "ttl0.test 127.0.0.1"])
            #expect(ali.stdoutText.contains("source=httpdns") && !ali.stdoutText.contains("source=cache"), "\(ali.stdoutText)")
            #expect(server.requests(containing: "/100000/resolve?host=a.test,b.test,v4only.test,xn--bcher-kva.test,nodata.test&").count == 1)
            #expect(server.requests(containing: "/100000/d?host=ttl0.test&").count >= 1)
            // Tencent: all 6 in one request.
            let tencent = try await httpdns(["resolve"] + names + ["--provider", "httpdns-dnspod", "--endpoint", server.baseURL.absoluteString] + common)
            #expect(tencent.status == 6, "\(tencent.stderrText)")
            #expect(tencent.stdoutText.split(separator: "\n").count == 5)
            #expect(server.requests(containing: "/d?dn=a.test,b.test,v4only.test,xn--bcher-kva.test,nodata.test,ttl0.test&").count == 1)
        }

        @Test("--cache-file answers a second run with the DoH server gone")
        func cacheFile() async throws {
            // A directory of its own: the SQLite file's -wal and -shm go with it.
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-cli-cache-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("cache.sqlite")
            #expect(try await httpdns(["resolve", "a.test", "--cache-file", file.path] + doh).status == 0)
            let dead = try fixture.deadEndpoint()
            let second = try await httpdns([
                "resolve", "a.test", "--cache-file", file.path, "--no-fallback", "--doh-url", dead.url.absoluteString,
                "--resolve", "dns.test:\(dead.url.port!):127.0.0.1", "--cacert", fixture.servers.caCertificate.path
            ])
            #expect(second.status == 0, "\(second.stderrText)")
            #expect(second.stdoutText.contains("source=cache"))
        }

        /// `--doh-url` options for an endpoint that accepts connections and never answers.
        func blackHoledDoH() throws -> (options: [String], sockets: [Int32]) {
            let port = try FreePort.tcp()
            let hole = try ResolverIntegrationSuites.HappyEyeballsTests.blackHole("127.0.0.1", port: port)
            return (
                [
                    "--no-fallback", "--doh-url", "https://dns.test:\(port)/dns-query", "--resolve", "dns.test:\(port):127.0.0.1",
                    "--cacert", fixture.servers.caCertificate.path
                ], hole
            )
        }

        @Test("resolve -4 and -6 ask for one family, as --type A and AAAA; the last of them counts")
        func resolveFamilies() async throws {
            let doh = [
                "--doh-url", fixture.servers.dohURL.absoluteString, "--resolve", "dns.test:\(fixture.servers.dohPort):127.0.0.1",
                "--cacert", fixture.servers.caCertificate.path
            ]
            let v4 = try await httpdns(["resolve", "-4", "a.test"] + doh)
            #expect(v4.status == 0, "\(v4.stderrText)")
            #expect(v4.stdoutText.hasPrefix("a.test 127.0.0.1 ") && v4.stdoutText.split(separator: "\n").count == 1, "\(v4.stdoutText)")
            let v6 = try await httpdns(["resolve", "--type", "A", "-6", "a.test"] + doh)
            #expect(v6.stdoutText.hasPrefix("a.test ::1 ") && v6.stdoutText.split(separator: "\n").count == 1, "\(v6.stdoutText)")
            let typeLast = try await httpdns(["resolve", "-6", "--type", "A", "a.test"] + doh)
            #expect(typeLast.stdoutText.hasPrefix("a.test 127.0.0.1 "), "\(typeLast.stdoutText)")
        }

        @Test("resolve -m bounds a lookup at a DoH endpoint that never answers: exit 28, well before the 5 s exchange limit")
        func resolveMaxTime() async throws {
            let (options, hole) = try blackHoledDoH()
            defer { hole.forEach { close($0) } }
            let start = ContinuousClock.now
            let result = try await httpdns(["resolve", "-m", "1", "a.test"] + options)
            #expect(result.status == 28, "\(result.stderrText)")
            #expect(result.stderrText.contains("resolving 'a.test' timed out: -m 1 s passed"), "\(result.stderrText)")
            #expect(ContinuousClock.now - start < .seconds(1 + TestTimeScale.scaled(2.5)))
        }

        @Test("--stale-timeout answers from an expired cache entry when the DoH endpoint does not answer in time, with the stale TTL")
        func staleTimeout() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-cli-cache-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("cache.sqlite")
            #expect(try await httpdns(["resolve", "--type", "A", "a.test", "--cache-file", file.path] + doh).status == 0)
            try SQLiteDatabase(path: file.path, readOnly: false, busyTimeout: 1)
                .execute("UPDATE answers SET expires = \(Date().timeIntervalSince1970 - 100)")
            let (options, hole) = try blackHoledDoH()
            defer { hole.forEach { close($0) } }
            let start = ContinuousClock.now
            let result = try await httpdns(["resolve", "--type", "A", "--stale-timeout", "0.5", "-m", "3", "--cache-file", file.path, "a.test"] + options)
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stdoutText == "a.test 127.0.0.1 ttl=30 source=cache stale\n")
            #expect(ContinuousClock.now - start < .seconds(3 + TestTimeScale.scaled(2.5)))
        }

        @Test("--pre-resolve puts the names in the cache file beside the one resolved")
        func preResolve() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-cli-cache-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("cache.sqlite")
            let result = try await httpdns(["resolve", "--pre-resolve", "b.test,v4only.test", "--cache-file", file.path, "a.test"] + doh)
            #expect(result.status == 0, "\(result.stderrText)")
            let database = try SQLiteDatabase(path: file.path, readOnly: true, busyTimeout: 1)
            let statement = try database.prepare("SELECT DISTINCT name FROM answers ORDER BY name")
            var names: [String] = []
            while try statement.step() { names.append(statement.text(0) ?? "") }
            #expect(names == ["a.test", "b.test", "v4only.test"])
        }

        @Test(
            "bad --stale-timeout, --pre-resolve and -m values are usage errors",
            arguments: [["--stale-timeout", "soon"], ["--stale-timeout", "-1"], ["--pre-resolve", "a..test"], ["--pre-resolve", "a.test,"], ["-m", "x"]])
        func badResolverOptions(_ option: [String]) async throws {
            let result = try await httpdns(["resolve"] + option + ["a.test"] + doh)
            #expect(result.status == 2, "\(result.stderrText)")
            #expect(result.stderrText.contains(option[0]), "\(result.stderrText)")
        }

        @Test("--cache-file in a directory that does not exist yet creates it")
        func cacheFileDirectoryIsCreated() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-cli-cache-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("new/sub/httpdns.json")
            let result = try await httpdns(["resolve", "a.test", "--cache-file", file.path] + doh)
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stderrText.isEmpty)
            #expect(FileManager.default.fileExists(atPath: file.path))
        }

        @Test("a cache-file warning names --cache-file and the file: an absolute path once, a relative one as given, then in full")
        func cacheFileWarningNamesTheOption() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-cli-cache-\(UUID().uuidString)")
            let sub = directory.appendingPathComponent("sub")
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            // A directory as the cache file: not usable, the answers kept in memory.
            let absolute = try await httpdns(["resolve", "a.test", "--cache-file", sub.path] + doh)
            #expect(absolute.status == 0, "\(absolute.stderrText)")
            #expect(absolute.stderrText.hasPrefix("httpdns: warning: --cache-file: not using the cache file \(sub.path): "), "\(absolute.stderrText)")
            #expect(absolute.stderrText.hasSuffix("; answers are kept in memory only\n"), "\(absolute.stderrText)")
            let relative = try await Command.runDetached(
                URL(fileURLWithPath: "/bin/sh"), ["-c", #"cd "$1" && shift && exec "$0" "$@""#, binary.path, directory.path, "resolve", "a.test", "--cache-file", "sub"] + doh,
                timeout: 60)
            #expect(relative.status == 0, "\(relative.stderrText)")
            #expect(relative.stderrText.hasPrefix("httpdns: warning: --cache-file sub: not using the cache file \(sub.path): "), "\(relative.stderrText)")
        }

        @Test("a fallback to the system resolver is reported on stderr even without -v")
        func fallbackIsNeverSilent() async throws {
            let wrongPin = fixture.otherCA[0].publicKeyPin.description
            let result = try await httpdns(["resolve", "a.test", "--doh-pinnedpubkey", wrongPin] + doh)
            let warning = try #require(
                result.stderrText.split(separator: "\n").first { $0.hasPrefix("httpdns: warning: the trusted resolver failed for a.test") },
                "\(result.stderrText)")
            #expect(warning.contains("certificate pinning failed"))
            #expect(warning.hasSuffix("using the system resolver (--no-fallback refuses instead)"))
            let refused = try await httpdns(["resolve", "a.test", "--no-fallback", "--doh-pinnedpubkey", wrongPin] + doh)
            #expect(refused.status == 6)
            #expect(!refused.stderrText.contains("using the system resolver"))
        }

        @Test("probe checks every address: connect, TLS, certificate subject and expiry, status")
        func probe() async throws {
            let result = try await httpdns(["probe", fixture.url("a.test").absoluteString] + doh)
            #expect(result.status == 0, "\(result.stdoutText)\(result.stderrText)")
            let lines = result.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }
            #expect(lines.count == 2)
            for line in lines {
                #expect(line.contains(" ok connect="))
                #expect(line.contains("sni=a.test verified=true"))
                #expect(line.contains("status=200"))
                #expect(line.contains("cert=\"") && line.contains("CN=a.test"))
                #expect(line.contains("expires=20"))
            }
            let wrong = try await httpdns(["probe", fixture.url("wrong.test").absoluteString] + doh)
            #expect(wrong.status == 1)
            // In words, as its message says it, never the Swift case's name.
            #expect(wrong.stdoutText.contains("127.0.0.1 FAILED certificate verification failed for wrong.test"), "\(wrong.stdoutText)")
            #expect(!wrong.stdoutText.contains("certificateVerificationFailed"), "\(wrong.stdoutText)")
        }

        @Test("probe prints one line per address after its '# HOST:' header: a pin mismatch's presented chain stays on the address's line")
        func probePinMismatchOneLine() async throws {
            let wrongPin = "sha256//" + Data(repeating: 0, count: 32).base64EncodedString()
            let result = try await httpdns(["probe", "--pinnedpubkey", wrongPin, fixture.url("a.test").absoluteString] + doh)
            #expect(result.status == 1, "\(result.stdoutText)\(result.stderrText)")
            let lines = result.stdoutText.split(separator: "\n")
            #expect(lines.first?.hasPrefix("# a.test: ") == true, "\(result.stdoutText)")
            #expect(lines.first?.hasSuffix(" (source doh)") == true, "\(result.stdoutText)")
            #expect(lines.dropFirst().first?.hasPrefix("# rank (TCP connect to each): 1. ") == true, "\(result.stdoutText)")
            let addressLines = lines.dropFirst(2)
            #expect(addressLines.count == 2, "\(result.stdoutText)")
            for line in addressLines {
                #expect(line.hasPrefix("127.0.0.1 FAILED pin mismatch") || line.hasPrefix("::1 FAILED pin mismatch"), "\(line)")
            }
        }

        @Test("probe --json names a failed address's failure by its stable name, as its help lists them, beside the message")
        func probeJSONFailure() async throws {
            let result = try await httpdns(["probe", "--json", fixture.url("wrong.test").absoluteString] + doh)
            #expect(result.status == 1)
            let lines = result.stdoutText.split(separator: "\n")
            #expect(!lines.isEmpty, "\(result.stdoutText)\(result.stderrText)")
            for line in lines {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                #expect(object["healthy"] as? Bool == false)
                #expect(object["error"] as? String == HTTPClientError.Kind.certificateVerificationFailed.rawValue)
                #expect((object["message"] as? String)?.hasPrefix("certificate verification failed for wrong.test") == true, "\(line)")
            }
            let help = try await httpdns(["help", "probe"])
            #expect(help.stdoutText.contains("certificateVerificationFailed"), "the help lists the names")
            #expect(!help.stdoutText.contains("HTTPClientError"), "no Swift type name in user docs")
        }

        @Test("probe -m, as fetch's: a resolution still running when it passes is curl's 28, and each address's request is held to it")
        func probeMaxTime() async throws {
            // A DoH endpoint that never completes a connection: probe alone waits its 5 s connect limit.
            let port = try FreePort.tcp()
            let hole = try ResolverIntegrationSuites.HappyEyeballsTests.blackHole("127.0.0.1", port: port)
            defer { hole.forEach { close($0) } }
            let start = ContinuousClock.now
            let resolving = try await httpdns([
                "probe", "-m", "1", "--no-fallback", "--doh-url", "https://dns.test:\(port)/dns-query",
                "--resolve", "dns.test:\(port):127.0.0.1", "--cacert", fixture.servers.caCertificate.path,
                fixture.url("a.test").absoluteString
            ])
            #expect(resolving.status == 28, "\(resolving.stdoutText)\(resolving.stderrText)")
            #expect(resolving.stderrText.contains("resolving 'a.test' timed out: -m 1 s passed"), "\(resolving.stderrText)")
            // -m's 1 s, and slack for starting the process; the endpoint's connect limit is 5 s.
            #expect(ContinuousClock.now - start < .seconds(1 + TestTimeScale.scaled(2.5)), "probe waited past -m")
            // /slow answers after 5 s: each address fails at -m.
            let requests = ContinuousClock.now
            let slow = try await httpdns(["probe", "-m", "1", fixture.url("a.test", "/slow").absoluteString] + doh)
            #expect(slow.status == 1, "\(slow.stdoutText)\(slow.stderrText)")
            #expect(slow.stdoutText.split(separator: "\n").filter { $0.contains(" FAILED timed out: request to ") }.count == 2, "\(slow.stdoutText)")
            #expect(ContinuousClock.now - requests < .seconds(2 + TestTimeScale.scaled(2.5)), "an address's request ran past -m")
        }

        @Test("probe takes fetch's trust options: every address must serve a pinned key")
        func probeWithPins() async throws {
            let leafPin = try fixture.leafCertificate("a.test").publicKeyPin.description
            let pinned = try await httpdns(["probe", "--pinnedpubkey", leafPin, fixture.url("a.test").absoluteString] + doh)
            #expect(pinned.status == 0, "\(pinned.stdoutText)\(pinned.stderrText)")
            #expect(pinned.stdoutText.split(separator: "\n").filter { $0.contains(" ok connect=") }.count == 2)
            let otherPin = fixture.otherCA[0].publicKeyPin.description
            let mismatch = try await httpdns(["probe", "--pinnedpubkey", otherPin, fixture.url("a.test").absoluteString] + doh)
            #expect(mismatch.status == 1)
            #expect(
                mismatch.stdoutText.split(separator: "\n").filter { $0.contains(" FAILED pin mismatch: certificate pinning failed for a.test") }.count == 2,
                "\(mismatch.stdoutText)")
            let missingIdentity = try await httpdns(["probe", "--cert", "/nonexistent/client.p12", fixture.url("a.test").absoluteString] + doh)
            #expect(missingIdentity.status == 2)
        }
    }
}
