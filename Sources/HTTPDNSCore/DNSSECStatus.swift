/// What DNSSEC validation (RFC 4035 §4.3) made of an answer, as `HostResolution.dnssec` carries it.
public enum DNSSECStatus: Sendable, Hashable, CustomStringConvertible {
    /// Every RRset of the answer, and the chain of keys to a trust anchor, verified.
    case secure
    /// Provably unsigned: a signed proof that the zone's delegation has no DS (or its algorithms are
    /// not implemented, RFC 6840 §5.2). `reason` names the zone.
    case insecure(reason: String)
    /// The answer claims to be signed and the proof fails: `reason` says what failed (an expired
    /// signature, no matching key, a DS mismatch, a missing denial proof). Under the `report` policy
    /// such an answer is still returned.
    case bogus(reason: String)
    /// No trust anchor leads to the answer's zone, or the chain could not be fetched: `reason` says why.
    case indeterminate(reason: String)

    /// `secure`, `insecure`, `bogus` or `indeterminate`.
    public var name: String {
        switch self {
        case .secure: "secure"
        case .insecure: "insecure"
        case .bogus: "bogus"
        case .indeterminate: "indeterminate"
        }
    }

    /// The reason, when there is one.
    public var reason: String? {
        switch self {
        case .secure: nil
        case .insecure(let reason), .bogus(let reason), .indeterminate(let reason): reason
        }
    }

    /// `name`, then `: reason` when there is one.
    public var description: String { reason.map { "\(name): \($0)" } ?? name }
}
