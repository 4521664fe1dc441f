import Foundation

/// Why Discovery of Designated Resolvers (RFC 9462) found nothing it could use.
public enum DesignatedResolverError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The system's resolver configuration could not be read (the reason names the file).
    case cannotReadResolvConf(String)
    /// The configuration names no unencrypted resolver to upgrade.
    case noServers
    /// No designated resolver was verified; one reason per resolver or record tried, in order.
    case noneVerified([String])

    public var description: String {
        switch self {
        case .cannotReadResolvConf(let reason): "no system resolver to upgrade: \(reason)"
        case .noServers: "no system resolver to upgrade: no nameserver is configured"
        case .noneVerified(let reasons): "no designated resolver verified (RFC 9462): " + reasons.joined(separator: "; ")
        }
    }
}
