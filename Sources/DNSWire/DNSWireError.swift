/// Why bytes could not be read as a DNS message, or a message could not be written.
///
/// Offsets are zero-based byte positions in the message. Every malformed input yields one of these;
/// parsing never traps. A DoH client should treat any of them as "this server sent garbage" and try
/// another endpoint, not as an answer about the name.
public enum DNSWireError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong with a name given to the query builder or encoder.
    public enum NameProblem: Hashable, Sendable, CustomStringConvertible {
        /// The name is the empty string (use `"."` for the root).
        case empty
        /// Two dots in a row, or a leading dot: labels are 1–63 octets (RFC 1035 §2.3.4).
        case emptyLabel
        /// A label of `length` octets; at most 63 are allowed (RFC 1035 §2.3.4).
        case labelTooLong(length: Int)
        /// The name needs `wireLength` octets on the wire; at most 255 are allowed (RFC 1035 §2.3.4).
        case nameTooLong(wireLength: Int)
        /// A character outside printable ASCII (`!`…`~`); internationalized names must be given as
        /// IDNA A-labels (`xn--…`, RFC 5891). The value is the offending UTF-8 octet.
        case invalidCharacter(UInt8)
        /// A backslash that does not start a valid RFC 1035 §5.1 escape (`\X` or `\DDD` with DDD ≤ 255),
        /// or any backslash where escapes are not accepted (the query builder).
        case invalidEscape

        /// The problem as the end of a sentence, e.g. "a label is 64 octets long; the limit is 63 (RFC 1035 §2.3.4)".
        public var description: String {
            switch self {
            case .empty: "the name is empty (use \".\" for the root)"
            case .emptyLabel: "it has an empty label (two dots in a row or a leading dot)"
            case .labelTooLong(let length): "a label is \(length) octets long; the limit is 63 (RFC 1035 §2.3.4)"
            case .nameTooLong(let wireLength): "it needs \(wireLength) octets on the wire; the limit is 255 (RFC 1035 §2.3.4)"
            case .invalidCharacter(let byte):
                "it contains the octet 0x\(String(byte, radix: 16)) outside printable ASCII; give internationalized names as IDNA A-labels (xn--…)"
            case .invalidEscape: "it contains a backslash that is not a valid \\X or \\DDD escape (escapes are not accepted in queries)"
            }
        }
    }

    /// The message ends early: `needed` more octets were required at `offset`, but only `available` remain.
    case truncated(offset: Int, needed: Int, available: Int)
    /// The header claims `count` entries in `section`, but only `available` octets remain, fewer than
    /// even the smallest possible entries need (5 per question, 11 per record). Rejected before
    /// reading, so a hostile count cannot cause work or allocation.
    case tooManyRecords(section: DNSSection, count: Int, available: Int)
    /// A label length octet at `offset` is 64…191 (`01`/`10` in the top bits): longer than the 63-octet
    /// limit, or a label type that is obsolete or undefined (RFC 1035 §4.1.4, RFC 6891 §5).
    case labelTooLong(offset: Int, lengthOctet: UInt8)
    /// The name starting at `offset` expands to more than 255 octets (RFC 1035 §2.3.4).
    case nameTooLong(offset: Int)
    /// The compression pointer at `offset` points to `target`, at or past the end of the message.
    case pointerOutOfBounds(offset: Int, target: Int, messageLength: Int)
    /// The compression pointer at `offset` points forward to `target`; pointers must point to data
    /// already read (RFC 1035 §4.1.4).
    case forwardPointer(offset: Int, target: Int)
    /// The compression pointer at `offset` points to `target`, inside (or at the start of) the name
    /// it belongs to, or not before a name it was reached from: following it would loop.
    case compressionLoop(offset: Int, target: Int)
    /// The name starting at `offset` follows more than 127 compression pointers (a 255-octet name has
    /// at most 127 labels).
    case tooManyCompressionPointers(offset: Int)
    /// The record of `type` at `offset` has an RDATA length of `length` octets that does not fit its
    /// type: A needs 4 (RFC 1035 §3.4.1), AAAA 16 (RFC 3596 §2.2); CNAME and SOA names and fields
    /// must fill it exactly.
    case badRDataLength(type: DNSRecordType, offset: Int, length: Int)
    /// The SVCB or HTTPS record RDATA has `problem` at `offset` (RFC 9460 §2.2, §7, §8).
    case invalidServiceBinding(type: DNSRecordType, offset: Int, problem: ServiceBindingProblem)
    /// More than one OPT record in the additional section (RFC 6891 §6.1.1 makes this FORMERR).
    case multipleOPTRecords(offset: Int)
    /// The query builder or encoder was given an invalid name.
    case invalidName(String, NameProblem)
    /// The padding block size must be 1…65535 octets (RFC 8467 §4.1 recommends 128 for queries).
    case invalidPaddingBlockSize(Int)
    /// An encoded message, or one record's RDATA, would exceed 65535 octets.
    case messageTooLong(length: Int)
    /// A response code above 15 needs an OPT record to carry its extended bits (RFC 6891 §6.1.3).
    case extendedResponseCodeWithoutOPT(DNSResponseCode)
    /// A message expected to be a response has the QR bit clear.
    case notAResponse
    /// A response's ID differs from the query's (RFC 1035 §4.1.1).
    case idMismatch(expected: UInt16, received: UInt16)
    /// A response's question does not echo the query's; `received` is `nil` when it has none.
    case questionMismatch(expected: DNSQuestion, received: DNSQuestion?)

    /// One line saying what failed and where (offset, name or section), suitable for logs and CLI output.
    public var description: String {
        switch self {
        case .truncated(let offset, let needed, let available):
            "DNS message truncated: needed \(needed) octet(s) at offset \(offset) but only \(available) remain"
        case .tooManyRecords(let section, let count, let available):
            "DNS message claims \(count) \(section) entries but only \(available) octet(s) remain: truncated or corrupt"
        case .labelTooLong(let offset, let octet):
            "DNS name label at offset \(offset) has length octet 0x\(String(octet, radix: 16)): labels are at most 63 octets and label types 01/10 are not supported (RFC 1035 §4.1.4)"
        case .nameTooLong(let offset):
            "DNS name at offset \(offset) is longer than 255 octets (RFC 1035 §2.3.4)"
        case .pointerOutOfBounds(let offset, let target, let length):
            "DNS compression pointer at offset \(offset) points to \(target), outside the \(length)-octet message"
        case .forwardPointer(let offset, let target):
            "DNS compression pointer at offset \(offset) points forward to \(target); pointers must point backwards (RFC 1035 §4.1.4)"
        case .compressionLoop(let offset, let target):
            "DNS compression pointer at offset \(offset) points to \(target), which would loop"
        case .tooManyCompressionPointers(let offset):
            "DNS name at offset \(offset) follows more than 127 compression pointers"
        case .badRDataLength(let type, let offset, let length):
            switch type {
            case .a: "A record at offset \(offset) has \(length) octets of RDATA; expected 4 (RFC 1035 §3.4.1)"
            case .aaaa: "AAAA record at offset \(offset) has \(length) octets of RDATA; expected 16 (RFC 3596 §2.2)"
            default: "\(type) record at offset \(offset) has an RDATA length of \(length) that its contents do not fill exactly"
            }
        case .invalidServiceBinding(let type, let offset, let problem):
            "\(type) record RDATA is malformed at offset \(offset): \(problem)"
        case .multipleOPTRecords(let offset):
            "DNS message has a second OPT record at offset \(offset) (RFC 6891 §6.1.1)"
        case .invalidName(let name, let problem):
            "invalid DNS name '\(name)': \(problem)"
        case .invalidPaddingBlockSize(let size):
            "invalid EDNS padding block size \(size): must be 1...65535 octets (RFC 8467 recommends 128)"
        case .messageTooLong(let length):
            "DNS message or RDATA would be \(length) octets; the limit is 65535"
        case .extendedResponseCodeWithoutOPT(let code):
            "response code \(code) (\(code.rawValue)) needs an OPT record to carry its extended bits (RFC 6891 §6.1.3)"
        case .notAResponse:
            "DNS message is not a response (QR bit clear)"
        case .idMismatch(let expected, let received):
            "DNS response ID \(received) does not match query ID \(expected)"
        case .questionMismatch(let expected, let received):
            "DNS response question \(received.map { "\($0.name) \($0.type)" } ?? "(none)") does not match the query \(expected.name) \(expected.type)"
        }
    }
}
