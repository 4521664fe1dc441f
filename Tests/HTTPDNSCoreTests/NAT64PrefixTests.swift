import Testing
import HTTPDNSCore

@Suite("NAT64 prefix (RFC 6052)")
struct NAT64PrefixTests {
    /// RFC 6052 §2.4's table: 192.0.2.33 embedded in a prefix of each length.
    static let vectors: [(prefix: String, embedded: String)] = [
        ("2001:db8::/32", "2001:db8:c000:221::"),
        ("2001:db8:100::/40", "2001:db8:1c0:2:21::"),
        ("2001:db8:122::/48", "2001:db8:122:c000:2:2100::"),
        ("2001:db8:122:300::/56", "2001:db8:122:3c0:0:221::"),
        ("2001:db8:122:344::/64", "2001:db8:122:344:c0:2:2100:0"),
        ("2001:db8:122:344::/96", "2001:db8:122:344::192.0.2.33"),
        ("64:ff9b::/96", "64:ff9b::192.0.2.33")
    ]

    @Test("§2.4 test vectors: 192.0.2.33 synthesized in each prefix length, and extracted back", arguments: vectors)
    func embedsAndExtracts(_ vector: (prefix: String, embedded: String)) throws {
        let prefix = try #require(NAT64Prefix(vector.prefix))
        let ipv4 = IPAddress("192.0.2.33")!
        #expect(prefix.synthesize(ipv4) == IPAddress(vector.embedded))
        #expect(prefix.extract(IPAddress(vector.embedded)!) == ipv4)
        #expect(prefix.description == vector.prefix)
    }

    @Test("lengths other than 32, 40, 48, 56, 64, 96, IPv4 prefixes and a /96 with a non-zero u octet are refused")
    func refused() {
        #expect(NAT64Prefix("64:ff9b::/80") == nil)
        #expect(NAT64Prefix("64:ff9b::/128") == nil)
        #expect(NAT64Prefix("192.0.2.0/96") == nil)
        #expect(NAT64Prefix("2001:db8:0:0:100::/96") == nil)
        #expect(NAT64Prefix("64:ff9b::") == nil)
    }

    @Test("bits past the length are cleared; an address outside the prefix extracts nothing; an IPv6 address is not synthesized")
    func masking() throws {
        let prefix = try #require(NAT64Prefix("2001:db8:122:344:ffff::/64"))
        #expect(prefix.address == IPAddress("2001:db8:122:344::"))
        #expect(prefix.extract(IPAddress("2001:db8:999::1")!) == nil)
        #expect(prefix.synthesize(IPAddress("::1")!) == nil)
        #expect(NAT64Prefix.wellKnown.synthesize(IPAddress("192.0.0.170")!) == IPAddress("64:ff9b::c000:aa"))
    }
}
