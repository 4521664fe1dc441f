import Foundation
import HTTPDNS
import Synchronization
import Testing
import TestSupport

/// Validated lookups (RFC 4035 §5) against unbound serving zones signed at server start
/// (scripts/dnssec-zones.sh) behind its DoH endpoint, with `dnssec.test.`'s KSK as the trust anchor.
/// unbound does not validate: it hands out the signed data with CD, and the resolver judges it.
@Suite("DNSSEC-validated lookups over DoH")
struct DNSSECResolverTests {
    let fixture: Fixture
    let anchors: [TrustAnchor]

    init() throws {
        fixture = try Fixture()
        let file = try #require(fixture.servers.environment["DNSSEC_ANCHOR"])
        anchors = try TrustAnchor.parse(String(contentsOfFile: file, encoding: .utf8), source: file)
    }

    /// Records each outcome the observer is told of.
    final class Outcomes: ResolverObserver {
        let seen = Mutex<[String: DNSSECStatus]>([:])
        func dnssecValidated(host: String, status: DNSSECStatus) { seen.withLock { $0[host] = status } }
    }

    func resolver(_ policy: HostResolver.DNSSECSettings.Policy, observer: Outcomes? = nil, anchors: [TrustAnchor]? = nil) throws -> HostResolver {
        var configuration = HostResolver.Configuration(endpoints: [fixture.endpoint], requestTimeout: TestTimeScale.scaled(5), fallbackToSystemResolver: false)
        configuration.dnssec = HostResolver.DNSSECSettings(policy: policy, trustAnchors: anchors ?? self.anchors)
        configuration.observer = observer
        return try HostResolver(configuration: configuration, dohTrust: fixture.trust)
    }

    @Test("a signed name under the anchor is secure, and so is a signed child with its DS (NSEC3): CNAMEs link by link, wildcards with their proofs")
    func secure() async throws {
        let outcomes = Outcomes()
        let resolver = try resolver(.require, observer: outcomes)
        for host in ["www.dnssec.test", "www.signed.dnssec.test", "alias.dnssec.test", "alias.signed.dnssec.test", "x.wild.dnssec.test", "x.wild.signed.dnssec.test"] {
            let resolution = try await resolver.resolve(host: host, port: 443, families: .both)
            #expect(resolution.dnssec == .secure, "\(host): \(String(describing: resolution.dnssec))")
            // The wildcards hold an A only: their AAAA is a secure wildcard NODATA.
            let expected: Set = host.contains(".wild.") ? [IPAddress("127.0.0.1")!] : [IPAddress("127.0.0.1")!, IPAddress("::1")!]
            #expect(Set(resolution.addresses) == expected, "\(host)")
            #expect(outcomes.seen.withLock { $0[host] } == .secure, "\(host)")
        }
    }

    @Test("an unsigned child without DS is insecure (the parent's signed NSEC proves it) and passes under require")
    func insecure() async throws {
        let resolver = try resolver(.require)
        let resolution = try await resolver.resolve(host: "www.unsigned.dnssec.test", port: 443, families: .both)
        guard case .insecure(let reason) = resolution.dnssec else {
            Issue.record("expected insecure, got \(String(describing: resolution.dnssec))")
            return
        }
        #expect(reason.contains("unsigned.dnssec.test"))
        #expect(resolution.addresses.contains(IPAddress("127.0.0.1")!))
    }

    @Test("NXDOMAIN and NODATA with NSEC and NSEC3 proofs are secure denials")
    func denials() async throws {
        let outcomes = Outcomes()
        let resolver = try resolver(.require, observer: outcomes)
        for host in ["nope.dnssec.test", "nope.signed.dnssec.test"] {
            await #expect(throws: ResolutionError.nameNotFound(host: host, negativeTTL: 60)) {
                try await resolver.resolve(host: host, port: 443, families: .both)
            }
            #expect(outcomes.seen.withLock { $0[host] } == .secure, "\(host)")
        }
        let v4 = try await resolver.resolve(host: "ns.dnssec.test", port: 443, families: .both)
        #expect(v4.addresses == [IPAddress("127.0.0.1")!])
        #expect(v4.dnssec == .secure, "NODATA for AAAA beside a signed A: \(String(describing: v4.dnssec))")
    }

    @Test(
        "expired and tampered signatures are bogus: the lookup fails under require, naming what failed",
        arguments: [
            ("www.expired.dnssec.test", "expired"), ("www.tampered.dnssec.test", "does not verify")
        ])
    func bogusUnderRequire(host: String, failure: String) async throws {
        let resolver = try resolver(.require)
        do {
            let resolution = try await resolver.resolve(host: host, port: 443, families: .both)
            Issue.record("\(host) resolved to \(resolution.addresses) (\(String(describing: resolution.dnssec)))")
        } catch let error as ResolutionError {
            guard case .dnssecBogus(let name, let reason) = error else {
                Issue.record("expected dnssecBogus, got \(error)")
                return
            }
            #expect(name == host)
            #expect(reason.contains(failure), "\(reason)")
            #expect(error.description.contains("DNSSEC"))
        }
    }

    @Test("under report a bogus answer is returned, marked bogus, and the observer is told")
    func bogusUnderReport() async throws {
        let outcomes = Outcomes()
        let resolver = try resolver(.report, observer: outcomes)
        let resolution = try await resolver.resolve(host: "www.tampered.dnssec.test", port: 443, families: .ipv4)
        #expect(resolution.addresses == [IPAddress("127.0.0.66")!])
        guard case .bogus(let reason) = resolution.dnssec else {
            Issue.record("expected bogus, got \(String(describing: resolution.dnssec))")
            return
        }
        #expect(reason.contains("www.tampered.dnssec.test"))
        #expect(outcomes.seen.withLock { $0["www.tampered.dnssec.test"] } == resolution.dnssec)
    }

    @Test("a name no anchor leads to is indeterminate, and the existing unsigned test. zone still resolves")
    func indeterminate() async throws {
        let resolver = try resolver(.require)
        let resolution = try await resolver.resolve(host: "a.test", port: 443, families: .both)
        guard case .indeterminate = resolution.dnssec else {
            Issue.record("expected indeterminate, got \(String(describing: resolution.dnssec))")
            return
        }
        #expect(resolution.addresses.contains(IPAddress("127.0.0.1")!))
    }

    /// A DoH provider that lies: each response of unbound goes through `rewrite` (parsed, changed,
    /// encoded again) before the resolver sees it.
    struct LyingTransport: DoHTransport {
        let real: any DoHTransport
        let rewrite: @Sendable (inout DNSMessage) -> Void

        func send(
            url: URL, method: String, headers: [(String, String)], body: Data?, connectTo: [IPAddress], timeout: TimeInterval, maxResponseBytes: Int
        ) async throws -> DoHHTTPResponse {
            var response = try await real.send(
                url: url, method: method, headers: headers, body: body, connectTo: connectTo, timeout: timeout, maxResponseBytes: maxResponseBytes)
            var message = try DNSMessage(parsing: response.body)
            rewrite(&message)
            response.body = Data(try message.encoded())
            return response
        }
    }

    func lyingResolver(_ rewrite: @escaping @Sendable (inout DNSMessage) -> Void) throws -> HostResolver {
        var configuration = HostResolver.Configuration(endpoints: [fixture.endpoint], requestTimeout: TestTimeScale.scaled(5), fallbackToSystemResolver: false)
        configuration.dnssec = HostResolver.DNSSECSettings(policy: .require, trustAnchors: anchors)
        let client = try HTTPClient(configuration: HTTPClient.Configuration(trust: fixture.trust), resolver: SystemResolver())
        return try HostResolver(configuration: configuration, transport: LyingTransport(real: client, rewrite: rewrite))
    }

    func expectBogus(_ resolver: HostResolver, _ host: String, _ words: String) async {
        do {
            let resolution = try await resolver.resolve(host: host, port: 443, families: .ipv4)
            Issue.record("\(host) resolved to \(resolution.addresses) (\(String(describing: resolution.dnssec)))")
        } catch {
            guard case ResolutionError.dnssecBogus(_, let reason) = error else {
                Issue.record("expected dnssecBogus, got \(error)")
                return
            }
            #expect(reason.contains(words), "\(reason)")
        }
    }

    @Test("a provider that strips the RRSIGs, or forges the signer or the DS proof, is caught: bogus, never insecure or indeterminate")
    func lyingProvider() async throws {
        // Stripped signatures: the zone proves www is no unsigned delegation.
        let stripped = try lyingResolver { message in
            if message.questions.first?.type == .a { message.answers.removeAll { $0.type == .rrsig } }
        }
        await expectBogus(stripped, "www.signed.dnssec.test", "is no delegation")
        // The same at a zone apex: the parent's signed DS says the zone is signed.
        await expectBogus(stripped, "signed.dnssec.test", "has a DS, so its zone is signed")

        // Every signature removed and the DS denied, unsigned: the anchor's own zone cannot be unsigned.
        let denied = try lyingResolver { message in
            message.answers.removeAll { $0.type == .rrsig }
            if message.questions.first?.type == .ds {
                message.answers.removeAll()
                message.authorities.removeAll { $0.type == .rrsig || $0.type == .nsec || $0.type == .nsec3 }
            }
        }
        await expectBogus(denied, "www.signed.dnssec.test", "trust anchor")

        // An RRSIG claiming to be by a zone above the anchor (it would lead nowhere: indeterminate).
        let above = try lyingResolver { message in
            guard message.questions.first?.type == .a else { return }
            for index in message.answers.indices where message.answers[index].type == .rrsig {
                guard case .rrsig(var rrsig)? = try? message.answers[index].dnssecData() else { continue }
                rrsig.signerName = "test"
                message.answers[index] = try! DNSResourceRecord(name: message.answers[index].name, ttl: message.answers[index].ttl, dnssec: .rrsig(rrsig))
            }
        }
        await expectBogus(above, "www.dnssec.test", "names signer test")
    }

    /// Counts the queries sent, by type, and whether each had CD set.
    final class QueryLog: Sendable {
        let queries = Mutex<[(type: DNSRecordType, checkingDisabled: Bool)]>([])
        func record(_ url: URL) {
            guard let value = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "dns" })?.value else { return }
            var text = value.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while text.count % 4 != 0 { text += "=" }
            guard let bytes = Data(base64Encoded: text), let query = try? DNSMessage(parsing: bytes), let type = query.questions.first?.type else { return }
            queries.withLock { $0.append((type, query.checkingDisabled)) }
        }
    }

    struct LoggingTransport: DoHTransport {
        let real: any DoHTransport
        let log: QueryLog

        func send(
            url: URL, method: String, headers: [(String, String)], body: Data?, connectTo: [IPAddress], timeout: TimeInterval, maxResponseBytes: Int
        ) async throws -> DoHHTTPResponse {
            log.record(url)
            return try await real.send(url: url, method: method, headers: headers, body: body, connectTo: connectTo, timeout: timeout, maxResponseBytes: maxResponseBytes)
        }
    }

    @Test("queries carry CD; the chain (DNSKEY and DS of the child, DNSKEY of the anchor's zone) is fetched once and then cached")
    func chainIsCached() async throws {
        let log = QueryLog()
        var configuration = HostResolver.Configuration(endpoints: [fixture.endpoint], requestTimeout: TestTimeScale.scaled(5), fallbackToSystemResolver: false)
        configuration.families = .ipv4
        configuration.dnssec = HostResolver.DNSSECSettings(policy: .require, trustAnchors: anchors)
        let client = try HTTPClient(configuration: HTTPClient.Configuration(trust: fixture.trust), resolver: SystemResolver())
        let resolver = try HostResolver(configuration: configuration, transport: LoggingTransport(real: client, log: log))
        let first = try await resolver.resolve(host: "www.signed.dnssec.test", port: 443)
        #expect(first.dnssec == .secure)
        let cold = log.queries.withLock { $0 }
        #expect(cold.map(\.type.rawValue).sorted() == [DNSRecordType.a, .ds, .dnskey, .dnskey].map(\.rawValue).sorted(), "\(cold)")
        #expect(cold.allSatisfy { $0.checkingDisabled })
        let second = try await resolver.resolve(host: "alias.signed.dnssec.test", port: 443)
        #expect(second.dnssec == .secure)
        #expect(log.queries.withLock { $0.count } == cold.count + 1, "a warm chain: the address query alone")
    }

    @Test("a wrong anchor makes the chain bogus (DS mismatch); policy off sends no DO and gives no status")
    func wrongAnchorAndOff() async throws {
        let other = try #require(anchors.first)
        guard case .ds(var ds) = other.key else {
            Issue.record("the anchor file holds a DS")
            return
        }
        ds.digest[0] ^= 0xFF
        let resolver = try resolver(.require, anchors: [TrustAnchor(zone: other.zone, key: .ds(ds))])
        do {
            _ = try await resolver.resolve(host: "www.dnssec.test", port: 443, families: .ipv4)
            Issue.record("resolved with a wrong anchor")
        } catch let error as ResolutionError {
            guard case .dnssecBogus(_, let reason) = error else {
                Issue.record("expected dnssecBogus, got \(error)")
                return
            }
            #expect(reason.contains("matches its DS or trust anchor"), "\(reason)")
        }
        let off = try self.resolver(.off)
        let plain = try await off.resolve(host: "www.tampered.dnssec.test", port: 443, families: .ipv4)
        #expect(plain.dnssec == nil)
        #expect(plain.addresses == [IPAddress("127.0.0.66")!])
    }
}
