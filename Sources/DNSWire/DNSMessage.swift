import Foundation
import HTTPDNSCore

/// A DNS message (RFC 1035 §4.1): header flags, and the question, answer, authority and additional
/// sections, decoded.
///
/// Parse a DoH response body with `init(parsing:)`, build a DoH query with `query(name:type:id:paddingBlockSize:)`,
/// and read an address lookup's outcome with `addressAnswer(for:type:)`. Names are lower-case text
/// without the trailing dot (see `DNSQuestion.name`).
public struct DNSMessage: Hashable, Sendable {
    /// ID: copied from query to response (RFC 1035 §4.1.1). DoH queries use 0 (RFC 8484 §4.1).
    public var id: UInt16
    /// QR: `true` for a response.
    public var isResponse: Bool
    /// OPCODE (4 bits): 0 is a standard query.
    public var opcode: UInt8
    /// AA: the responding server is authoritative for the question name.
    public var isAuthoritative: Bool
    /// TC: the message was truncated to fit the transport; its contents must not be relied on.
    public var isTruncated: Bool
    /// RD: recursion desired.
    public var recursionDesired: Bool
    /// RA: recursion available.
    public var recursionAvailable: Bool
    /// AD: authentic data, the resolver validated the answer with DNSSEC (RFC 4035 §3.2.3).
    public var isAuthenticData: Bool
    /// CD: checking disabled (RFC 4035 §3.2.2).
    public var checkingDisabled: Bool
    /// RCODE, including the extended bits from the OPT record when one is present (RFC 6891 §6.1.3).
    public var responseCode: DNSResponseCode
    /// The question section.
    public var questions: [DNSQuestion]
    /// The answer section, in message order.
    public var answers: [DNSResourceRecord]
    /// The authority section, in message order.
    public var authorities: [DNSResourceRecord]
    /// The additional section, in message order, including any OPT pseudo-record.
    public var additionals: [DNSResourceRecord]

    /// A message from its parts; every flag defaults to clear and every section to empty.
    public init(
        id: UInt16 = 0,
        isResponse: Bool = false,
        opcode: UInt8 = 0,
        isAuthoritative: Bool = false,
        isTruncated: Bool = false,
        recursionDesired: Bool = false,
        recursionAvailable: Bool = false,
        isAuthenticData: Bool = false,
        checkingDisabled: Bool = false,
        responseCode: DNSResponseCode = .noError,
        questions: [DNSQuestion] = [],
        answers: [DNSResourceRecord] = [],
        authorities: [DNSResourceRecord] = [],
        additionals: [DNSResourceRecord] = []
    ) {
        self.id = id
        self.isResponse = isResponse
        self.opcode = opcode
        self.isAuthoritative = isAuthoritative
        self.isTruncated = isTruncated
        self.recursionDesired = recursionDesired
        self.recursionAvailable = recursionAvailable
        self.isAuthenticData = isAuthenticData
        self.checkingDisabled = checkingDisabled
        self.responseCode = responseCode
        self.questions = questions
        self.answers = answers
        self.authorities = authorities
        self.additionals = additionals
    }

    /// The smallest possible question: root name (1) + QTYPE (2) + QCLASS (2).
    static let minimumQuestionLength = 5
    /// The smallest possible record: root name (1) + TYPE, CLASS (4) + TTL (4) + RDLENGTH (2).
    static let minimumRecordLength = 11

    /// Parses a message in DNS wire format (RFC 1035 §4), such as an `application/dns-message` body
    /// (RFC 8484 §6).
    ///
    /// Every read is bounds-checked; compression pointers (§4.1.4) must point strictly backwards;
    /// names longer than 255 octets, labels with the `01`/`10` type bits, A RDATA other than 4 octets
    /// and AAAA RDATA other than 16 are rejected; SVCB and HTTPS RDATA is checked as
    /// `ServiceBinding(wireRData:type:)` checks it. Octets after the last section are ignored.
    /// - Parameter bytes: The whole message, starting with the 12-octet header.
    /// - Throws: `DNSWireError` saying what is malformed and at which offset; never traps.
    public init(parsing bytes: [UInt8]) throws(DNSWireError) {
        try self.init(parsing: bytes, decodingServiceBindings: true)
    }

    /// Parses a message as `init(parsing:)` does, SVCB and HTTPS RDATA decoded only when asked.
    /// - Parameters:
    ///   - bytes: The whole message, starting with the 12-octet header.
    ///   - decodingServiceBindings: Whether SVCB and HTTPS RDATA is decoded (and checked); `false`
    ///     keeps it as `.other` octets, so a malformed one beside an address answer cannot fail it.
    /// - Throws: `DNSWireError`.
    public init(parsing bytes: [UInt8], decodingServiceBindings: Bool) throws(DNSWireError) {
        var reader = DNSMessageReader(bytes: bytes)
        id = try reader.readUInt16()
        let flags = try reader.readUInt16()
        let questionCount = Int(try reader.readUInt16())
        let answerCount = Int(try reader.readUInt16())
        let authorityCount = Int(try reader.readUInt16())
        let additionalCount = Int(try reader.readUInt16())

        isResponse = flags & 0x8000 != 0
        opcode = UInt8((flags >> 11) & 0x0F)
        isAuthoritative = flags & 0x0400 != 0
        isTruncated = flags & 0x0200 != 0
        recursionDesired = flags & 0x0100 != 0
        recursionAvailable = flags & 0x0080 != 0
        isAuthenticData = flags & 0x0020 != 0
        checkingDisabled = flags & 0x0010 != 0

        // Counts are at most 65535, so these products cannot overflow.
        guard questionCount * Self.minimumQuestionLength <= reader.remaining else {
            throw .tooManyRecords(section: .question, count: questionCount, available: reader.remaining)
        }
        var questions: [DNSQuestion] = []
        for _ in 0..<questionCount {
            let name = try reader.readName()
            let type = DNSRecordType(rawValue: try reader.readUInt16())
            let recordClass = try reader.readUInt16()
            questions.append(DNSQuestion(name: name, type: type, recordClass: recordClass))
        }
        self.questions = questions

        let bindings = decodingServiceBindings
        answers = try Self.readRecords(&reader, count: answerCount, section: .answer, bindings: bindings)
        authorities = try Self.readRecords(&reader, count: authorityCount, section: .authority, bindings: bindings)
        additionals = try Self.readRecords(&reader, count: additionalCount, section: .additional, bindings: bindings)

        var code = flags & 0x000F
        if let opt = additionals.first(where: { $0.type == .opt }) {
            code |= UInt16(opt.ttl >> 24) << 4
        }
        responseCode = DNSResponseCode(rawValue: code)
    }

    /// Parses a message in DNS wire format; see `init(parsing:)` for `[UInt8]`.
    /// - Throws: `DNSWireError`.
    public init(parsing data: Data) throws(DNSWireError) {
        try self.init(parsing: [UInt8](data))
    }

    private static func readRecords(
        _ reader: inout DNSMessageReader, count: Int, section: DNSSection, bindings: Bool
    ) throws(DNSWireError) -> [DNSResourceRecord] {
        guard count * minimumRecordLength <= reader.remaining else {
            throw .tooManyRecords(section: section, count: count, available: reader.remaining)
        }
        var records: [DNSResourceRecord] = []
        var sawOPT = false
        for _ in 0..<count {
            let recordOffset = reader.offset
            let record = try readRecord(&reader, bindings: bindings)
            if record.type == .opt, section == .additional {
                guard !sawOPT else { throw .multipleOPTRecords(offset: recordOffset) }
                sawOPT = true
            }
            records.append(record)
        }
        return records
    }

    private static func readRecord(_ reader: inout DNSMessageReader, bindings: Bool) throws(DNSWireError) -> DNSResourceRecord {
        let recordOffset = reader.offset
        let name = try reader.readName()
        let type = DNSRecordType(rawValue: try reader.readUInt16())
        let recordClass = try reader.readUInt16()
        let ttl = try reader.readUInt32()
        let length = Int(try reader.readUInt16())
        guard length <= reader.remaining else {
            throw .truncated(offset: reader.offset, needed: length, available: reader.remaining)
        }
        let dataEnd = reader.offset + length
        let data: DNSRecordData
        do {
            data = try readData(type: type, recordClass: recordClass, reader: reader, end: dataEnd, bindings: bindings)
        } catch .truncated {
            // A name or field running past RDLENGTH: the length is wrong for the contents.
            throw .badRDataLength(type: type, offset: recordOffset, length: length)
        } catch .badRDataLength {
            throw .badRDataLength(type: type, offset: recordOffset, length: length)
        }
        try reader.seek(to: dataEnd)
        return DNSResourceRecord(name: name, type: type, recordClass: recordClass, ttl: ttl, data: data)
    }

    /// Decodes the RDATA between the reader's offset and `end`. A `.truncated` or `.badRDataLength`
    /// from here is reported by the caller against the whole record.
    private static func readData(
        type: DNSRecordType, recordClass: UInt16, reader: DNSMessageReader, end: Int, bindings: Bool
    ) throws(DNSWireError) -> DNSRecordData {
        var rdata = reader
        let length = end - rdata.offset
        let classIN: UInt16 = 1
        let wrongLength = DNSWireError.badRDataLength(type: type, offset: rdata.offset, length: length)
        switch type {
        case .a where recordClass == classIN, .aaaa where recordClass == classIN:
            guard length == (type == .a ? 4 : 16), let address = IPAddress(bytes: try rdata.readBytes(length)) else {
                throw wrongLength
            }
            return type == .a ? .a(address) : .aaaa(address)
        case .cname:
            let target = try rdata.readName(limit: end)
            guard rdata.offset == end else { throw wrongLength }
            return .cname(target)
        case .soa:
            let mname = try rdata.readName(limit: end)
            let rname = try rdata.readName(limit: end)
            guard end - rdata.offset == 20 else { throw wrongLength }
            let soa = DNSSOA(
                mname: mname, rname: rname,
                serial: try rdata.readUInt32(), refresh: try rdata.readUInt32(), retry: try rdata.readUInt32(),
                expire: try rdata.readUInt32(), minimum: try rdata.readUInt32())
            return .soa(soa)
        case .svcb where bindings, .https where bindings:
            var parser = ServiceBindingParser(bytes: rdata.bytes, offset: rdata.offset, end: end, type: type)
            return .serviceBinding(try parser.parse())
        default:
            if let expanded = try DNSRDataLayout.expandingNames(type: type, reader: &rdata, end: end) { return .other(expanded) }
            return .other(try rdata.readBytes(length))
        }
    }
}
