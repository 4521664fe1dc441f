/// Where the names sit in the RDATA of the older types that embed them, so they can be written out
/// uncompressed and lower-case: at parse time (RFC 3597 §4 asks receivers to decompress these types) and
/// for the canonical form (RFC 4034 §6.2 lower-cases names in exactly these types' RDATA).
enum DNSRDataLayout {
    enum Field {
        case fixed(Int)
        case name
    }

    /// The layout of `type`'s RDATA, or `nil` when it embeds no name this module rewrites. NAPTR, A6,
    /// SIG and NXT also appear in RFC 4034 §6.2 and are kept as received; CNAME and SOA are decoded.
    static func fields(for type: DNSRecordType) -> [Field]? {
        switch type.rawValue {
        case 2, 3, 4, 7, 8, 9, 12, 39: [.name] // NS, MD, MF, MB, MG, MR, PTR, DNAME
        case 14, 17: [.name, .name] // MINFO, RP
        case 15, 18, 21, 36: [.fixed(2), .name] // MX, AFSDB, RT, KX
        case 26: [.fixed(2), .name, .name] // PX
        case 33: [.fixed(6), .name] // SRV
        default: nil
        }
    }

    /// The RDATA from the reader's offset to `end` with each name uncompressed and lower-case, or `nil`
    /// when `type` has no layout here.
    /// - Throws: `DNSWireError` from reading a name; `.badRDataLength` when the fields do not fill the RDATA.
    static func expandingNames(type: DNSRecordType, reader: inout DNSMessageReader, end: Int) throws(DNSWireError) -> [UInt8]? {
        guard let fields = fields(for: type) else { return nil }
        var output: [UInt8] = []
        for field in fields {
            switch field {
            case .fixed(let count):
                guard end - reader.offset >= count else { throw .badRDataLength(type: type, offset: reader.offset, length: end - reader.offset) }
                output += try reader.readBytes(count)
            case .name:
                let name = try reader.readName(limit: end)
                output += try DNSName.encode(name.isEmpty ? "." : name, allowEscapes: true)
            }
        }
        guard reader.offset == end else { throw .badRDataLength(type: type, offset: reader.offset, length: end - reader.offset) }
        return output
    }
}
