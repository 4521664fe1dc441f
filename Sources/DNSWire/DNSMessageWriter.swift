/// Appends big-endian fields to a growing message (RFC 1035 §2.3.2: network byte order).
struct DNSMessageWriter {
    private(set) var bytes: [UInt8] = []

    var count: Int { bytes.count }

    mutating func append(_ value: UInt8) {
        bytes.append(value)
    }

    mutating func append(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    mutating func append(_ value: UInt32) {
        append(UInt16(truncatingIfNeeded: value >> 16))
        append(UInt16(truncatingIfNeeded: value))
    }

    mutating func append(contentsOf octets: [UInt8]) {
        bytes.append(contentsOf: octets)
    }

    /// Appends a count or length that must fit 16 bits.
    /// - Throws: `DNSWireError.messageTooLong` when `value` exceeds 65535.
    mutating func appendLength(_ value: Int) throws(DNSWireError) {
        guard let length = UInt16(exactly: value) else { throw .messageTooLong(length: value) }
        append(length)
    }
}
