import Foundation
import HTTPDNSCore
import Testing

/// `trimmingWhitespace()` trims what `trimmingCharacters(in: .whitespaces)` trims, without Foundation.
@Suite("Whitespace trimming")
struct StringWhitespaceTests {
    @Test(arguments: [
        "", " ", "\t\t", "a", " a ", "\ta b\t", "  sha256//AAAA;  ", "\u{00A0}x\u{3000}", "\u{2009}\u{202F}\u{205F}x\u{1680}",
        // Line breaks and other controls are not whitespace here.
        "\nx\n", "\r x \r", "\u{000B}x\u{000C}", "\u{0085}x",
        // Zero-width space is a format character (Cf) now, but Foundation's set still holds it;
        // the word joiner, also Cf, it does not.
        "\u{200B}x\u{200B}", "\u{2060}x\u{2060}",
        // By scalar, as NSString: a combining mark after a leading space is kept, the space dropped.
        " \u{0301}x", "x \u{0301}", "é ", " 例え "
    ])
    func matchesFoundation(text: String) {
        #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces))
        let padded = "#" + text + "#"
        let inner = padded.dropFirst().dropLast()
        #expect(inner.trimmingWhitespace() == inner.trimmingCharacters(in: .whitespaces))
    }

    @Test func trimsExactlyTheScalarsFoundationDoes() {
        // Every scalar on both sides of an x: trimmed by both or by neither.
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(scalar) + "x" + String(scalar)
            if text.trimmingWhitespace() != text.trimmingCharacters(in: .whitespaces) {
                Issue.record("U+\(String(value, radix: 16, uppercase: true)) is trimmed differently")
            }
        }
    }
}
