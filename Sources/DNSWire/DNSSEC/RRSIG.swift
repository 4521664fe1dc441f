/// The RDATA of an `RRSIG` record (RFC 4034 §3): a signature over one RRset.
///
/// Wire form: type covered (2 octets), algorithm (1), labels (1), original TTL (4), signature
/// expiration (4), signature inception (4), key tag (2), signer's name (uncompressed), signature (the rest).
public struct RRSIG: Hashable, Sendable {
    /// The type of the RRset the signature covers.
    public var typeCovered: DNSRecordType
    /// The signing algorithm.
    public var algorithm: DNSSECAlgorithm
    /// The number of labels in the signed owner name, not counting the root or a leading `*`
    /// (RFC 4034 §3.1.3); fewer than the owner has means a wildcard expansion.
    public var labels: UInt8
    /// The TTL of the RRset as signed, in seconds (RFC 4034 §3.1.4).
    public var originalTTL: UInt32
    /// Signature expiration: seconds since 1970-01-01 UTC modulo 2^32, compared in serial-number
    /// arithmetic (RFC 4034 §3.1.5, RFC 1982).
    public var expiration: UInt32
    /// Signature inception, as `expiration`.
    public var inception: UInt32
    /// The key tag of the DNSKEY that made the signature.
    public var keyTag: UInt16
    /// The signer's name: the zone apex holding that DNSKEY (text form, lower-case, no trailing dot).
    public var signerName: String
    /// The signature octets, in the algorithm's format (RFC 6605 §4: r‖s for ECDSA).
    public var signature: [UInt8]

    /// An RRSIG from its fields.
    public init(
        typeCovered: DNSRecordType, algorithm: DNSSECAlgorithm, labels: UInt8, originalTTL: UInt32,
        expiration: UInt32, inception: UInt32, keyTag: UInt16, signerName: String, signature: [UInt8]
    ) {
        self.typeCovered = typeCovered
        self.algorithm = algorithm
        self.labels = labels
        self.originalTTL = originalTTL
        self.expiration = expiration
        self.inception = inception
        self.keyTag = keyTag
        self.signerName = signerName
        self.signature = signature
    }

    /// Parses RRSIG RDATA.
    /// - Throws: `DNSSECRecordError.truncated`, or `.invalidName` for a compressed or malformed signer's name.
    public init(rdata: [UInt8]) throws(DNSSECRecordError) {
        var reader = DNSSECRDataReader(rdata, type: .rrsig)
        typeCovered = DNSRecordType(rawValue: try reader.readUInt16(field: "type covered"))
        algorithm = DNSSECAlgorithm(rawValue: try reader.readUInt8(field: "algorithm"))
        labels = try reader.readUInt8(field: "labels")
        originalTTL = try reader.readUInt32(field: "original TTL")
        expiration = try reader.readUInt32(field: "signature expiration")
        inception = try reader.readUInt32(field: "signature inception")
        keyTag = try reader.readUInt16(field: "key tag")
        signerName = try reader.readName(field: "signer's name")
        signature = reader.readRest()
    }

    /// The RDATA without the signature, signer's name in canonical form: the start of the signed
    /// data (RFC 4034 §3.1.8.1).
    /// - Throws: `DNSSECRecordError.unencodableName`.
    public func rdataWithoutSignature() throws(DNSSECRecordError) -> [UInt8] {
        var writer = DNSMessageWriter()
        writer.append(typeCovered.rawValue)
        writer.append(algorithm.rawValue)
        writer.append(labels)
        writer.append(originalTTL)
        writer.append(expiration)
        writer.append(inception)
        writer.append(keyTag)
        try writer.appendName(signerName)
        return writer.bytes
    }

    /// The RDATA in wire form (signer's name lower-case).
    /// - Throws: `DNSSECRecordError.unencodableName`.
    public func rdata() throws(DNSSECRecordError) -> [UInt8] {
        try rdataWithoutSignature() + signature
    }
}
