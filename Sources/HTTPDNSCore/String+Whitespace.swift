/// Whitespace trimming without Foundation's `trimmingCharacters(in: .whitespaces)`, which bridges
/// through `NSString` and `CharacterSet` and costs about 0.4 ms on its first call: paid at every
/// start-up by the DoH URL parser and the first DoH answer's `Content-Type`.
extension String {
    /// The text without leading and trailing tabs, space separators (Unicode general category Zs)
    /// and U+200B ZERO WIDTH SPACE: exactly the scalars `CharacterSet.whitespaces` holds (checked
    /// over every scalar), so the result equals `trimmingCharacters(in: .whitespaces)`. Line breaks
    /// are kept.
    package func trimmingWhitespace() -> String { Substring(self).trimmingWhitespace() }
}

extension Substring {
    /// The text without leading and trailing tabs and space separators; see `String.trimmingWhitespace()`.
    package func trimmingWhitespace() -> String {
        // By scalar, as `NSString` trims: a combining mark after a leading space stays.
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !Self.isWhitespace($0) }),
            let last = scalars.lastIndex(where: { !Self.isWhitespace($0) })
        else { return "" }
        return String(Substring(scalars[first...last]))
    }

    private static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar == " " || scalar == "\t" }
        // CoreFoundation's set still counts U+200B, a space separator before Unicode 4.0.1.
        return scalar == "\u{200B}" || scalar.properties.generalCategory == .spaceSeparator
    }
}
