@testable import DNSResolver
import DNSWire
import Foundation
import HTTPDNSCore
import Testing

/// The DNS rebinding guard: which addresses are local, which providers' answers are screened, and
/// what a screened answer becomes.
@Suite("DNS rebinding guard")
struct RebindingGuardTests {
    @Test(
        "local addresses: loopback, private, shared, link-local, unique-local, multicast, unspecified, and IPv4-mapped forms of them",
        arguments: [
            "127.0.0.1", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1",
            "255.255.255.255", "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "::ffff:192.168.0.1", "::ffff:127.0.0.1"
        ])
    func local(address: String) {
        #expect(RebindingGuard.isLocal(IPAddress(address)!))
    }

    @Test(
        "public addresses stay, the neighbours of the local ranges included",
        arguments: ["8.8.8.8", "172.15.255.255", "172.32.0.1", "192.169.0.1", "100.128.0.1", "169.253.1.1", "2001:4860:4860::8888", "fec0::1", "::ffff:8.8.8.8", "::2"])
    func notLocal(address: String) {
        #expect(!RebindingGuard.isLocal(IPAddress(address)!))
    }

    @Test("the default screens the built-in public resolvers only; allProviders screens every one; off none")
    func whichProviders() {
        let own = DoHEndpoint(url: URL(string: "https://doh.corp.example/dns-query")!, bootstrapAddresses: [])
        let json = JSONDoHEndpoint(url: URL(string: "https://dns.google/resolve")!, bootstrapAddresses: [])
        for endpoint in DoHEndpoint.wellKnown { #expect(RebindingGuard.publicResolvers.screens(endpoint), "\(endpoint)") }
        #expect(RebindingGuard.publicResolvers.screens(json))
        #expect(!RebindingGuard.publicResolvers.screens(own))
        #expect(RebindingGuard.allProviders.screens(own))
        #expect(!RebindingGuard.off.screens(DoHEndpoint.cloudflare))
    }

    @Test("a mixed answer keeps its public addresses; an answer of only local ones becomes NODATA with its TTL; other outcomes pass")
    func screening() {
        let mixed = RebindingGuard.allProviders.screen(.addresses([IPAddress("192.168.1.1")!, IPAddress("203.0.113.5")!], ttl: 60))
        #expect(mixed.answer == .addresses([IPAddress("203.0.113.5")!], ttl: 60))
        #expect(mixed.dropped == [IPAddress("192.168.1.1")!])
        let local = RebindingGuard.allProviders.screen(.addresses([IPAddress("127.0.0.1")!, IPAddress("::1")!], ttl: 30))
        #expect(local.answer == .noAddresses(negativeTTL: 30))
        #expect(RebindingGuard.allProviders.screen(.nameNotFound(negativeTTL: 5)).answer == .nameNotFound(negativeTTL: 5))
    }

    @Test("through the resolver: a public resolver's answer of 10.0.0.1 is no addresses, with a warning, and the system resolver is not asked")
    func resolver() async throws {
        let zone = FakeZone(hosts: ["evil.test": .init(ipv4: ["10.0.0.1"], ttl: 120), "mixed.test": .init(ipv4: ["10.0.0.2", "198.51.100.7"])])
        let recorder = EventRecorder()
        let system = FakeSystemResolver(addresses: ["10.0.0.1"])
        var configuration = HostResolver.Configuration(endpoints: [DoHEndpoint.cloudflare], families: .ipv4, fallbackToSystemResolver: true)
        configuration.observer = recorder
        let resolver = try HostResolver(configuration: configuration, transport: FakeDoHTransport(zone: zone), systemResolver: system)
        await #expect(throws: ResolutionError.noAddresses(host: "evil.test", negativeTTL: 120)) { try await resolver.resolve(host: "evil.test", port: 443) }
        #expect(try await resolver.resolve(host: "mixed.test", port: 443).addresses == [IPAddress("198.51.100.7")!])
        #expect(recorder.events.contains { $0.contains("warning dropped 10.0.0.1 from cloudflare-dns.com's answer for evil.test") }, "\(recorder.events)")
        #expect(system.lookups.isEmpty)

        configuration.rebindingGuard = .off
        let unguarded = try HostResolver(configuration: configuration, transport: FakeDoHTransport(zone: zone), systemResolver: system)
        #expect(try await unguarded.resolve(host: "evil.test", port: 443).addresses == [IPAddress("10.0.0.1")!])
    }
}

/// `DoHEndpoint.clientSubnet` reaches the wire.
@Suite("DoH client subnet")
struct DoHClientSubnetTests {
    @Test("an endpoint's ECS option goes in both the A and the AAAA query; without one, no option 8")
    func ecsInQueries() async throws {
        let transport = FakeDoHTransport(zone: FakeZone(hosts: ["a.test": .init(ipv4: ["192.0.2.1"], ipv6: ["2001:db8::1"])]))
        var endpoint = DoHEndpoint(url: URL(string: "https://doh.test/dns-query")!, bootstrapAddresses: [])
        endpoint.clientSubnet = try EDNSClientSubnet(address: IPAddress("203.0.113.9")!)
        _ = try await DoHClient(transport: transport).lookup("a.test", families: .both, endpoint: endpoint, timeout: 5)
        let ecs: [UInt8] = [0x00, 0x08, 0x00, 0x07, 0x00, 0x01, 24, 0, 203, 0, 113]
        #expect(transport.requests.count == 2)
        for request in transport.requests {
            #expect(request.query.indices.contains { Array(request.query[$0...].prefix(ecs.count)) == ecs })
        }
        endpoint.clientSubnet = nil
        let plain = FakeDoHTransport(zone: FakeZone(hosts: ["a.test": .init(ipv4: ["192.0.2.1"])]))
        _ = try await DoHClient(transport: plain).lookup("a.test", families: .ipv4, endpoint: endpoint, timeout: 5)
        #expect(!(plain.requests.first?.query.indices.contains { Array(plain.requests[0].query[$0...].prefix(4)) == [0x00, 0x08, 0x00, 0x07] } ?? true))
    }
}

/// The rebinding guard on HTTPS records: an address hint is an address to connect to.
@Suite("Rebinding guard on HTTPS record hints")
struct RebindingGuardHintTests {
    @Test("local addresses leave the records' ipv4hint and ipv6hint (an emptied list goes), public ones stay; other answers pass unchanged")
    func hints() {
        var mixed = ServiceParameters(alpnProtocols: ["h2"], ipv4Hints: [IPAddress("127.0.0.51")!, IPAddress("192.0.2.7")!], ipv6Hints: [IPAddress("fe80::1")!])
        let answer = ServiceBindingAnswer.records(
            [ServiceBinding(priority: 1, targetName: ".", parameters: mixed), ServiceBinding(priority: 2, targetName: ".", parameters: ServiceParameters(alpnProtocols: ["h2"]))],
            owner: "a.test", ttl: 300)
        let screened = RebindingGuard.allProviders.screenHints(answer)
        #expect(screened.dropped == [IPAddress("127.0.0.51")!, IPAddress("fe80::1")!])
        mixed.ipv4Hints = [IPAddress("192.0.2.7")!]
        mixed.ipv6Hints = nil
        guard case .records(let records, "a.test", 300) = screened.answer else {
            Issue.record("\(screened.answer)")
            return
        }
        #expect(records.first?.parameters == mixed)
        #expect(records.last?.parameters == ServiceParameters(alpnProtocols: ["h2"]))
        let none = ServiceBindingAnswer.none(negativeTTL: 30)
        #expect(RebindingGuard.allProviders.screenHints(none).answer == none)
        #expect(RebindingGuard.allProviders.screenHints(none).dropped.isEmpty)
    }
}
