import Foundation
internal import CIDN2

/// Host-name normalization shared by the cache, the resolver and the transport.
public enum HostName {
    /// The key a name is cached, queried and sent (SNI, `Host`) under: IDNA A-labels, ASCII lower
    /// case, without a trailing dot, and IPv6 literals without brackets.
    ///
    /// A name with non-ASCII characters or an `xn--` label goes through UTS #46 processing
    /// (non-transitional: mapping, NFC, validity, the CONTEXTJ and Bidi rules of IDNA2008, RFC 5891-5893)
    /// and RFC 3492 Punycode, done by libidn2 (`idn2_to_ascii_8z` with `IDN2_NONTRANSITIONAL`, as curl
    /// does). So `Bücher.TEST.` and `bücher.test。` become `xn--bcher-kva.test`, `中国。cn` becomes `xn--fiqs8s.cn`, and a
    /// soft hyphen is dropped, while `⒈a.test` (a compatibility character hiding a dot) is refused.
    ///
    /// Returns `nil` for an invalid name: empty, an empty label, a label longer than 63 bytes or a name
    /// longer than 253 (RFC 1035 §2.3.4), a character other than letters, digits, `-` and `_` after
    /// mapping, a label that starts or ends with `-`, a character UTS #46 disallows, an `xn--` label
    /// that is not valid Punycode of a valid U-label, a last label that is a number (see
    /// `legacyIPv4Address`), or brackets around anything but one IPv6 address (`[::1]` is `::1`;
    /// `[127.0.0.1]`, `[a.test]` and `[[::1]]` are refused). An address becomes its RFC 5952 text
    /// (`[0:0::1]` and `0::1` are `::1`).
    ///
    /// The result is a fixed point: `normalize(normalize(x)) == normalize(x)` for every `x`.
    public static func normalize(_ host: String) -> String? {
        // Most names are already normalized: checked in one pass over the bytes, they come back as
        // they are (this runs on every lookup, cached ones included).
        if isNormalizedASCII(host) { return host }
        return normalizeFully(host)
    }

    /// `normalize` without its shortcut for names already normalized.
    static func normalizeFully(_ host: String) -> String? {
        var name = host
        // Brackets hold an IPv6 literal and nothing else (RFC 3986 §3.2.2). Anything else in them was
        // unwrapped once and handed to `IPAddress`, which unwraps too: `[[::]]` became `[::]`, whose
        // own normalization is `::`, so one host had two keys.
        if name.hasPrefix("[") || name.hasSuffix("]") { return bracketedIPv6(name) }
        // An address's key is its one text form (RFC 5952 for IPv6): `0::1` and `::1` are one host.
        if let address = IPAddress(name) { return address.description }
        let hadTrailingDot = name.hasSuffix(".")
        if hadTrailingDot { name.removeLast() }
        guard !name.isEmpty else { return nil }
        let isASCII = name.utf8.allSatisfy { $0 < 0x80 }
        let lowered = isASCII ? asciiLowercased(Substring(name)) : name
        // Only international names need IDNA: ASCII names without an A-label are just lower-cased
        // (which is all UTS #46 does to them).
        if !isASCII || lowered.split(separator: ".").contains(where: { $0.hasPrefix("xn--") }) {
            // An empty label that UTS #46 keeps is refused by the label check below.
            guard var ascii = IDNA.toASCII(lowered) else { return nil }
            // UTS #46 maps the other full stops (。．｡) to ".": one of them ending the name is the
            // root label's dot, as an ASCII one is (but not a second one after it).
            if !hadTrailingDot, ascii.hasSuffix(".") { ascii.removeLast() }
            name = ascii
        } else {
            name = lowered
        }
        guard name.utf8.count <= 253 else { return nil }
        if endsInNumber(name) { return nil }
        for label in name.split(separator: ".", omittingEmptySubsequences: false) {
            guard !label.isEmpty, label.utf8.count <= 63, label.utf8.allSatisfy(isHostByte) else { return nil }
            // A label neither starts nor ends with a hyphen (RFC 952, RFC 1123 §2.1; RFC 5891 §4.2.3.1).
            guard label.utf8.first != UInt8(ascii: "-"), label.utf8.last != UInt8(ascii: "-") else { return nil }
            // An A-label must be the encoding of a valid U-label (RFC 5891 §5.4, UTS #46 §4 step 4);
            // libidn2 passes some that are not, whose display form would not normalize back.
            if label.hasPrefix("xn--") {
                guard let unicode = IDNA.toUnicode(String(label)), IDNA.toASCII(unicode) == String(label) else { return nil }
            }
        }
        return name
    }

    /// The address inside `[` and `]`, lower case, when `text` is exactly an IPv6 literal in
    /// brackets; nil for anything else (IPv4 or a name in brackets, nested or unbalanced brackets).
    private static func bracketedIPv6(_ text: String) -> String? {
        guard text.hasPrefix("["), text.hasSuffix("]"), text.utf8.count > 2 else { return nil }
        let inner = String(text.dropFirst().dropLast())
        guard !inner.utf8.contains(where: { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]") }),
            let address = IPAddress(inner), address.family == .ipv6
        else { return nil }
        return address.description
    }

    /// True when `host` is lower-case LDH labels (a-z, 0-9, inner hyphens) of 1-63 bytes, at most
    /// 253 bytes in all, without a trailing dot or an `xn--` label: exactly what `normalize` returns
    /// for it.
    static func isNormalizedASCII(_ host: String) -> Bool {
        // Over the string's own bytes when it has them contiguously (a native string always does):
        // the UTF-8 view's iterator costs more per byte, and this runs on every lookup.
        if let answer = host.utf8.withContiguousStorageIfAvailable(isNormalizedASCII) { return answer }
        return Array(host.utf8).withUnsafeBufferPointer(isNormalizedASCII)
    }

    private static func isNormalizedASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = bytes.count
        guard count > 0, count <= 253 else { return false }
        // A label is checked at its end, so that the loop over its bytes does only what every
        // byte needs: letters and digits (nearly all of them) cost two compares.
        var labelStart = 0
        var hyphens = 0
        var index = 0
        while index < count {
            let byte = bytes[index]
            if byte &- UInt8(ascii: "a") < 26 || byte &- UInt8(ascii: "0") < 10 {
                index &+= 1
            } else if byte == UInt8(ascii: "-") {
                hyphens &+= 1
                index &+= 1
            } else if byte == UInt8(ascii: "."), isLabel(bytes, from: labelStart, to: index) {
                index &+= 1
                labelStart = index
            } else {
                return false
            }
        }
        guard isLabel(bytes, from: labelStart, to: count) else { return false }
        // No top-level label starts with a digit; a name whose last one does may end in a number
        // (an address, or no name at all), which the full path decides.
        guard bytes[labelStart] > UInt8(ascii: "9") else { return false }
        // An A-label must be checked as Punycode.
        return hyphens < 2 || !hasALabel(bytes)
    }

    /// Whether `bytes[start..<end]` (letters, digits and hyphens) is a label: 1-63 bytes, neither
    /// starting nor ending with a hyphen.
    private static func isLabel(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Bool {
        end > start && end - start <= 63 && bytes[start] != UInt8(ascii: "-") && bytes[end - 1] != UInt8(ascii: "-")
    }

    /// Whether the last label of `name` (lower case, no trailing dot) is a number: decimal digits, or
    /// `0x` and hexadecimal digits. Such a "name" is an IPv4 address to browsers and curl (the
    /// WHATWG URL Standard's "ends in a number" rule, inet_aton's forms), or no valid host at all;
    /// it is never a DNS name (no top-level domain is numeric), so it is not looked up.
    static func endsInNumber(_ name: String) -> Bool {
        let last = name.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).last ?? []
        guard !last.isEmpty else { return false }
        if last.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) { return true }
        guard last.starts(with: "0x".utf8) else { return false }
        return last.dropFirst(2).allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
        }
    }

    /// The IPv4 address browsers and curl read a host ending in a number as (inet_aton's forms:
    /// `0x7f.1`, `2130706433`, `1.2.3`, octal `0177.0.0.1`), for messages; nil when it is not one,
    /// or is an address in the standard dotted-decimal form already.
    ///
    /// The host is read as `normalize` reads it: after UTS #46 mapping, so full-width digits and
    /// full stops count as ASCII ones (`１２７.０.０.１` is `127.0.0.1`, as in a browser's address
    /// bar), and without the root label's dot (`127.0.1.` is `127.0.1`).
    public static func legacyIPv4Address(_ host: String) -> String? {
        guard IPAddress(host) == nil, let mapped = numberCheckForm(host), endsInNumber(mapped) else { return nil }
        var address = in_addr()
        guard inet_aton(mapped, &address) != 0 else { return nil }
        return IPAddress(bytes: withUnsafeBytes(of: address.s_addr) { Array($0) })?.description
    }

    /// For a message about an invalid `host`: why, when it ends in a number (" (an IPv4 address in a
    /// legacy form: write 127.0.0.1)"), else "". Read after UTS #46 mapping and without the root
    /// label's dot, as `legacyIPv4Address`.
    public static func numericHostHint(_ host: String) -> String {
        if let address = legacyIPv4Address(host) {
            let form = host.utf8.allSatisfy { $0 < 0x80 } ? "in a legacy form" : "written with non-ASCII characters"
            return " (an IPv4 address \(form), which is not looked up: write \(address))"
        }
        return numberCheckForm(host).map(endsInNumber) == true ? " (its last label is a number: not a DNS name)" : ""
    }

    /// `host` as `normalize` checks its last label: without the root label's dot (an ASCII one, or
    /// one of the full stops UTS #46 maps to it), UTS #46 mapped when not ASCII (the same libidn2
    /// call), ASCII lower case; nil when UTS #46 refuses it.
    private static func numberCheckForm(_ host: String) -> String? {
        var name = host
        let hadTrailingDot = name.hasSuffix(".")
        if hadTrailingDot { name.removeLast() }
        guard !name.utf8.allSatisfy({ $0 < 0x80 }) else { return asciiLowercased(Substring(name)) }
        guard var mapped = IDNA.toASCII(name) else { return nil }
        if !hadTrailingDot, mapped.hasSuffix(".") { mapped.removeLast() }
        return mapped
    }

    /// Whether `xn--` occurs anywhere in `bytes`: a possible A-label, which the full path checks.
    private static func hasALabel<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if bytes[index...].starts(with: "xn--".utf8) { return true }
            bytes.formIndex(after: &index)
        }
        return false
    }

    /// The Unicode form of a normalized name: each `xn--` label decoded (for display).
    /// A label that does not decode is shown as it is.
    public static func unicode(_ name: String) -> String {
        name.split(separator: ".", omittingEmptySubsequences: false).map { label in
            label.hasPrefix("xn--") ? IDNA.toUnicode(String(label)) ?? String(label) : String(label)
        }.joined(separator: ".")
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
