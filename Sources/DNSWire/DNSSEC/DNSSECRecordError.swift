/// Why DNSSEC RDATA (DNSKEY, RRSIG, DS, NSEC, NSEC3, NSEC3PARAM) could not be read, or why records
/// could not be put in canonical form for signing.
///
/// Offsets are zero-based positions in the RDATA. Parsing never traps: every malformed input yields
/// one of these. A validator treats any of them as "this record cannot be used", never as valid.
public enum DNSSECRecordError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong with a type bitmap (RFC 4034 §4.1.2, RFC 5155 §3.2.1).
    public enum TypeBitmapProblem: Hashable, Sendable, CustomStringConvertible {
        /// A window block's header (window number and length octets) is cut off at `offset`.
        case truncatedWindowHeader(offset: Int)
        /// Window `window` claims `length` bitmap octets; only `available` remain.
        case truncatedWindow(window: UInt8, length: Int, available: Int)
        /// Window `window` has a bitmap length outside 1…32.
        case badWindowLength(window: UInt8, length: Int)
        /// Window `window` comes after window `previous`: blocks are in increasing order, each once.
        case windowOutOfOrder(window: UInt8, previous: UInt8)
        /// Window `window` ends with a zero octet, which RFC 4034 §4.1.2 says must be omitted.
        case trailingZeroOctet(window: UInt8)

        /// The problem as the end of a sentence.
        public var description: String {
            switch self {
            case .truncatedWindowHeader(let offset): "a window block header at offset \(offset) is cut off"
            case .truncatedWindow(let window, let length, let available):
                "window \(window) claims \(length) octet(s) but only \(available) remain"
            case .badWindowLength(let window, let length): "window \(window) has length \(length); it must be 1...32"
            case .windowOutOfOrder(let window, let previous): "window \(window) follows window \(previous); windows must increase"
            case .trailingZeroOctet(let window): "window \(window) ends with a zero octet, which must be omitted (RFC 4034 §4.1.2)"
            }
        }
    }

    /// The `type` RDATA ends inside `field`, which starts at `offset`.
    case truncated(type: DNSRecordType, field: String, offset: Int)
    /// `count` octets follow the last field of the `type` RDATA at `offset`.
    case trailingOctets(type: DNSRecordType, offset: Int, count: Int)
    /// A name field of the `type` RDATA at `offset` is compressed, malformed or longer than 255 octets;
    /// RFC 4034 §3.1.7 and §4.1.1 forbid compression there.
    case invalidName(type: DNSRecordType, field: String, offset: Int)
    /// A field of the `type` RDATA that must not be empty has length 0 (NSEC3's next hashed owner name).
    case emptyField(type: DNSRecordType, field: String)
    /// The `type` RDATA's type bitmap is malformed.
    case typeBitmap(type: DNSRecordType, TypeBitmapProblem)
    /// A `type` record's RDATA is held decoded (not as `.other` octets), so it cannot be read as DNSSEC RDATA.
    case notRawOctets(type: DNSRecordType)
    /// The records given to canonical form are not one RRset: `name`/`type`/`class` differ.
    case notOneRRset(name: String, type: DNSRecordType)
    /// The RRSIG covers `covered`, but the RRset is of type `type`.
    case typeNotCovered(covered: DNSRecordType, type: DNSRecordType)
    /// The RRSIG's labels field (`labels`) exceeds the label count of the owner `owner` (RFC 4035 §5.3.1).
    case tooManyLabels(labels: UInt8, owner: String)
    /// A name could not be written in wire form.
    case unencodableName(String)
    /// Canonical RDATA of a `type` record would exceed 65535 octets.
    case rdataTooLong(type: DNSRecordType)

    /// One line saying what failed and where.
    public var description: String {
        switch self {
        case .truncated(let type, let field, let offset): "\(type) RDATA ends inside its \(field) field at offset \(offset)"
        case .trailingOctets(let type, let offset, let count): "\(type) RDATA has \(count) octet(s) after its last field at offset \(offset)"
        case .invalidName(let type, let field, let offset):
            "\(type) RDATA has a compressed or malformed \(field) name at offset \(offset) (RFC 4034 forbids compression there)"
        case .emptyField(let type, let field): "\(type) RDATA has an empty \(field) field"
        case .typeBitmap(let type, let problem): "\(type) type bitmap is malformed: \(problem)"
        case .notRawOctets(let type): "the \(type) record's RDATA is not held as octets"
        case .notOneRRset(let name, let type): "records given as the \(name) \(type) RRset differ in owner, type or class"
        case .typeNotCovered(let covered, let type): "the RRSIG covers \(covered), not the \(type) RRset it was given"
        case .tooManyLabels(let labels, let owner): "the RRSIG's labels field \(labels) exceeds the label count of \(owner) (RFC 4035 §5.3.1)"
        case .unencodableName(let name): "the name '\(name)' cannot be written in wire form"
        case .rdataTooLong(let type): "canonical \(type) RDATA would exceed 65535 octets"
        }
    }
}
