import Foundation
import Testing
import HTTPDNS
import TestSupport

/// HTTPS and SVCB records (RFC 9460) from the suite's unbound, through its DoH endpoint: the records
/// of `scripts/test-servers.sh`'s zone, good and hostile.
@Suite("HTTPS records from unbound's DoH endpoint")
struct ServiceBindingIntegrationTests {
    /// Collects what the resolver reports of dropped records.
    final class DropRecorder: ResolverObserver {
        private let log = LockedValue<[String]>([])
        var dropped: [String] { log.withLock { $0 } }
        func serviceBindingsDropped(host: String, error: ServiceBindingError) { log.withLock { $0.append("\(host): \(error)") } }
    }

    let fixture: Fixture
    let recorder = DropRecorder()

    init() throws { fixture = try Fixture() }

    func resolver() throws -> HostResolver {
        var configuration = HostResolver.Configuration(endpoints: [fixture.endpoint], requestTimeout: TestTimeScale.scaled(3), fallbackToSystemResolver: false)
        configuration.asksForServiceBindings = true
        configuration.observer = recorder
        return try HostResolver(configuration: configuration, dohTrust: fixture.trust)
    }

    @Test("ServiceMode records come with the addresses, in priority order")
    func serviceModeRecords() async throws {
        let resolution = try await resolver().resolve(host: "svc.test", port: 443)
        #expect(resolution.addresses == [IPAddress("127.0.0.1")!])
        #expect(resolution.serviceBindings.map(\.presentationFormat) == ["1 . alpn=h2 port=8443 ipv4hint=127.0.0.1", "2 alt.svc.test. alpn=http/1.1"])
        #expect(resolution.serviceBindingRecords?.name == "svc.test")
        let ttl = try #require(resolution.serviceBindingRecords?.ttl)
        #expect(ttl > 0 && ttl <= 300)
        #expect(recorder.dropped.isEmpty)
    }

    @Test("AliasMode is followed to the target's records")
    func aliasMode() async throws {
        let records = try #require(try await resolver().resolve(host: "alias.svc.test", port: 443).serviceBindingRecords)
        #expect(records.name == "svc.test")
        #expect(records.aliasChain == ["svc.test"])
        #expect(records.records.map(\.priority) == [1, 2])
    }

    @Test("ech is kept as its octets, ipv6hint read")
    func echAndHints() async throws {
        let binding = try #require(try await resolver().resolve(host: "ech.svc.test", port: 443).serviceBindings.first)
        #expect(binding.parameters.ech == [0x00, 0x04, 0xFE, 0x0D, 0x00, 0x00])
        #expect(binding.parameters.ipv6Hints == [IPAddress("::1")!])
        #expect(binding.parameters.alpnProtocols == ["h2", "http/1.1"])
    }

    @Test("an SVCB record with dohpath is read when asked for directly")
    func svcbWithDoHPath() async throws {
        let records = try await resolver().serviceBindings(host: "doh.svc.test", type: .svcb)
        #expect(records.records.map(\.presentationFormat) == ["1 dns.test. alpn=h2 dohpath=/dns-query{?dns}"])
    }

    @Test(
        "a malformed record, a compressed TargetName or an alias loop leave the addresses and are reported",
        arguments: [
            ("bad.svc.test", "SvcParam port has a 1-octet value; it must be exactly 2"),
            ("mandatory.svc.test", "mandatory lists port, which the record does not carry"),
            ("pointer.svc.test", "the TargetName contains a compression pointer"),
            ("loop.svc.test", "AliasMode records loop: loop.svc.test -> loop2.svc.test -> loop.svc.test")
        ])
    func hostileRecords(host: String, reason: String) async throws {
        let resolution = try await resolver().resolve(host: host, port: 443)
        #expect(resolution.addresses == [IPAddress("127.0.0.1")!])
        #expect(resolution.serviceBindingRecords == nil)
        #expect(recorder.dropped.count == 1)
        #expect(recorder.dropped.first?.contains(reason) == true, "\(recorder.dropped)")
    }

    @Test("a name without HTTPS records has none, and that is no failure")
    func noRecords() async throws {
        let resolution = try await resolver().resolve(host: "a.test", port: 443)
        #expect(resolution.serviceBindingRecords?.records == [])
        #expect(recorder.dropped.isEmpty)
    }
}
