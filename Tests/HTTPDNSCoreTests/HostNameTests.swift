import Foundation
import HTTPDNSCore
import Testing

/// IDNA (UTS #46, RFC 3492 Punycode, through libidn2) and the rest of host-name normalization.
@Suite("Host names")
struct HostNameTests {
    @Test(arguments: [
        ("bücher.test", "xn--bcher-kva.test"),
        ("Bücher.TEST.", "xn--bcher-kva.test"),
        ("MÜNCHEN.de", "xn--mnchen-3ya.de"),
        ("例え.テスト", "xn--r8jz45g.xn--zckzah"),
        ("中国。cn", "xn--fiqs8s.cn"),
        // Any full stop UTS #46 maps to "." may end the name, as an ASCII one may.
        ("bücher.test。", "xn--bcher-kva.test"),
        ("bücher.test．", "xn--bcher-kva.test"),
        ("中国｡cn｡", "xn--fiqs8s.cn"),
        ("ｗｗｗ.example.com", "www.example.com"),
        ("xn--bcher-kva.test", "xn--bcher-kva.test"),
        ("XN--BCHER-KVA.Test", "xn--bcher-kva.test"),
        ("A.Test.", "a.test"),
        ("[2001:DB8::1]", "2001:db8::1"),
        ("_srv.a.test", "_srv.a.test")
    ])
    func namesNormalizeToLowerCaseALabels(input: String, expected: String) {
        #expect(HostName.normalize(input) == expected)
    }

    @Test(arguments: [
        "", ".", "-bad-.test", "bad-.test", "-a.test", "a.-b.test", "a..test", "a b.test", "a/b.test", "xn--zz-.test", "xn--a.test", "xn--.test", "a.xn--a.test",
        "bücher.test。.", "bücher.test。。", "bücher..test", "。", "bücher。。test",
        String(repeating: "a", count: 64) + ".test", String(repeating: "a.", count: 127) + "aa", "💩@.test"
    ])
    func invalidNamesAreRejected(input: String) {
        #expect(HostName.normalize(input) == nil)
    }

    @Test(
        "normalized ASCII names come back unchanged",
        arguments: [
            "a.test", "www.example.com", "a-b.c-d.test", "1.2.3.4", "x", String(repeating: "a", count: 63) + ".test",
            "xn--bcher-kva.test",
            // Two hyphens, or "xn--" inside a label, are no A-label; a name past 15 bytes is stored apart
            // from the String (the fast path reads both kinds of storage).
            "a--b.test", "axn--b.test", "host12345.example.com"
        ])
    func normalizedNamesAreFixedPoints(input: String) {
        #expect(HostName.normalize(input) == input)
    }

    /// A last label that is a number makes an IPv4 address for browsers and curl (WHATWG "ends in a
    /// number", inet_aton's forms) or no host at all; never a DNS name, so never looked up (sent to
    /// DoH, then answered by getaddrinfo as an address, it depended on the fallback setting).
    @Test(
        "a name ending in a number is no DNS name",
        arguments: [
            ("0x7f.1", "127.0.0.1"), ("2130706433", "127.0.0.1"), ("1.2.3", "1.2.0.3"), ("0177.0.0.1", "127.0.0.1"),
            ("0X7F.0.0.1", "127.0.0.1"), ("127.0.1.", "127.0.0.1"), ("a.test.123", nil), ("a.0x1f", nil), ("a.0x", nil), ("1.2.3.4.5", nil),
            // After UTS #46 mapping, as browsers read them: full-width digits, letters and full stops.
            ("１２７.０.０.１", "127.0.0.1"), ("１２７．０．０．１", "127.0.0.1"), ("１２７。０。０。１。", "127.0.0.1"), ("０Ｘ７Ｆ.１", "127.0.0.1"),
            ("a.test.１２３", nil), ("ａ.１", nil),
            // The root label's dot changes nothing.
            ("a.1.", nil), ("a.test.0x1f.", nil), ("1.2.3.4.", "1.2.3.4"), ("２１３０７０６４３３．", "127.0.0.1")
        ] as [(String, String?)])
    func namesEndingInANumberAreRefused(input: String, address: String?) {
        #expect(HostName.normalize(input) == nil)
        #expect(HostName.legacyIPv4Address(input) == address)
        #expect(ResolutionError.invalidHostName(input).description.contains(address.map { "write \($0)" } ?? "its last label is a number"))
    }

    @Test(
        "a host ending in a number gets the same hint with or without the root label's dot, in ASCII or full width",
        arguments: [("a.1", "a.1."), ("a.1", "ａ.１"), ("a.1", "ａ．１｡"), ("0x7f.1", "0x7f.1."), ("0x7f.1", "０ｘ７ｆ．１．")])
    func hintIgnoresRootDotAndWidth(plain: String, variant: String) {
        #expect(HostName.normalize(variant) == nil)
        #expect(HostName.legacyIPv4Address(variant) == HostName.legacyIPv4Address(plain))
        let hint = HostName.numericHostHint(variant)
        #expect(!hint.isEmpty)
        #expect(hint.hasSuffix(HostName.legacyIPv4Address(plain).map { "write \($0))" } ?? "not a DNS name)"), "\(hint)")
    }

    @Test("a full-width address is named as such in the hint")
    func fullWidthAddressHint() {
        #expect(HostName.numericHostHint("１２７.０.０.１") == " (an IPv4 address written with non-ASCII characters, which is not looked up: write 127.0.0.1)")
        #expect(HostName.numericHostHint("0x7f.1") == " (an IPv4 address in a legacy form, which is not looked up: write 127.0.0.1)")
    }

    @Test(
        "names with numbers elsewhere stay names",
        arguments: [
            "123.test", "0x7f.test", "a1.b2", "1a.test", "a.1a", "a.0xz", "1-2.test", "1.2.3.4", "::1"
        ])
    func numbersOutsideTheLastLabelAreFine(input: String) {
        #expect(HostName.normalize(input) == input)
        #expect(HostName.legacyIPv4Address(input) == nil)
    }

    @Test func aLongUnicodeLabelIsRejectedWhenItsALabelExceeds63Bytes() {
        #expect(HostName.normalize(String(repeating: "ü", count: 60) + ".test") == nil)
    }

    @Test(
        "UTS #46 non-transitional processing through libidn2",
        arguments: [
            // RFC 3492 §7.1 samples (B) Chinese (simplified) and (L) Japanese, as labels.
            ("他们为什么不说中文.test", "xn--ihqwcrb4cv8a8dqg056pqjye.test"),
            ("3年B組金八先生.test", "xn--3b-ww4c5e180e575a65lsy2b.test"),
            // Non-transitional: ß and ς stay themselves (transitional processing would make "fass").
            ("faß.de", "xn--fa-hia.de"),
            // A soft hyphen is mapped to nothing.
            ("bü\u{AD}cher.test", "xn--bcher-kva.test"),
            // Full-width letters and the ideographic full stop map to ASCII.
            ("ＡＢＣ。test", "abc.test")
        ])
    func uts46Mapping(input: String, expected: String) {
        #expect(HostName.normalize(input) == expected)
    }

    @Test(
        "UTS #46 and IDNA2008 refuse what NFKC alone would let through",
        arguments: [
            // U+2488 DIGIT ONE FULL STOP: NFKC makes it "1." and would smuggle in a label separator.
            "\u{2488}a.test",
            // ZERO WIDTH JOINER outside the context RFC 5892 Appendix A.2 allows.
            "a\u{200D}b.test",
            // Bidi rule (RFC 5893): a right-to-left label may not start with a digit.
            "1\u{05D0}.test",
            // Symbols are not PVALID.
            "\u{2665}.test",
            // An A-label whose U-label is a symbol (U+1F4A9), which IDNA2008 disallows.
            "xn--ls8h.test"
        ])
    func uts46Rejections(input: String) {
        #expect(HostName.normalize(input) == nil)
    }

    @Test func aLabelsDecodeForDisplay() {
        #expect(HostName.unicode("xn--bcher-kva.test") == "bücher.test")
    }
}
