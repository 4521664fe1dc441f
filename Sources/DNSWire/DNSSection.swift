/// The four sections of a DNS message (RFC 1035 §4.1), used to say where a problem was found.
public enum DNSSection: String, Hashable, Sendable, CustomStringConvertible {
    /// The question section (QDCOUNT entries).
    case question
    /// The answer section (ANCOUNT records).
    case answer
    /// The authority section (NSCOUNT records).
    case authority
    /// The additional section (ARCOUNT records).
    case additional

    /// `question`, `answer`, `authority` or `additional`.
    public var description: String { rawValue }
}
