import DNSWire
import Foundation

/// Why a name's SVCB or HTTPS records could not be had (`HostResolver.serviceBindings(host:type:)`).
public enum ServiceBindingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The name is not a valid DNS host name.
    case invalidHostName(String)
    /// No configured provider can carry the records (the vendor HTTPDNS APIs and JSON DoH cannot);
    /// `providers` are their kinds.
    case notCarried(type: DNSRecordType, providers: [String])
    /// Every provider that can carry them failed; one reason per provider, in order tried (a
    /// malformed record is one: `DNSWireError.invalidServiceBinding`'s sentence).
    case providersFailed(host: String, type: DNSRecordType, reasons: [String])
    /// AliasMode records lead back to a name already followed (RFC 9460 §3.1); `chain` from the name asked.
    case aliasLoop(chain: [String])
    /// More than `limit` AliasMode records in a row; `chain` from the name asked.
    case aliasChainTooLong(chain: [String], limit: Int)

    /// One sentence saying what failed, for which name, and where.
    public var description: String {
        switch self {
        case .invalidHostName(let name):
            "invalid host name '\(name)'"
        case .notCarried(let type, let providers):
            "no provider configured can carry \(type) records: \(providers.joined(separator: ", ")) can carry addresses only; use an RFC 8484 DoH endpoint"
        case .providersFailed(let host, let type, let reasons):
            "could not get the \(type) records of '\(host)': \(reasons.joined(separator: "; "))"
        case .aliasLoop(let chain):
            "AliasMode records loop: \(chain.joined(separator: " -> ")) (RFC 9460 §3.1)"
        case .aliasChainTooLong(let chain, let limit):
            "more than \(limit) AliasMode records in a row from '\(chain.first ?? "")' (RFC 9460 §3.1)"
        }
    }
}
