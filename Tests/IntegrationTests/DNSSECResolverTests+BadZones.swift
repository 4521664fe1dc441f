import Foundation
import HTTPDNS
import Testing
import TestSupport

/// The bad zones of scripts/dnssec-zones.sh served by unbound: each comes out as the typed outcome
/// it must, and drill's chase of the chain (a second validator, over unbound's plain DNS) agrees.
extension DNSSECResolverTests {
    @Test(
        "bad zones fail under require with dnssecBogus naming what failed",
        arguments: [
            ("www.notyet.dnssec.test", AddressFamilies.ipv4, "is valid only from"),
            ("www.dsmismatch.dnssec.test", .ipv4, "no DNSKEY of dsmismatch.dnssec.test matches its DS or trust anchor"),
            ("www.wrongkey.dnssec.test", .ipv4, "no DNSKEY of wrongkey.dnssec.test with key tag"),
            ("nope.nonsec.dnssec.test", .ipv4, "no proof that nope.nonsec.dnssec.test A does not exist"),
            ("nonsec.dnssec.test", .ipv6, "no proof that nonsec.dnssec.test AAAA does not exist")
        ])
    func badZones(host: String, families: AddressFamilies, failure: String) async throws {
        let resolver = try resolver(.require)
        do {
            let resolution = try await resolver.resolve(host: host, port: 443, families: families)
            Issue.record("\(host) resolved to \(resolution.addresses) (\(String(describing: resolution.dnssec)))")
        } catch let error as ResolutionError {
            guard case .dnssecBogus(let name, let reason) = error else {
                Issue.record("\(host): expected dnssecBogus, got \(error)")
                return
            }
            #expect(name == host)
            #expect(reason.contains(failure), "\(host): \(reason)")
        }
    }

    @Test("a zone signed with an algorithm the validator lacks (RSASHA1) is insecure, not bogus (RFC 6840 §5.2), and passes under require")
    func unsupportedAlgorithm() async throws {
        let outcomes = Outcomes()
        let resolver = try resolver(.require, observer: outcomes)
        let resolution = try await resolver.resolve(host: "www.unsupported.dnssec.test", port: 443, families: .ipv4)
        #expect(resolution.addresses == [IPAddress("127.0.0.1")!])
        guard case .insecure(let reason) = resolution.dnssec else {
            Issue.record("expected insecure, got \(String(describing: resolution.dnssec))")
            return
        }
        #expect(reason.contains("unsupported.dnssec.test uses") && reason.contains("RFC 6840 §5.2"), "\(reason)")
        #expect(outcomes.seen.withLock { $0["www.unsupported.dnssec.test"] } == resolution.dnssec)
    }

    @Test(
        "drill's chase from the same anchor agrees: secure where the resolver says secure, a failed chase where it says bogus",
        arguments: [
            ("www.signed.dnssec.test", true), ("www.dnssec.test", true), ("www.tampered.dnssec.test", false),
            ("www.expired.dnssec.test", false), ("www.notyet.dnssec.test", false), ("www.dsmismatch.dnssec.test", false),
            ("www.wrongkey.dnssec.test", false)
        ])
    func secondValidatorAgrees(host: String, secure: Bool) async throws {
        let port = try #require(fixture.servers.environment["DNS_PORT"])
        let anchor = try #require(fixture.servers.environment["DNSSEC_ANCHOR"])
        let drill = try Command.run(URL(fileURLWithPath: "/usr/bin/drill"), ["-p", port, "-S", "-k", anchor, host, "@127.0.0.1"], timeout: 30)
        let resolution = try? await resolver(.report).resolve(host: host, port: 443, families: .ipv4)
        #expect((resolution?.dnssec == .secure) == secure, "\(host): \(String(describing: resolution?.dnssec))")
        #expect(drill.stdoutText.contains(";; Chase successful") == secure, "\(host): drill says\n\(drill.stdoutText)\(drill.stderrText)")
        #expect((drill.status == 0) == secure, "\(host): drill exit \(drill.status)")
        if !secure { #expect(resolution?.dnssec?.name == "bogus", "\(host): \(String(describing: resolution?.dnssec))") }
    }
}
