import Foundation
import Testing
import HTTPDNS
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

extension ResolverIntegrationSuites {
    /// The real `getaddrinfo` path: `httpdns` runs in a mount namespace of the suite's own (`unshare -m`,
    /// needs root) whose `/etc/resolv.conf` points at a plain-DNS server that lies about `a.test`
    /// (`scripts/lying-dns-server.py`) and whose `/etc/hosts` lies about `v4only.test`. The network
    /// namespace is the host's, so nginx and unbound on loopback stay reachable.
    @Suite("system resolver in a namespace with a lying DNS server")
    struct SystemResolverNamespaceTests {
        let fixture: Fixture
        let binary = PackagePaths.builtProduct("httpdns")

        init() throws { fixture = try Fixture() }

        var doh: [String] { fixture.dohOptions }

        /// Runs `httpdns arguments` in the namespace and returns its result; `lies` are more
        /// NAME=IPV4 answers for the lying server, beside a.test's and b.test's.
        func inNamespace(_ arguments: [String], lies: [String] = []) async throws -> CommandResult {
            #expect(getuid() == 0, "unshare -m needs root")
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-ns-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            // A loopback address of its own, so runs in parallel (or other suites) never share port 53.
            let dnsAddress = "127.\(Int.random(in: 100...250)).\(Int.random(in: 1...250)).\(Int.random(in: 1...250))"
            try "nameserver \(dnsAddress)\noptions timeout:2 attempts:2\n".write(to: directory.appendingPathComponent("resolv.conf"), atomically: true, encoding: .utf8)
            try "127.0.0.1 localhost\n127.0.0.7 v4only.test\n".write(to: directory.appendingPathComponent("hosts"), atomically: true, encoding: .utf8)
            let lying = PackagePaths.scripts.appendingPathComponent("lying-dns-server.py").path
            let quoted = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
            let script = """
                set -e
                mount --bind '\(directory.path)/resolv.conf' /etc/resolv.conf
                mount --bind '\(directory.path)/hosts' /etc/hosts
                python3 '\(lying)' \(dnsAddress) a.test=127.0.0.9 b.test=127.0.0.1 \(lies.joined(separator: " ")) </dev/null >'\(directory.path)/dns.out' 2>&1 &
                dns=$!
                for _ in $(seq 100); do grep -q ready '\(directory.path)/dns.out' 2>/dev/null && break; sleep 0.05; done
                set +e
                '\(binary.path)' \(quoted)
                status=$?
                # SIGKILL: the test process may hand its children SIGTERM blocked.
                kill -KILL $dns; wait $dns 2>/dev/null
                exit $status
                """
            return try await Command.runDetached(URL(fileURLWithPath: "/usr/bin/unshare"), ["-m", "--propagation", "private", "/bin/bash", "-c", script], timeout: 60)
        }

        @Test("resolve --compare reports a name the system resolver answers differently (DNS and /etc/hosts), exit 1")
        func compareFindsTheLies() async throws {
            let result = try await inNamespace(["resolve", "--compare", "--type", "A", "a.test", "b.test", "v4only.test"] + doh)
            #expect(result.status == 1, "\(result.stdoutText)\(result.stderrText)")
            let lines = result.stdoutText.split(separator: "\n").map(String.init)
            #expect(lines.contains("a.test disagree trusted=127.0.0.1 system=127.0.0.9"))
            #expect(lines.contains("b.test agree trusted=127.0.0.1 system=127.0.0.1"))
            #expect(lines.contains("v4only.test disagree trusted=127.0.0.1 system=127.0.0.7"))
        }

        @Test("resolve --compare --dnssec on signed zones says which side validates: the system's lie is bogus, and so is a provider's changed address, which the system's answer shows")
        func compareWithProof() async throws {
            let anchor = try #require(fixture.servers.environment["DNSSEC_ANCHOR"])
            let result = try await inNamespace(
                ["resolve", "--compare", "--dnssec", "report", "--trust-anchor", anchor, "--type", "A", "www.signed.dnssec.test", "www.tampered.dnssec.test"] + doh,
                lies: ["www.signed.dnssec.test=127.0.0.9", "www.tampered.dnssec.test=127.0.0.1"])
            #expect(result.status == 1, "\(result.stdoutText)\(result.stderrText)")
            let lines = result.stdoutText.split(separator: "\n").map(String.init)
            #expect(lines.contains("www.signed.dnssec.test disagree trusted=127.0.0.1 system=127.0.0.9 trusted_dnssec=secure system_dnssec=bogus"), "\(lines)")
            #expect(lines.contains("www.tampered.dnssec.test disagree trusted=127.0.0.66 system=127.0.0.1 trusted_dnssec=bogus system_dnssec=secure"), "\(lines)")
            #expect(result.stderrText.contains("www.signed.dnssec.test: the trusted provider's answer validates (secure); the system resolver's does not (bogus: "), "\(result.stderrText)")
            #expect(result.stderrText.contains("www.tampered.dnssec.test: the system resolver's answer validates (secure); the trusted provider's does not (bogus: "), "\(result.stderrText)")
        }

        @Test("resolve --compare exits 0 when every name agrees")
        func compareAllAgree() async throws {
            let result = try await inNamespace(["resolve", "--compare", "--type", "A", "b.test"] + doh)
            #expect(result.status == 0, "\(result.stdoutText)\(result.stderrText)")
        }

        @Test("with the DoH server down, fetch falls back to the real getaddrinfo (here: the lying server's answer)")
        func fallbackThroughGetaddrinfo() async throws {
            let dead = try fixture.deadEndpoint()
            let result = try await inNamespace([
                "fetch", "-v", fixture.url("b.test").absoluteString, "--doh-url", dead.url.absoluteString,
                "--resolve", "dns.test:\(dead.url.port!):127.0.0.1", "--cacert", fixture.servers.caCertificate.path
            ])
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stdoutText == "vhost=b.test\n")
            #expect(result.stderrText.contains("resolved b.test via system, after every DoH endpoint failed: 127.0.0.1"))
            #expect(result.stderrText.contains("asking the system resolver"))
            // -v says why DoH was passed over.
            #expect(result.stderrText.contains("doh endpoint failed for b.test"))
            #expect(result.stderrText.contains(dead.url.absoluteString))
        }

        @Test("the system resolver's NXDOMAIN from the namespace's DNS server is 'could not resolve' (exit 6)")
        func systemNXDOMAIN() async throws {
            let dead = try fixture.deadEndpoint()
            let result = try await inNamespace([
                "resolve", "nope.test", "--doh-url", dead.url.absoluteString,
                "--resolve", "dns.test:\(dead.url.port!):127.0.0.1", "--cacert", fixture.servers.caCertificate.path
            ])
            #expect(result.status == 6)
            #expect(result.stderrText.contains("name does not exist"))
        }
    }
}
