@testable import HTTPTransport
import HTTPDNSCore
import Testing

@Suite("Happy Eyeballs ordering")
struct HappyEyeballsOrderTests {
    @Test func familiesAlternateStartingWithTheFirstAddresssFamily() {
        let addresses = ["2001:db8::1", "2001:db8::2", "2001:db8::3", "192.0.2.1", "192.0.2.2"].map { IPAddress($0)! }
        #expect(HappyEyeballs.interleave(addresses).map(\.description) == ["2001:db8::1", "192.0.2.1", "2001:db8::2", "192.0.2.2", "2001:db8::3"])
        let v4First = ["192.0.2.1", "2001:db8::1"].map { IPAddress($0)! }
        #expect(HappyEyeballs.interleave(v4First) == v4First)
    }

    @Test func aRouteIsNamedForItsHostAndAddressSetWhateverTheOrder() {
        let a = ConnectRoute(host: "a.test", addresses: ["192.0.2.1", "2001:db8::1"].map { IPAddress($0)! }, port: 443)
        let b = ConnectRoute(host: "a.test", addresses: ["2001:db8::1", "192.0.2.1"].map { IPAddress($0)! }, port: 443)
        let c = ConnectRoute(host: "a.test", addresses: ["192.0.2.1"].map { IPAddress($0)! }, port: 443)
        // Another name on the same addresses: its own route, so libcurl counts its connections apart
        // (CURLMOPT_MAX_HOST_CONNECTIONS).
        let d = ConnectRoute(host: "b.test", addresses: ["192.0.2.1", "2001:db8::1"].map { IPAddress($0)! }, port: 443)
        #expect(a.name == b.name)
        #expect(a.name != c.name)
        #expect(a.name != d.name)
        #expect(b.resolveEntry.hasSuffix(":443:[2001:db8::1],192.0.2.1"), "the entry keeps the order to try")
    }
}
