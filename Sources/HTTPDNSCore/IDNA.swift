internal import CIDN2
#if canImport(Glibc)
    import Glibc
#endif

/// IDNA through libidn2: UTS #46 non-transitional processing and RFC 3492 Punycode.
enum IDNA {
    /// The A-label form of `name` (`idn2_to_ascii_8z` with `IDN2_NONTRANSITIONAL`), or nil when UTS #46
    /// or IDNA2008 refuses it (a disallowed character, a bad `xn--` label, CONTEXTJ or Bidi rule).
    static func toASCII(_ name: String) -> String? {
        // libidn2 reads a C string: a NUL would cut the name short and the rest would go unchecked.
        guard !name.utf8.contains(0) else { return nil }
        var output: UnsafeMutablePointer<CChar>?
        let status = idn2_to_ascii_8z(name, &output, Int32(IDN2_NONTRANSITIONAL.rawValue))
        defer { idn2_free(output) }
        guard status == Int32(IDN2_OK.rawValue), let output else { return nil }
        return String(cString: output)
    }

    /// The U-label form of one A-label (`idn2_to_unicode_8z8z`), or nil when it is not valid Punycode.
    static func toUnicode(_ label: String) -> String? {
        guard !label.utf8.contains(0) else { return nil }
        var output: UnsafeMutablePointer<CChar>?
        let status = idn2_to_unicode_8z8z(label, &output, 0)
        defer { idn2_free(output) }
        guard status == Int32(IDN2_OK.rawValue), let output else { return nil }
        return String(cString: output)
    }
}
