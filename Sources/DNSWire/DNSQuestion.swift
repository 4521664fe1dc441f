/// One entry of a message's question section (RFC 1035 §4.1.2).
public struct DNSQuestion: Hashable, Sendable {
    /// QNAME: lower-case, without the trailing dot; the root is `""`. Label octets outside printable
    /// ASCII, and `.` or `\` inside a label, are written as RFC 1035 §5.1 escapes (`\DDD`, `\.`).
    public var name: String
    /// QTYPE.
    public var type: DNSRecordType
    /// QCLASS: 1 is `IN` (RFC 1035 §3.2.4).
    public var recordClass: UInt16

    /// A question; `recordClass` defaults to `IN` (1).
    public init(name: String, type: DNSRecordType, recordClass: UInt16 = 1) {
        self.name = name
        self.type = type
        self.recordClass = recordClass
    }
}
