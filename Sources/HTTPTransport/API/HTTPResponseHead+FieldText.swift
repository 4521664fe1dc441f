extension HTTPResponseHead {
    /// The text of a reason phrase's (RFC 9112 §4) or a field value's (RFC 9110 §5.5) bytes: UTF-8
    /// when they are valid UTF-8 (ASCII included), which printed as UTF-8 gives back the bytes
    /// received; otherwise ISO-8859-1, one character per byte (RFC 9110 §5.5 leaves such obs-text
    /// octets to be read as Latin-1 at most), so none is lost to U+FFFD: `0x43 0x61 0x66 0xE9` is
    /// "Café".
    package static func fieldText(decoding bytes: UnsafeRawBufferPointer) -> String {
        // ASCII, nearly every field: the plain initializer (the validating one over a raw buffer
        // was not specialized, and showed in the per-request profile).
        if !bytes.contains(where: { $0 >= 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }
}
