import Foundation
import HTTPDNSCore
import Testing

/// IDNA (RFC 3492 Punycode, UTS #46 mapping) and the rest of host-name normalization.
@Suite("Host names")
struct HostNameTests {
    @Test(arguments: [
        ("bücher.test", "xn--bcher-kva.test"),
        ("Bücher.TEST.", "xn--bcher-kva.test"),
        ("MÜNCHEN.de", "xn--mnchen-3ya.de"),
        ("例え.テスト", "xn--r8jz45g.xn--zckzah"),
        ("中国。cn", "xn--fiqs8s.cn"),
        ("ｗｗｗ.example.com", "www.example.com"),
        ("xn--bcher-kva.test", "xn--bcher-kva.test"),
        ("XN--BCHER-KVA.Test", "xn--bcher-kva.test"),
        ("A.Test.", "a.test"),
        ("[2001:DB8::1]", "2001:db8::1"),
        ("_srv.a.test", "_srv.a.test"),
    ])
    func namesNormalizeToLowerCaseALabels(input: String, expected: String) {
        #expect(HostName.normalize(input) == expected)
    }

    @Test(arguments: ["", ".", "-bad-.test", "bad-.test", "-a.test", "a.-b.test", "a..test", "a b.test", "a/b.test", "xn--zz-.test", "xn--a.test", "xn--.test",
                      String(repeating: "a", count: 64) + ".test", String(repeating: "a.", count: 127) + "aa", "💩@.test"])
    func invalidNamesAreRejected(input: String) {
        #expect(HostName.normalize(input) == nil)
    }

    @Test("normalized ASCII names come back unchanged", arguments: [
        "a.test", "www.example.com", "a-b.c-d.test", "1.2.3.4", "x", String(repeating: "a", count: 63) + ".test",
        "xn--bcher-kva.test",
    ])
    func normalizedNamesAreFixedPoints(input: String) {
        #expect(HostName.normalize(input) == input)
    }

    @Test func aLongUnicodeLabelIsRejectedWhenItsALabelExceeds63Bytes() {
        #expect(HostName.normalize(String(repeating: "ü", count: 60) + ".test") == nil)
    }

    @Test(arguments: [
        // RFC 3492 §7.1 samples (B) Chinese (simplified), (L) Japanese.
        ("他们为什么不说中文", "ihqwcrb4cv8a8dqg056pqjye"),
        ("3年B組金八先生", "3B-ww4c5e180e575a65lsy2b"),
        ("bücher", "bcher-kva"),
    ])
    func punycodeMatchesTheRFCSamples(unicode: String, encoded: String) {
        #expect(Punycode.encode(unicode) == encoded)
        #expect(Punycode.decode(encoded) == unicode)
    }

    @Test func aLabelsDecodeForDisplay() {
        #expect(HostName.unicode("xn--bcher-kva.test") == "bücher.test")
    }
}
