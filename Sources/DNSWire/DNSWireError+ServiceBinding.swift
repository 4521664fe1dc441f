import HTTPDNSCore

extension DNSWireError {
    /// What is wrong with the RDATA of an SVCB or HTTPS record (RFC 9460 §2.2, §7, §8; RFC 9461 §5).
    public enum ServiceBindingProblem: Hashable, Sendable, CustomStringConvertible {
        /// A field needs `needed` octets but only `available` remain before the end of the RDATA.
        case truncated(needed: Int, available: Int)
        /// The TargetName holds a compression pointer; it must be uncompressed (RFC 9460 §2.2).
        case compressedTargetName
        /// A TargetName length octet has the obsolete or undefined `01`/`10` label type bits.
        case invalidTargetNameLabel(lengthOctet: UInt8)
        /// The TargetName is longer than 255 octets (RFC 1035 §2.3.4).
        case targetNameTooLong
        /// `key` follows the greater key `previous`; keys must be strictly ascending (RFC 9460 §2.2).
        case keysOutOfOrder(previous: ServiceParameterKey, key: ServiceParameterKey)
        /// `key` appears twice (RFC 9460 §2.2).
        case duplicateKey(ServiceParameterKey)
        /// `key` has an empty value; `mandatory`, `alpn`, `port`, `ipv4hint`, `ech` and `ipv6hint` need one (RFC 9460 §7, §8).
        case emptyValue(ServiceParameterKey)
        /// `key`'s value is `length` octets: `mandatory` needs a multiple of 2, `port` exactly 2,
        /// `ipv4hint` a multiple of 4, `ipv6hint` a multiple of 16 (RFC 9460 §7.2, §7.3, §8).
        case badValueLength(ServiceParameterKey, length: Int)
        /// An `alpn` identifier is empty (RFC 9460 §7.1.1).
        case emptyALPNIdentifier
        /// An `alpn` identifier's length runs past the end of the value (RFC 9460 §7.1.1).
        case alpnIdentifierOverrun
        /// `no-default-alpn` has a `length`-octet value; it must be empty (RFC 9460 §7.1.1).
        case noDefaultALPNHasValue(length: Int)
        /// `no-default-alpn` without `alpn` (RFC 9460 §7.1.1: the record is not self-consistent).
        case noDefaultALPNWithoutALPN
        /// `mandatory` lists `mandatory` itself (RFC 9460 §8).
        case mandatoryListsItself
        /// `mandatory` lists `key` twice (RFC 9460 §8).
        case mandatoryDuplicateKey(ServiceParameterKey)
        /// `mandatory` lists `key` after the greater `previous`; the list must be ascending (RFC 9460 §8).
        case mandatoryKeysOutOfOrder(previous: ServiceParameterKey, key: ServiceParameterKey)
        /// `mandatory` lists `key`, which the record does not carry (RFC 9460 §8).
        case mandatoryKeyMissing(ServiceParameterKey)
        /// The `dohpath` value is not a usable RFC 9461 §5 template.
        case invalidDoHPath(DoHPathProblem)
        /// The encoder was given an `alpn` identifier of `length` octets; at most 255 fit (RFC 9460 §7.1.1).
        case alpnIdentifierTooLong(length: Int)
        /// The encoder was given an address of the other family among `key`'s hints (RFC 9460 §7.3).
        case wrongAddressFamily(ServiceParameterKey)
        /// The encoder was given `key` (0–7) in `ServiceParameters.unknown`; set its typed field instead.
        case decodedKeyInUnknown(ServiceParameterKey)

        /// The problem as the end of a sentence.
        public var description: String {
            switch self {
            case .truncated(let needed, let available): "a field needs \(needed) octet(s) but only \(available) remain in the RDATA"
            case .compressedTargetName: "the TargetName contains a compression pointer; it must be uncompressed (RFC 9460 §2.2)"
            case .invalidTargetNameLabel(let octet): "a TargetName label has length octet 0x\(String(octet, radix: 16)) (label types 01/10 are not supported)"
            case .targetNameTooLong: "the TargetName is longer than 255 octets (RFC 1035 §2.3.4)"
            case .keysOutOfOrder(let previous, let key): "SvcParamKey \(key) follows \(previous); keys must be strictly ascending (RFC 9460 §2.2)"
            case .duplicateKey(let key): "SvcParamKey \(key) appears more than once (RFC 9460 §2.2)"
            case .emptyValue(let key): "SvcParam \(key) has an empty value; it needs one (RFC 9460 §7)"
            case .badValueLength(let key, let length):
                "SvcParam \(key) has a \(length)-octet value; \(Self.lengthRule(key))"
            case .emptyALPNIdentifier: "an alpn identifier is empty (RFC 9460 §7.1.1)"
            case .alpnIdentifierOverrun: "an alpn identifier's length runs past the end of the value (RFC 9460 §7.1.1)"
            case .noDefaultALPNHasValue(let length): "no-default-alpn has a \(length)-octet value; it must be empty (RFC 9460 §7.1.1)"
            case .noDefaultALPNWithoutALPN: "no-default-alpn is present without alpn (RFC 9460 §7.1.1)"
            case .mandatoryListsItself: "mandatory lists itself (RFC 9460 §8)"
            case .mandatoryDuplicateKey(let key): "mandatory lists \(key) more than once (RFC 9460 §8)"
            case .mandatoryKeysOutOfOrder(let previous, let key): "mandatory lists \(key) after \(previous); the list must be ascending (RFC 9460 §8)"
            case .mandatoryKeyMissing(let key): "mandatory lists \(key), which the record does not carry (RFC 9460 §8)"
            case .invalidDoHPath(let problem): "dohpath \(problem) (RFC 9461 §5)"
            case .alpnIdentifierTooLong(let length): "an alpn identifier is \(length) octets long; the limit is 255 (RFC 9460 §7.1.1)"
            case .wrongAddressFamily(let key): "\(key) holds an address of the other family (RFC 9460 §7.3)"
            case .decodedKeyInUnknown(let key): "SvcParam \(key) was given as an unknown key; set its typed field instead"
            }
        }

        private static func lengthRule(_ key: ServiceParameterKey) -> String {
            switch key {
            case .mandatory: "it must be a multiple of 2 (RFC 9460 §8)"
            case .port: "it must be exactly 2 (RFC 9460 §7.2)"
            case .ipv4Hint: "it must be a multiple of 4 (RFC 9460 §7.3)"
            case .ipv6Hint: "it must be a multiple of 16 (RFC 9460 §7.3)"
            default: "that length is not allowed"
            }
        }
    }

    /// What is wrong with a `dohpath` value (RFC 9461 §5, RFC 6570 templates).
    public enum DoHPathProblem: Error, Hashable, Sendable, CustomStringConvertible {
        /// The value is not UTF-8.
        case notUTF8
        /// The value does not start with a single `/`: it must be a path relative to the TargetName's authority.
        case notRelativePath
        /// An octet that may not appear in a URI template's literals: a control character, space, double or
        /// single quote, backquote, `<`, `>`, `\`, `^` or `|` (RFC 6570 §2.1).
        case invalidCharacter(UInt8)
        /// An unbalanced `{` or `}`, an empty expression, or an invalid variable name or modifier.
        case malformedExpression
        /// No expression names the `dns` variable.
        case missingDNSVariable

        /// The problem as the end of a sentence that starts with "dohpath".
        public var description: String {
            switch self {
            case .notUTF8: "is not UTF-8"
            case .notRelativePath: "does not start with a single '/' (it must be a relative path)"
            case .invalidCharacter(let octet): "contains the octet 0x\(String(octet, radix: 16)), not allowed in a URI template"
            case .malformedExpression: "has a malformed {…} expression (RFC 6570 §2.2)"
            case .missingDNSVariable: "has no 'dns' variable"
            }
        }
    }
}
