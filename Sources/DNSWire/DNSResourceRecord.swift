/// One resource record of the answer, authority or additional section (RFC 1035 §4.1.3).
///
/// For the EDNS `OPT` pseudo-record (RFC 6891 §6.1.2) `recordClass` is the requestor's UDP payload
/// size and `ttl` packs extended RCODE (high 8 bits), version (next 8) and flags (low 16, DO = 0x8000).
public struct DNSResourceRecord: Hashable, Sendable {
    /// Owner name: lower-case, no trailing dot, root `""`; RFC 1035 §5.1 escapes for unusual octets.
    public var name: String
    /// TYPE.
    public var type: DNSRecordType
    /// CLASS: 1 is `IN` (RFC 1035 §3.2.4).
    public var recordClass: UInt16
    /// TTL in seconds (RFC 1035 §3.2.1; RFC 2181 §8 asks that values with the top bit set be read as 0,
    /// which `DNSMessage.addressAnswer(for:type:)` does).
    public var ttl: UInt32
    /// The decoded RDATA.
    public var data: DNSRecordData

    /// A resource record; `recordClass` defaults to `IN` (1).
    public init(name: String, type: DNSRecordType, recordClass: UInt16 = 1, ttl: UInt32, data: DNSRecordData) {
        self.name = name
        self.type = type
        self.recordClass = recordClass
        self.ttl = ttl
        self.data = data
    }
}
