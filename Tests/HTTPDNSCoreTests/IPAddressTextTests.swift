import HTTPDNSCore
import Testing
#if canImport(Glibc)
    import Glibc
#endif

/// `IPAddress.description`: the text the cache file, logs and `HOST:PORT:ADDR` entries carry.
@Suite("IP address text")
struct IPAddressTextTests {
    @Test(arguments: [
        ("0.0.0.0", "0.0.0.0"), ("255.255.255.255", "255.255.255.255"), ("10.0.0.1", "10.0.0.1"), ("192.0.2.100", "192.0.2.100"),
        ("2001:DB8:0:0:0:0:0:1", "2001:db8::1"), ("::1", "::1"), ("::", "::"), ("::ffff:192.0.2.1", "::ffff:192.0.2.1"),
        ("fe80:0:0:0:1:0:0:1", "fe80::1:0:0:1")
    ])
    func theCanonicalForm(text: String, canonical: String) throws {
        #expect(try #require(IPAddress(text)).description == canonical)
    }

    @Test("every IPv4 address and 2,000 generated IPv6 ones read as inet_ntop writes them")
    func asInetNtopWritesThem() throws {
        func ntop(_ bytes: [UInt8]) -> String {
            var buffer = [CChar](repeating: 0, count: 64)
            bytes.withUnsafeBytes { _ = inet_ntop(bytes.count == 4 ? AF_INET : AF_INET6, $0.baseAddress, &buffer, 64) }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        // Each octet value in each position, not all 2^32 addresses.
        for value in 0...255 {
            let bytes: [UInt8] = [UInt8(value), UInt8(255 - value), UInt8(value / 2), UInt8(value % 10)]
            #expect(try #require(IPAddress(bytes: bytes)).description == ntop(bytes))
        }
        var state: UInt64 = 0x1D
        for _ in 0..<2_000 {
            let bytes = (0..<16).map { index -> UInt8 in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                // Runs of zeros, which the text compresses.
                return index % 3 == 0 ? 0 : UInt8(truncatingIfNeeded: state >> 56)
            }
            #expect(try #require(IPAddress(bytes: bytes)).description == ntop(bytes))
        }
    }
}
