@testable import HTTPDNSCore
import Testing

/// `HostName.normalize`'s shortcut for names already normalized, which every lookup takes: it may
/// only accept what the full normalization returns unchanged.
@Suite("Host name shortcut")
struct HostNameShortcutTests {
    @Test(
        "names already normalized take the shortcut",
        arguments: [
            "a.test", "host1.example", "a-b.c", "x", "a.b-c.d", String(repeating: "a", count: 63) + ".test", "1a.test", String(repeating: "abcdefgh.", count: 28) + "a"
        ])
    func normalizedNamesAreAccepted(name: String) {
        #expect(HostName.isNormalizedASCII(name))
        #expect(HostName.normalizeFully(name) == name)
    }

    @Test(
        "the rest go the full way",
        arguments: [
            "", "-a.test", "a-.test", "a..test", ".a.test", "a.test.", "a.1", "a.0x1f", "A.test", "a_b.test",
            "xn--bcher-kva.test", "a.b--c.xn--x", String(repeating: "a", count: 64) + ".test",
            String(repeating: "abcdefgh.", count: 28) + "ab", "bücher.test", "192.0.2.1", "a.test-"
        ])
    func otherNamesAreRefused(name: String) {
        #expect(!HostName.isNormalizedASCII(name))
    }

    @Test("whatever the shortcut accepts, the full normalization returns as it is (20,000 generated names)")
    func theShortcutAgreesWithTheFullPath() {
        // A linear congruential generator: the same names every run.
        var state: UInt64 = 0x5EED
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        let alphabet = Array("abcxyz09-.-.nA_".utf8)
        var accepted = 0
        for _ in 0..<20_000 {
            let length = next() % 24 + 1
            let bytes = (0..<length).map { _ in alphabet[next() % alphabet.count] }
            let name = String(decoding: bytes, as: UTF8.self)
            guard HostName.isNormalizedASCII(name) else { continue }
            accepted += 1
            #expect(HostName.normalizeFully(name) == name, "\(name)")
        }
        #expect(accepted > 1_000, "the generator must reach names the shortcut takes")
    }
}
