import Foundation

/// Host-name normalization shared by the cache, the resolver and the transport.
public enum HostName {
    /// The key a name is cached, queried and sent (SNI, `Host`) under: IDNA A-labels (RFC 3492
    /// Punycode after UTS #46-style mapping: NFKC and lower case), ASCII lower case, without a trailing
    /// dot, and IPv6 literals without brackets.
    ///
    /// Returns `nil` for an invalid name: empty, an empty label, a label longer than 63 bytes or a name
    /// longer than 253 (RFC 1035 §2.3.4), a character other than letters, digits, `-` and `_` after
    /// mapping, a label that starts or ends with `-`, or an `xn--` label that is not valid Punycode.
    public static func normalize(_ host: String) -> String? {
        // Most names are already normalized: checked in one pass over the bytes, they come back as
        // they are (this runs on every lookup, cached ones included).
        if isNormalizedASCII(host) { return host }
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if IPAddress(name) != nil { return name.lowercased() }
        if !name.unicodeScalars.allSatisfy(\.isASCII) {
            // UTS #46 maps the ideographic and full-width full stops to ".", and compatibility forms
            // (full-width letters) to their plain ones; then lower case.
            name = name.precomposedStringWithCompatibilityMapping.lowercased()
            for dot in ["\u{3002}", "\u{FF0E}", "\u{FF61}"] { name = name.replacingOccurrences(of: dot, with: ".") }
        }
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty else { return nil }
        var labels: [String] = []
        for label in name.split(separator: ".", omittingEmptySubsequences: false) {
            guard !label.isEmpty else { return nil }
            var ascii: String
            if label.unicodeScalars.allSatisfy(\.isASCII) {
                ascii = asciiLowercased(label)
                if ascii.hasPrefix("xn--") {
                    guard let decoded = Punycode.decode(String(ascii.dropFirst(4))), !decoded.isEmpty,
                          !decoded.unicodeScalars.allSatisfy(\.isASCII), decoded.unicodeScalars.allSatisfy(isLabelScalar),
                          decoded.precomposedStringWithCompatibilityMapping.lowercased() == decoded
                    else { return nil }
                }
            } else {
                guard label.unicodeScalars.allSatisfy(isLabelScalar),
                    let encoded = Punycode.encode(String(label)) else { return nil }
                ascii = "xn--" + encoded
            }
            guard ascii.utf8.count <= 63, ascii.utf8.allSatisfy(isHostByte) else { return nil }
            // A label neither starts nor ends with a hyphen (RFC 952, RFC 1123 §2.1; RFC 5891 §4.2.3.1).
            guard ascii.utf8.first != UInt8(ascii: "-"), ascii.utf8.last != UInt8(ascii: "-") else { return nil }
            labels.append(ascii)
        }
        let result = labels.joined(separator: ".")
        guard result.utf8.count <= 253 else { return nil }
        return result
    }

    /// True when `host` is lower-case LDH labels (a-z, 0-9, inner hyphens) of 1-63 bytes, at most
    /// 253 bytes in all, without a trailing dot or an `xn--` label: exactly what `normalize` returns
    /// for it.
    static func isNormalizedASCII(_ host: String) -> Bool {
        var total = 0
        var labelLength = 0
        var previous: UInt8 = 0
        var hyphens = 0
        for byte in host.utf8 {
            total += 1
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                labelLength += 1
            case UInt8(ascii: "-"):
                guard labelLength > 0 else { return false }
                labelLength += 1
                hyphens += 1
            case UInt8(ascii: "."):
                guard labelLength > 0, previous != UInt8(ascii: "-") else { return false }
                labelLength = 0
            default:
                return false
            }
            guard labelLength <= 63 else { return false }
            previous = byte
        }
        guard total > 0, total <= 253, labelLength > 0, previous != UInt8(ascii: "-") else { return false }
        // An A-label must be checked as Punycode.
        return hyphens < 2 || !host.contains("xn--")
    }

    /// The Unicode form of a normalized name: each `xn--` label decoded (for display).
    public static func unicode(_ name: String) -> String {
        name.split(separator: ".", omittingEmptySubsequences: false).map { label in
            label.hasPrefix("xn--") ? Punycode.decode(String(label.dropFirst(4))) ?? String(label) : String(label)
        }.joined(separator: ".")
    }

    /// Letters, marks, digits, `-` and `_`: what a label may hold (a simplification of IDNA2008's
    /// PVALID that keeps out punctuation, symbols, spaces and controls).
    private static func isLabelScalar(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return isHostByte(UInt8(scalar.value)) || (65...90).contains(scalar.value) }
        switch scalar.properties.generalCategory {
        case .lowercaseLetter, .uppercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .nonspacingMark, .spacingMark, .decimalNumber, .letterNumber, .otherNumber:
            return true
        default:
            return false
        }
    }

    private static func asciiLowercased(_ text: Substring) -> String {
        String(decoding: text.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }
}
