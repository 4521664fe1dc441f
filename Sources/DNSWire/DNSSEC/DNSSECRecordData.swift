/// The RDATA of a DNSSEC record type, decoded from the octets `DNSMessage` keeps for it.
public enum DNSSECRecordData: Hashable, Sendable {
    /// `DNSKEY` (RFC 4034 §2).
    case dnskey(DNSKEY)
    /// `RRSIG` (RFC 4034 §3).
    case rrsig(RRSIG)
    /// `DS` (RFC 4034 §5).
    case ds(DS)
    /// `NSEC` (RFC 4034 §4).
    case nsec(NSEC)
    /// `NSEC3` (RFC 5155 §3).
    case nsec3(NSEC3)
    /// `NSEC3PARAM` (RFC 5155 §4).
    case nsec3param(NSEC3PARAM)

    /// Decodes `rdata` as `type`; `nil` when `type` is not one of the DNSSEC types above.
    /// - Throws: `DNSSECRecordError` for malformed RDATA.
    public init?(type: DNSRecordType, rdata: [UInt8]) throws(DNSSECRecordError) {
        switch type {
        case .dnskey: self = .dnskey(try DNSKEY(rdata: rdata))
        case .rrsig: self = .rrsig(try RRSIG(rdata: rdata))
        case .ds: self = .ds(try DS(rdata: rdata))
        case .nsec: self = .nsec(try NSEC(rdata: rdata))
        case .nsec3: self = .nsec3(try NSEC3(rdata: rdata))
        case .nsec3param: self = .nsec3param(try NSEC3PARAM(rdata: rdata))
        default: return nil
        }
    }

    /// The RDATA in wire form.
    /// - Throws: `DNSSECRecordError.unencodableName` or `.rdataTooLong`.
    public func rdata() throws(DNSSECRecordError) -> [UInt8] {
        switch self {
        case .dnskey(let key): key.rdata
        case .rrsig(let signature): try signature.rdata()
        case .ds(let ds): ds.rdata
        case .nsec(let nsec): try nsec.rdata()
        case .nsec3(let nsec3): try nsec3.rdata()
        case .nsec3param(let parameters): try parameters.rdata()
        }
    }

    /// The record type this RDATA belongs to.
    public var type: DNSRecordType {
        switch self {
        case .dnskey: .dnskey
        case .rrsig: .rrsig
        case .ds: .ds
        case .nsec: .nsec
        case .nsec3: .nsec3
        case .nsec3param: .nsec3param
        }
    }
}

extension DNSResourceRecord {
    /// This record's RDATA decoded as its DNSSEC type, or `nil` for other types.
    /// - Throws: `DNSSECRecordError` for malformed RDATA; `.notRawOctets` when the RDATA of a DNSSEC
    ///   type is not held as `.other` octets.
    public func dnssecData() throws(DNSSECRecordError) -> DNSSECRecordData? {
        guard case .other(let octets) = data else {
            if [.dnskey, .rrsig, .ds, .nsec, .nsec3, .nsec3param].contains(type) { throw .notRawOctets(type: type) }
            return nil
        }
        return try DNSSECRecordData(type: type, rdata: octets)
    }

    /// A record holding DNSSEC RDATA as `.other` octets, the form `DNSMessage` parses it to.
    /// - Throws: `DNSSECRecordError` from encoding the RDATA.
    public init(name: String, recordClass: UInt16 = 1, ttl: UInt32, dnssec: DNSSECRecordData) throws(DNSSECRecordError) {
        self.init(name: name, type: dnssec.type, recordClass: recordClass, ttl: ttl, data: .other(try dnssec.rdata()))
    }
}
