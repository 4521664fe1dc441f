/// The RDATA of a `DS` record (RFC 4034 §5): a digest of a child zone's DNSKEY, held by the parent.
///
/// Wire form: key tag (2 octets), algorithm (1), digest type (1), digest (the rest).
public struct DS: Hashable, Sendable {
    /// The key tag of the DNSKEY the digest is of (RFC 4034 App. B).
    public var keyTag: UInt16
    /// The algorithm of that DNSKEY.
    public var algorithm: DNSSECAlgorithm
    /// How the digest was computed.
    public var digestType: DNSSECDigestType
    /// The digest octets.
    public var digest: [UInt8]

    /// A DS from its fields.
    public init(keyTag: UInt16, algorithm: DNSSECAlgorithm, digestType: DNSSECDigestType, digest: [UInt8]) {
        self.keyTag = keyTag
        self.algorithm = algorithm
        self.digestType = digestType
        self.digest = digest
    }

    /// Parses DS RDATA (the 4 fixed octets, then the digest; its length is checked against the digest
    /// type by the validator, not here).
    /// - Throws: `DNSSECRecordError.truncated`.
    public init(rdata: [UInt8]) throws(DNSSECRecordError) {
        var reader = DNSSECRDataReader(rdata, type: .ds)
        keyTag = try reader.readUInt16(field: "key tag")
        algorithm = DNSSECAlgorithm(rawValue: try reader.readUInt8(field: "algorithm"))
        digestType = DNSSECDigestType(rawValue: try reader.readUInt8(field: "digest type"))
        digest = reader.readRest()
    }

    /// The RDATA in wire form.
    public var rdata: [UInt8] {
        [UInt8(keyTag >> 8), UInt8(keyTag & 0xFF), algorithm.rawValue, digestType.rawValue] + digest
    }

    /// The octets a DS digest is computed over (RFC 4034 §5.1.4): the canonical wire form of the
    /// key's owner name followed by the DNSKEY RDATA.
    /// - Parameters:
    ///   - owner: The DNSKEY's owner name (the child zone's apex), any case.
    ///   - key: The DNSKEY.
    /// - Throws: `DNSSECRecordError.unencodableName`.
    public static func digestInput(owner: String, key: DNSKEY) throws(DNSSECRecordError) -> [UInt8] {
        try DNSCanonicalForm.wireName(owner) + key.rdata
    }
}
