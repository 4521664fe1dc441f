/// Which host names a pin set or a per-host policy applies to (OkHttp `CertificatePinner` syntax):
/// trust policies (`TrustPolicyManager`, `PinSet.hosts`) and DNSSEC policies
/// (`HostResolver.DNSSECSettings.hostPolicies`) match hosts by the same rule.
///
/// - `example.com`: that name only.
/// - `*.example.com`: exactly one label in front (`api.example.com`, not `example.com`, not
///   `a.b.example.com`).
/// - `**.example.com`: any number of labels in front, including none (`example.com`,
///   `api.example.com`, `a.b.example.com`).
///
/// Names are compared case-insensitively without a trailing dot.
public struct HostPattern: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// How the pattern matches.
    public enum Kind: Sendable, Hashable {
        /// `example.com`: that name only.
        case exact
        /// `*.example.com`: one label in front.
        case oneLabel
        /// `**.example.com`: any number of labels in front, none included.
        case anyDepth
    }

    /// How the pattern matches.
    public let kind: Kind
    /// The name after the wildcard (or the whole name for `.exact`), normalized.
    public let domain: String

    /// - Throws: `InvalidHostPatternError` for an empty pattern, a wildcard anywhere but the first
    ///   label, or an invalid name.
    public init(parsing text: String) throws(InvalidHostPatternError) {
        var rest = Substring(text.lowercased())
        if rest.hasSuffix(".") { rest = rest.dropLast() }
        var kind = Kind.exact
        if rest.hasPrefix("**.") {
            kind = .anyDepth
            rest = rest.dropFirst(3)
        } else if rest.hasPrefix("*.") {
            kind = .oneLabel
            rest = rest.dropFirst(2)
        }
        guard !rest.isEmpty, !rest.contains("*") else {
            throw InvalidHostPatternError(pattern: text, reason: "a wildcard may only be the whole first label (*.example.com or **.example.com)")
        }
        guard let normalized = HostName.normalize(String(rest)) else {
            throw InvalidHostPatternError(pattern: text, reason: "'\(rest)' is not a valid host name")
        }
        self.kind = kind
        self.domain = normalized
    }

    /// A literal pattern; traps on an invalid one (use `init(parsing:)` for input).
    public init(stringLiteral value: String) {
        do {
            self = try HostPattern(parsing: value)
        } catch {
            preconditionFailure("invalid host pattern literal: \(error)")
        }
    }

    /// Whether `host` (any case, trailing dot allowed) matches.
    public func matches(_ host: String) -> Bool {
        var name = Substring(host.lowercased())
        if name.hasSuffix(".") { name = name.dropLast() }
        switch kind {
        case .exact:
            return name == domain
        case .anyDepth:
            return name == domain || name.hasSuffix("." + domain)
        case .oneLabel:
            guard name.hasSuffix("." + domain) else { return false }
            let label = name.dropLast(domain.count + 1)
            return !label.isEmpty && !label.contains(".")
        }
    }

    /// The value of the most specific pattern in `table` that matches `host` (exact, then `*.`, then
    /// `**.`, longer domains first); nil when none does. One rule for every per-host table.
    public static func mostSpecificMatch<Value>(for host: String, in table: [HostPattern: Value]) -> Value? {
        var best: (pattern: HostPattern, value: Value)?
        for (pattern, value) in table where pattern.matches(host) {
            if let current = best, !(pattern.specificity < current.pattern.specificity) { continue }
            best = (pattern, value)
        }
        return best?.value
    }

    /// More specific patterns sort first: exact, then one label, then any depth; longer domains first.
    package var specificity: (Int, Int) {
        let rank =
            switch kind {
            case .exact: 0;
            case .oneLabel: 1;
            case .anyDepth: 2
            }
        return (rank, -domain.count)
    }

    public var description: String {
        switch kind {
        case .exact: domain
        case .oneLabel: "*." + domain
        case .anyDepth: "**." + domain
        }
    }
}

/// A host pattern that is not `name`, `*.name` or `**.name` (`HostPattern.init(parsing:)`).
public struct InvalidHostPatternError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The pattern as given.
    public var pattern: String
    /// What is wrong with it.
    public var reason: String

    public init(pattern: String, reason: String) {
        self.pattern = pattern
        self.reason = reason
    }

    public var description: String { "invalid host pattern '\(pattern)': \(reason)" }
}
