import Foundation
import HTTPDNSCore
@testable import DNSResolver
import Testing

/// Discovery of Designated Resolvers (RFC 9462): which `_dns.resolver.arpa` SVCB records designate a
/// DoH server this client can use, and how unencrypted resolvers are named.
@Suite("Designated resolver records and servers")
struct DesignatedResolverRecordsTests {
    static let server = PlainDNSServer(address: IPAddress("192.0.2.53")!)

    static func record(
        _ priority: UInt16, _ target: String, alpn: [String] = ["h2"], port: UInt16? = nil, path: String? = "/dns-query{?dns}", hints: [String] = [], mandatory: [ServiceParameterKey]? = nil
    ) -> ServiceBinding {
        var parameters = ServiceParameters(alpnProtocols: alpn, port: port, ipv4Hints: hints.isEmpty ? nil : hints.map { IPAddress($0)! })
        parameters.dohPath = path
        parameters.mandatory = mandatory
        return ServiceBinding(priority: priority, targetName: target, parameters: parameters)
    }

    @Test("usable records come best priority first, as https://TARGET:PORT and the dohpath, with their hints")
    func order() {
        var reasons: [String] = []
        let usable = DesignatedResolverRecords.usable(
            [Self.record(2, "b.example.", port: 8443), Self.record(1, "a.example.", hints: ["192.0.2.1"]), Self.record(2, "c.example.")], reasons: &reasons, server: Self.server)
        #expect(usable.map(\.url.absoluteString) == ["https://a.example:443/dns-query", "https://b.example:8443/dns-query", "https://c.example:443/dns-query"])
        #expect(usable.map(\.target) == ["a.example", "b.example", "c.example"])
        #expect(usable[0].hints == [IPAddress("192.0.2.1")!])
        #expect(reasons.isEmpty)
    }

    @Test(
        "records that cannot designate a DoH server this client can verify and use are passed over, each with its reason",
        arguments: [
            (record(0, "a.example."), "AliasMode"),
            (record(1, "."), "the TargetName must name the designated resolver"),
            (record(1, "resolver.arpa."), "the TargetName must name the designated resolver"),
            (record(1, "a.example.", port: 0), "port 0"),
            (record(1, "a.example.", alpn: ["h3"]), "alpn h3: neither h2 nor http/1.1"),
            (record(1, "a.example.", alpn: ["dot"], path: nil), "alpn dot"),
            (record(1, "a.example.", path: nil), "no dohpath: not a DoH server"),
            (record(1, "a.example.", mandatory: [ServiceParameterKey(rawValue: 9)]), "mandatory key"),
            (record(1, "a.example.", mandatory: [.ech]), "mandatory key")
        ])
    func passedOver(record: ServiceBinding, reason: String) {
        var reasons: [String] = []
        #expect(DesignatedResolverRecords.usable([record], reasons: &reasons, server: Self.server).isEmpty)
        #expect(reasons.count == 1)
        #expect(reasons.first?.hasPrefix("192.0.2.53:53: ") == true, "\(reasons)")
        #expect(reasons.first?.contains(reason) == true, "\(reasons)")
    }

    @Test("an http/1.1-only designation is usable: the client speaks it")
    func http11() {
        var reasons: [String] = []
        #expect(DesignatedResolverRecords.usable([Self.record(1, "a.example.", alpn: ["http/1.1"])], reasons: &reasons, server: Self.server).count == 1)
    }

    @Test("resolv.conf: nameserver lines in order, without duplicates, comments and zoned IPv6 addresses")
    func resolvConf() {
        let text = "# generated\r\nsearch example.com\nnameserver 192.0.2.53\nnameserver\t2001:db8::53\n;nameserver 192.0.2.9\nnameserver fe80::1%eth0\nnameserver 192.0.2.53\noptions edns0\n"
        #expect(PlainDNSServer.parse(resolvConf: text) == [PlainDNSServer(address: IPAddress("192.0.2.53")!), PlainDNSServer(address: IPAddress("2001:db8::53")!)])
    }

    @Test("an unreadable resolv.conf is a clear error naming the file")
    func unreadableResolvConf() {
        #expect {
            try PlainDNSServer.system(resolvConf: "/nonexistent/resolv.conf")
        } throws: { error in
            "\(error)".contains("/nonexistent/resolv.conf") && "\(error)".hasPrefix("no system resolver to upgrade")
        }
    }

    @Test(
        "servers are named ADDRESS, IPV4:PORT or [IPV6]:PORT",
        arguments: [
            ("192.0.2.53", "192.0.2.53", 53), ("192.0.2.53:5353", "192.0.2.53", 5353), ("2001:db8::53", "2001:db8::53", 53), ("[2001:db8::53]:5353", "2001:db8::53", 5353)
        ])
    func parsing(text: String, address: String, port: Int) {
        #expect(PlainDNSServer(parsing: text) == PlainDNSServer(address: IPAddress(address)!, port: port))
    }

    @Test("anything else is no server", arguments: ["system", "dns.example", "192.0.2.53:0", "192.0.2.53:65536", "[192.0.2.53]:53", "2001:db8::53:x", ""])
    func badServers(text: String) {
        #expect(PlainDNSServer(parsing: text) == nil)
    }
}
