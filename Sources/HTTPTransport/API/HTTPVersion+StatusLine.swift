extension HTTPVersion {
    /// The version named by a status line's first word, as bytes (`HTTP/1.1`, `HTTP/2`): read
    /// for every response, so without making a string.
    init(statusLine word: UnsafeRawBufferPointer) {
        // After "HTTP/": "1.1", "1.0", "2", "2.0", "3", "3.0".
        guard word.count >= 6, word.count <= 8, word.starts(with: "HTTP/".utf8) else { self = .unknown; return }
        let major = word[5], rest = word.count == 6 ? nil : (word.count == 8 && word[6] == UInt8(ascii: ".") ? word[7] : 0xFF)
        switch (major, rest) {
        case (UInt8(ascii: "1"), UInt8(ascii: "1")): self = .http1_1
        case (UInt8(ascii: "1"), UInt8(ascii: "0")): self = .http1_0
        case (UInt8(ascii: "2"), nil), (UInt8(ascii: "2"), UInt8(ascii: "0")): self = .http2
        case (UInt8(ascii: "3"), nil), (UInt8(ascii: "3"), UInt8(ascii: "0")): self = .http3
        default: self = .unknown
        }
    }
}
