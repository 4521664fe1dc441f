/// A bounds-checked cursor over a DNS message. Every read checks the remaining length first and
/// throws `DNSWireError.truncated` instead of trapping.
struct DNSMessageReader {
    let bytes: [UInt8]
    private(set) var offset: Int

    init(bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    /// Octets left after the cursor.
    var remaining: Int { bytes.count - offset }

    private func require(_ count: Int) throws(DNSWireError) {
        guard count <= remaining else { throw .truncated(offset: offset, needed: count, available: remaining) }
    }

    mutating func readUInt8() throws(DNSWireError) -> UInt8 {
        try require(1)
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func readUInt16() throws(DNSWireError) -> UInt16 {
        try require(2)
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    mutating func readUInt32() throws(DNSWireError) -> UInt32 {
        try require(4)
        defer { offset += 4 }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16
            | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    mutating func readBytes(_ count: Int) throws(DNSWireError) -> [UInt8] {
        try require(count)
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    /// Reads a possibly compressed name whose in-place octets end by `limit` (default: the message end).
    mutating func readName(limit: Int? = nil) throws(DNSWireError) -> String {
        let (name, end) = try DNSName.read(from: bytes, at: offset, limit: limit ?? bytes.count)
        offset = end
        return name
    }

    /// Moves the cursor to `newOffset`, which must lie within the message.
    mutating func seek(to newOffset: Int) throws(DNSWireError) {
        guard newOffset >= 0, newOffset <= bytes.count else {
            throw .truncated(offset: offset, needed: newOffset - offset, available: remaining)
        }
        offset = newOffset
    }
}
