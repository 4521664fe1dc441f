/// The RDATA of an `NSEC` record (RFC 4034 §4): the next owner name in the zone's canonical order,
/// and the types present at this record's owner.
public struct NSEC: Hashable, Sendable {
    /// The next owner name (text form, lower-case, no trailing dot). RFC 6840 §5.1: this name is not
    /// lower-cased in the canonical form signed over, so verification uses the RDATA as received.
    public var nextName: String
    /// The types present at the owner name.
    public var types: DNSTypeBitmap

    /// An NSEC from its fields.
    public init(nextName: String, types: DNSTypeBitmap) {
        self.nextName = nextName
        self.types = types
    }

    /// Parses NSEC RDATA.
    /// - Throws: `DNSSECRecordError.invalidName`, `.truncated`, or `.typeBitmap`.
    public init(rdata: [UInt8]) throws(DNSSECRecordError) {
        var reader = DNSSECRDataReader(rdata, type: .nsec)
        nextName = try reader.readName(field: "next domain name")
        types = try DNSTypeBitmap(parsing: reader.readRest(), type: .nsec)
    }

    /// The RDATA in wire form (next name lower-case).
    /// - Throws: `DNSSECRecordError.unencodableName`.
    public func rdata() throws(DNSSECRecordError) -> [UInt8] {
        try DNSCanonicalForm.wireName(nextName) + types.encoded
    }
}
