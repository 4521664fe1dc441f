/// The RDATA of an `NSEC3PARAM` record (RFC 5155 §4): the parameters an authoritative server uses to
/// find NSEC3 records. Validators do not need it; it is parsed for completeness.
public struct NSEC3PARAM: Hashable, Sendable {
    /// The hash algorithm (1 is SHA-1).
    public var hashAlgorithm: UInt8
    /// FLAGS: all zero in a valid record (RFC 5155 §4.1.2).
    public var flags: UInt8
    /// Additional hash iterations.
    public var iterations: UInt16
    /// The salt (0–255 octets).
    public var salt: [UInt8]

    /// An NSEC3PARAM from its fields.
    public init(hashAlgorithm: UInt8 = 1, flags: UInt8 = 0, iterations: UInt16, salt: [UInt8]) {
        self.hashAlgorithm = hashAlgorithm
        self.flags = flags
        self.iterations = iterations
        self.salt = salt
    }

    /// Parses NSEC3PARAM RDATA.
    /// - Throws: `DNSSECRecordError.truncated` or `.trailingOctets`.
    public init(rdata: [UInt8]) throws(DNSSECRecordError) {
        var reader = DNSSECRDataReader(rdata, type: .nsec3param)
        self = try Self.read(&reader)
        try reader.finish()
    }

    /// Reads the four fields NSEC3 RDATA starts with too (RFC 5155 §3.2).
    static func read(_ reader: inout DNSSECRDataReader) throws(DNSSECRecordError) -> NSEC3PARAM {
        NSEC3PARAM(
            hashAlgorithm: try reader.readUInt8(field: "hash algorithm"), flags: try reader.readUInt8(field: "flags"),
            iterations: try reader.readUInt16(field: "iterations"), salt: try reader.readLengthPrefixed(field: "salt"))
    }

    /// The RDATA in wire form.
    /// - Throws: `DNSSECRecordError.rdataTooLong` when the salt exceeds 255 octets.
    public func rdata() throws(DNSSECRecordError) -> [UInt8] {
        try rdata(for: .nsec3param)
    }

    func rdata(for type: DNSRecordType) throws(DNSSECRecordError) -> [UInt8] {
        guard let saltLength = UInt8(exactly: salt.count) else { throw .rdataTooLong(type: type) }
        return [hashAlgorithm, flags, UInt8(iterations >> 8), UInt8(iterations & 0xFF), saltLength] + salt
    }
}
