/// A bounds-checked cursor over one record's RDATA that names the field being read in its errors.
struct DNSSECRDataReader {
    let bytes: [UInt8]
    let type: DNSRecordType
    private(set) var offset = 0

    init(_ bytes: [UInt8], type: DNSRecordType) {
        self.bytes = bytes
        self.type = type
    }

    var remaining: Int { bytes.count - offset }
    var isAtEnd: Bool { offset == bytes.count }

    mutating func readBytes(_ count: Int, field: String) throws(DNSSECRecordError) -> [UInt8] {
        guard count <= remaining else { throw .truncated(type: type, field: field, offset: offset) }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func readUInt8(field: String) throws(DNSSECRecordError) -> UInt8 {
        try readBytes(1, field: field)[0]
    }

    mutating func readUInt16(field: String) throws(DNSSECRecordError) -> UInt16 {
        let octets = try readBytes(2, field: field)
        return UInt16(octets[0]) << 8 | UInt16(octets[1])
    }

    mutating func readUInt32(field: String) throws(DNSSECRecordError) -> UInt32 {
        let octets = try readBytes(4, field: field)
        return octets.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// A one-octet length followed by that many octets (salts, hashes).
    mutating func readLengthPrefixed(field: String) throws(DNSSECRecordError) -> [UInt8] {
        let length = Int(try readUInt8(field: field))
        return try readBytes(length, field: field)
    }

    mutating func readRest() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }

    /// An uncompressed name (RFC 4034 §3.1.7, §4.1.1), in the module's text form.
    mutating func readName(field: String) throws(DNSSECRecordError) -> String {
        let start = offset
        var position = offset
        // Refuse pointers before reading, so a name can never reach outside its own octets.
        while position < bytes.count, bytes[position] != 0 {
            guard bytes[position] & 0xC0 == 0 else { throw .invalidName(type: type, field: field, offset: start) }
            position += 1 + Int(bytes[position])
        }
        guard position < bytes.count else { throw .truncated(type: type, field: field, offset: start) }
        guard let (name, end) = try? DNSName.read(from: bytes, at: start, limit: bytes.count) else {
            throw .invalidName(type: type, field: field, offset: start)
        }
        offset = end
        return name
    }

    func finish() throws(DNSSECRecordError) {
        guard isAtEnd else { throw .trailingOctets(type: type, offset: offset, count: remaining) }
    }
}

extension DNSMessageWriter {
    /// Appends a name in uncompressed, lower-case wire form (`""` is the root).
    mutating func appendName(_ name: String) throws(DNSSECRecordError) {
        append(contentsOf: try DNSCanonicalForm.wireName(name))
    }
}
