import Foundation
import HTTPDNSCore
import Testing
@testable import HTTPTransport

@Suite("What an HTTPS record changes about a request")
struct ServiceBindingRouteTests {
    private func records(_ bindings: [ServiceBinding], name: String = "svc.test") -> ServiceBindingRecords {
        ServiceBindingRecords(name: name, records: bindings, ttl: 300)
    }

    private func plan(_ bindings: [ServiceBinding], port: Int = 443, version: HTTPVersionPreference = .http2) -> ServiceBindingRoute? {
        ServiceBindingRoute(records: records(bindings), host: "svc.test", port: port, version: version)
    }

    @Test("the record's port is connected to while the origin's port stays the URL's")
    func port() throws {
        let route = try #require(plan([ServiceBinding(priority: 1, targetName: "", parameters: ServiceParameters(alpnProtocols: ["h2"], port: 8443))]))
        #expect(route.port == 8443 && route.originPort == 443)
        #expect(route.targetName == "svc.test" && route.changesConnection)
        // h2 and the default http/1.1: the client's own choice stands.
        #expect(route.alpn == ["h2", "http/1.1"] && route.httpVersion == nil)
    }

    @Test("the first usable record by priority is chosen")
    func priority() throws {
        let route = try #require(
            plan([
                ServiceBinding(priority: 1, targetName: "", parameters: ServiceParameters(port: 0)),
                ServiceBinding(priority: 2, targetName: "alt.svc.test", parameters: ServiceParameters(alpnProtocols: ["http/1.1"]))
            ]))
        #expect(route.record?.priority == 2)
        #expect(route.targetName == "alt.svc.test" && route.port == 443)
        #expect(route.httpVersion == .http1_1)
        #expect(route.notes == ["HTTPS record priority 1 rejected: port 0"])
    }

    @Test("after a record whose endpoint failed, the next usable one is chosen; after the last, none")
    func afterFailed() throws {
        let first = ServiceBinding(priority: 1, targetName: "", parameters: ServiceParameters(port: 9))
        let hostile = ServiceBinding(priority: 2, targetName: "", parameters: ServiceParameters(port: 0))
        let last = ServiceBinding(priority: 3, targetName: "alt.svc.test", parameters: ServiceParameters(port: 8443))
        let all = records([first, hostile, last])
        let next = try #require(ServiceBindingRoute(records: all, host: "svc.test", port: 443, version: .http2, after: first))
        #expect(next.record == last && next.port == 8443 && next.targetName == "alt.svc.test")
        #expect(next.notes == ["HTTPS record priority 2 rejected: port 0"])
        let none = try #require(ServiceBindingRoute(records: all, host: "svc.test", port: 443, version: .http2, after: last))
        #expect(none.record == nil && none.port == 443)
    }

    @Test("port 0 is rejected and the origin's port is kept")
    func portZero() throws {
        let route = try #require(plan([ServiceBinding(priority: 1, targetName: "", parameters: ServiceParameters(port: 0))]))
        #expect(route.record == nil && route.port == 443 && !route.changesConnection)
        #expect(route.notes.first == "HTTPS record priority 1 rejected: port 0")
        #expect(route.notes.last == "no usable HTTPS record: connecting to svc.test's addresses on port 443")
        #expect(route.description == "no HTTPS record used")
    }

    @Test("hints of the wrong family are rejected: an IPv6 address as ipv4hint, an IPv4-mapped one as ipv6hint")
    func wrongFamilyHints() throws {
        let v6InV4 = try #require(plan([ServiceBinding(priority: 1, targetName: "", parameters: ServiceParameters(ipv4Hints: [IPAddress("::1")!]))]))
        #expect(v6InV4.record == nil && v6InV4.notes.first == "HTTPS record priority 1 rejected: ipv4hint holds the IPv6 address ::1")
        let mapped = try #require(plan([ServiceBinding(priority: 1, targetName: "", parameters: ServiceParameters(ipv6Hints: [IPAddress("::ffff:127.0.0.1")!]))]))
        #expect(mapped.record == nil && mapped.notes.first?.hasPrefix("HTTPS record priority 1 rejected: ipv6hint holds the IPv4 address") == true)
    }

    @Test("h3 is skipped and said; h3 alone with no-default-alpn leaves nothing to speak")
    func http3() throws {
        let mixed = try #require(plan([ServiceBinding(priority: 1, targetName: "", parameters: ServiceParameters(alpnProtocols: ["h3", "h2"]))]))
        #expect(mixed.alpn == ["h2", "http/1.1"])
        #expect(mixed.notes == ["HTTPS record priority 1: h3 skipped (this libcurl has no HTTP/3)"])
        let only = try #require(plan([ServiceBinding(priority: 1, targetName: "", parameters: ServiceParameters(alpn: [Array("h3".utf8)], noDefaultALPN: true))]))
        #expect(only.record == nil)
        #expect(only.notes.first == "HTTPS record priority 1 rejected: alpn h3 offers no h2 or http/1.1")
    }

    @Test("no-default-alpn with h2 asks for HTTP/2, and cannot serve a request that wants HTTP/1.1")
    func noDefaultALPN() throws {
        let binding = ServiceBinding(priority: 1, targetName: "", parameters: ServiceParameters(alpn: [Array("h2".utf8)], noDefaultALPN: true))
        let h2 = try #require(plan([binding]))
        #expect(h2.alpn == ["h2"] && h2.httpVersion == .http2)
        let http1 = try #require(plan([binding], version: .http1_1))
        #expect(http1.record == nil)
        #expect(http1.notes.first == "HTTPS record priority 1 rejected: alpn h2 offers no http/1.1 (HTTP/1.1 was asked for)")
    }

    @Test("a mandatory key this client does not know, or ech, makes the record unusable (RFC 9460 §8)")
    func mandatory() throws {
        let unknown = try #require(
            plan([ServiceBinding(priority: 1, targetName: "", parameters: ServiceParameters(mandatory: [ServiceParameterKey(rawValue: 99)], unknown: [ServiceParameterKey(rawValue: 99): [1]]))]))
        #expect(unknown.notes.first == "HTTPS record priority 1 rejected: mandatory key key99 is not supported")
        let ech = try #require(plan([ServiceBinding(priority: 1, targetName: "", parameters: ServiceParameters(mandatory: [.ech], ech: [0, 1]))]))
        #expect(ech.notes.first == "HTTPS record priority 1 rejected: ech is mandatory and OpenSSL 3.0 has no Encrypted ClientHello")
        #expect(!ServiceBindingRoute.upgradesToHTTPS(records: records([ServiceBinding(priority: 1, targetName: "", parameters: ServiceParameters(mandatory: [.ech], ech: [0, 1]))]), port: 80))
    }

    @Test("ech is exposed, not used, and said so; hints are kept for the TargetName")
    func echAndHints() throws {
        let route = try #require(
            plan([ServiceBinding(priority: 1, targetName: "", parameters: ServiceParameters(ech: [0, 4, 0xFE, 0x0D], ipv6Hints: [IPAddress("::1")!]))]))
        #expect(route.echConfigList == [0, 4, 0xFE, 0x0D])
        // No alpn: only the default http/1.1 is offered (RFC 9460 §7.1.1), so HTTP/1.1 is used.
        #expect(route.alpn == ["http/1.1"] && route.httpVersion == .http1_1)
        #expect(route.addressHints == [IPAddress("::1")!])
        #expect(route.notes == ["HTTPS record priority 1: ech not used (OpenSSL 3.0 has no Encrypted ClientHello)"])
        #expect(route.description == "HTTPS record priority 1: port 443 (unchanged), alpn http/1.1 (HTTP/1.1), hints ::1 not needed, ech 4 octets (not used)")
    }

    @Test("TargetName '.' after an alias is the alias target, not the origin")
    func aliasOwner() throws {
        let route = try #require(
            ServiceBindingRoute(records: records([ServiceBinding(priority: 1, targetName: "")], name: "cdn.test"), host: "www.test", port: 443, version: .http2))
        #expect(route.targetName == "cdn.test")
    }

    @Test("records apply to port 443 only: another port's are _PORT._https.NAME's (RFC 9460 §9.1)")
    func otherPort() {
        #expect(plan([ServiceBinding(priority: 1, targetName: "", parameters: ServiceParameters(port: 8443))], port: 8443) == nil)
        #expect(plan([]) == nil)
    }

    @Test("http on port 80 is upgraded when a compatible ServiceMode record exists (RFC 9460 §9.5)")
    func upgrade() {
        let usable = records([ServiceBinding(priority: 1, targetName: "")])
        #expect(ServiceBindingRoute.upgradesToHTTPS(records: usable, port: 80))
        #expect(!ServiceBindingRoute.upgradesToHTTPS(records: usable, port: 8080))
        #expect(!ServiceBindingRoute.upgradesToHTTPS(records: records([]), port: 80))
        #expect(ServiceBindingRoute.upgradedURL(URL(string: "http://svc.test:80/a?b=1")!)?.absoluteString == "https://svc.test/a?b=1")
        #expect(ServiceBindingRoute.upgradedURL(URL(string: "http://svc.test/")!)?.absoluteString == "https://svc.test/")
    }

    @Test("the description names what changed")
    func description() throws {
        var route = try #require(
            plan([ServiceBinding(priority: 1, targetName: "alt.svc.test", parameters: ServiceParameters(alpnProtocols: ["h2"], port: 8443, ipv4Hints: [IPAddress("127.0.0.1")!]))]))
        route.usedAddressHints = true
        route.upgradedToHTTPS = true
        #expect(route.description == "HTTPS record priority 1: upgraded http to https, port 8443 (not 443), alpn h2,http/1.1, target alt.svc.test, hints 127.0.0.1 used")
    }
}
