/// The RDATA of an `NSEC3` record (RFC 5155 §3): the next hashed owner name in hash order, and the
/// types present at the name this record's owner hashes.
///
/// Wire form: hash algorithm (1 octet), flags (1), iterations (2), salt length (1) and salt, hash
/// length (1) and next hashed owner name (raw hash octets, not Base32), type bitmap (the rest).
public struct NSEC3: Hashable, Sendable {
    /// The Opt-Out flag (RFC 5155 §3.1.2.1): the span may cover unsigned delegations.
    public static let optOutFlag: UInt8 = 0x01

    /// The hash algorithm: 1 is SHA-1, the only one defined (RFC 5155 §11).
    public var hashAlgorithm: UInt8
    /// FLAGS; see `optOutFlag`.
    public var flags: UInt8
    /// Additional hash iterations (RFC 5155 §5).
    public var iterations: UInt16
    /// The salt appended at each hash iteration (0–255 octets).
    public var salt: [UInt8]
    /// The next hashed owner name as raw hash octets (1–255; 20 for SHA-1).
    public var nextHashedOwner: [UInt8]
    /// The types present at the original owner name.
    public var types: DNSTypeBitmap

    /// An NSEC3 from its fields.
    public init(hashAlgorithm: UInt8 = 1, flags: UInt8, iterations: UInt16, salt: [UInt8], nextHashedOwner: [UInt8], types: DNSTypeBitmap) {
        self.hashAlgorithm = hashAlgorithm
        self.flags = flags
        self.iterations = iterations
        self.salt = salt
        self.nextHashedOwner = nextHashedOwner
        self.types = types
    }

    /// Parses NSEC3 RDATA.
    /// - Throws: `DNSSECRecordError.truncated`, `.emptyField` for a zero hash length, or `.typeBitmap`.
    public init(rdata: [UInt8]) throws(DNSSECRecordError) {
        var reader = DNSSECRDataReader(rdata, type: .nsec3)
        let parameters = try NSEC3PARAM.read(&reader)
        (hashAlgorithm, flags, iterations, salt) = (parameters.hashAlgorithm, parameters.flags, parameters.iterations, parameters.salt)
        nextHashedOwner = try reader.readLengthPrefixed(field: "next hashed owner name")
        guard !nextHashedOwner.isEmpty else { throw .emptyField(type: .nsec3, field: "next hashed owner name") }
        types = try DNSTypeBitmap(parsing: reader.readRest(), type: .nsec3)
    }

    /// Whether the Opt-Out flag is set.
    public var isOptOut: Bool { flags & Self.optOutFlag != 0 }

    /// The hash parameters (algorithm, flags, iterations, salt) as an NSEC3PARAM value.
    public var parameters: NSEC3PARAM {
        NSEC3PARAM(hashAlgorithm: hashAlgorithm, flags: flags, iterations: iterations, salt: salt)
    }

    /// The RDATA in wire form.
    /// - Throws: `DNSSECRecordError.rdataTooLong` when the salt or hash exceeds 255 octets.
    public func rdata() throws(DNSSECRecordError) -> [UInt8] {
        guard let hashLength = UInt8(exactly: nextHashedOwner.count) else { throw .rdataTooLong(type: .nsec3) }
        return try parameters.rdata(for: .nsec3) + [hashLength] + nextHashedOwner + types.encoded
    }
}
