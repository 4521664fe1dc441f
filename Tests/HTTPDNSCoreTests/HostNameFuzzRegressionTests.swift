import HTTPDNSCore
import Testing

/// Inputs the libFuzzer target FuzzHostName (Fuzz/, scripts/fuzz.sh) found, as bytes.
@Suite struct HostNameFuzzRegressionTests {
    /// 121 bytes: `9.2.2.1`, NUL, 112 × 0xFF (each decoded as U+FFFD), NUL. `inet_pton` stopped at the
    /// first NUL, so the whole text counted as an IPv4 literal and `normalize` returned it, 345 UTF-8
    /// bytes long, NULs included, as the cache key and the name for SNI and `Host`.
    static let ipv4ThenNUL: [UInt8] = [0x39, 0x2e, 0x32, 0x2e, 0x32, 0x2e, 0x31, 0x00] + [UInt8](repeating: 0xff, count: 112) + [0x00]

    @Test func anAddressFollowedByANULAndGarbageIsNotAHostName() {
        #expect(HostName.normalize(String(decoding: Self.ipv4ThenNUL, as: UTF8.self)) == nil)
    }

    /// libidn2 reads C strings: a NUL in a name that needs IDNA would end it there, and the rest
    /// would go unchecked (the bytes above came back as "9.2.2.1").
    @Test(arguments: ["bücher.test\u{0}.evil.test", "xn--bcher-kva.test\u{0}x", "Ünïcode\u{0}"])
    func aNULNeverReachesIDNA(_ text: String) {
        #expect(HostName.normalize(text) == nil)
        #expect(!HostName.unicode(text).isEmpty)
    }

    @Test(arguments: ["127.0.0.1\u{0}.evil.test", "127.0.0.1\u{0}", "::1\u{0}x", "[::1\u{0}]"])
    func textWithANULIsNeitherAnAddressNorAHostName(_ text: String) {
        #expect(IPAddress(text) == nil)
        #expect(HostName.normalize(text) == nil)
    }

    /// Found in stop 13: an A-label whose U-label is not valid (it starts with U+00A8, which UTS #46
    /// maps to a space and a combining mark) was accepted as it was, so its display form did not
    /// normalize back to it. An A-label must round-trip through its U-label.
    @Test(arguments: ["xn--maaClosedRangena-pta", "xn--maaclosedrangena-pta.test"])
    func anALabelOfAnInvalidULabelIsRefused(_ text: String) {
        #expect(HostName.normalize(text) == nil)
    }

    @Test(arguments: ["xn--bcher-kva.test", "XN--BCHER-KVA.test.", "bücher.test", "xn--mnchen-3ya.de"])
    func validALabelsStillNormalize(_ text: String) throws {
        let normalized = try #require(HostName.normalize(text))
        #expect(HostName.normalize(HostName.unicode(normalized)) == normalized)
    }

    /// Found in the 45-second round after 121,777 executions: `[[::]]` normalized to `[::]` (one
    /// pair of brackets taken off, the rest passed to `IPAddress`, which takes off another), and
    /// `[::]` normalized to `::`, so one host had two cache keys. Brackets hold one IPv6 address.
    @Test(arguments: ["[[::]]", "[[::1]]", "[[[::1]]]", "[127.0.0.1]", "[[127.0.0.1]]", "[a.test]", "[::1", "::1]", "[]", "[[]]", "[::1]]", "[[::1]"])
    func bracketsAroundAnythingButOneIPv6AddressAreRefused(_ text: String) {
        #expect(HostName.normalize(text) == nil)
    }

    @Test(arguments: ["[[::]]", "[::]", "[::1]", "[2001:DB8::1]", "::1", "0::1", "[::FFFF:192.0.2.1]", "::ffff:c000:201", "127.0.0.1", "A.Test.", "Bücher.test"])
    func normalizeIsAFixedPoint(_ text: String) {
        let once = HostName.normalize(text)
        #expect(once.flatMap(HostName.normalize) == once, "\(text) → \(once ?? "nil")")
    }

    @Test func aBracketedIPv6AddressIsTheAddress() {
        #expect(HostName.normalize("[::]") == "::")
        #expect(HostName.normalize("[::FFFF:192.0.2.1]") == "::ffff:192.0.2.1")
    }

    /// `0::1` and `::1` normalized to two strings, so one host had two cache keys.
    @Test(arguments: ["::1", "0::1", "0:0:0:0:0:0:0:1", "[0::1]", "[0000:0000::0001]"])
    func everySpellingOfAnAddressIsOneKey(_ text: String) {
        #expect(HostName.normalize(text) == "::1")
    }

    @Test func addressesWithoutNULStillParse() {
        #expect(IPAddress("9.2.2.1")?.description == "9.2.2.1")
        #expect(HostName.normalize("[2001:DB8::1]") == "2001:db8::1")
    }
}
