/// Hand-encodes DNS messages octet by octet, following RFC 1035 §4.1 directly rather than through the
/// module's encoder, so fixtures are independent of the code under test.
enum WireBytes {
    static func u16(_ value: UInt16) -> [UInt8] {
        [UInt8(value >> 8), UInt8(value & 0xFF)]
    }

    static func u32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// A 12-octet header (RFC 1035 §4.1.1).
    static func header(id: UInt16 = 0, flags: UInt16, qd: UInt16 = 1, an: UInt16 = 0, ns: UInt16 = 0, ar: UInt16 = 0) -> [UInt8] {
        u16(id) + u16(flags) + u16(qd) + u16(an) + u16(ns) + u16(ar)
    }

    /// An uncompressed name from dot-separated ASCII labels; `""` is the root.
    static func name(_ text: String) -> [UInt8] {
        guard !text.isEmpty else { return [0] }
        return text.split(separator: ".").flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) } + [0]
    }

    /// A compression pointer to `offset` (RFC 1035 §4.1.4).
    static func pointer(_ offset: Int) -> [UInt8] {
        [0xC0 | UInt8(offset >> 8), UInt8(offset & 0xFF)]
    }

    /// A question entry (RFC 1035 §4.1.2), class IN unless given.
    static func question(_ name: String, type: UInt16, recordClass: UInt16 = 1) -> [UInt8] {
        self.name(name) + u16(type) + u16(recordClass)
    }

    /// A resource record (RFC 1035 §4.1.3) with an already encoded owner name; RDLENGTH from `rdata`.
    static func record(owner: [UInt8], type: UInt16, recordClass: UInt16 = 1, ttl: UInt32, rdata: [UInt8]) -> [UInt8] {
        owner + u16(type) + u16(recordClass) + u32(ttl) + u16(UInt16(rdata.count)) + rdata
    }

    /// A resource record with an uncompressed owner name.
    static func record(_ owner: String, type: UInt16, recordClass: UInt16 = 1, ttl: UInt32, rdata: [UInt8]) -> [UInt8] {
        record(owner: name(owner), type: type, recordClass: recordClass, ttl: ttl, rdata: rdata)
    }

    /// SOA RDATA (RFC 1035 §3.3.13).
    static func soa(mname: String, rname: String, serial: UInt32 = 1, refresh: UInt32 = 7200, retry: UInt32 = 3600, expire: UInt32 = 1_209_600, minimum: UInt32) -> [UInt8] {
        name(mname) + name(rname) + u32(serial) + u32(refresh) + u32(retry) + u32(expire) + u32(minimum)
    }

    static let typeA: UInt16 = 1
    static let typeNS: UInt16 = 2
    static let typeCNAME: UInt16 = 5
    static let typeSOA: UInt16 = 6
    static let typeTXT: UInt16 = 16
    static let typeAAAA: UInt16 = 28
    static let typeOPT: UInt16 = 41

    /// Response flags: QR, RD, RA, with the RCODE in the low bits.
    static func responseFlags(rcode: UInt16 = 0, truncated: Bool = false) -> UInt16 {
        0x8180 | (truncated ? 0x0200 : 0) | rcode
    }
}
