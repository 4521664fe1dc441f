import Foundation

/// Why a provider gave no answer. `HostResolver` fails over to the next provider on `.endpointFailed`.
public enum ProviderFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The name cannot be put in a DNS query (e.g. non-ASCII or malformed labels); no endpoint was asked.
    case invalidName(String, reason: String)
    /// The endpoint gave no usable answer; try another. `reason` is one line, e.g. `HTTP 500`.
    case endpointFailed(URL, reason: String)

    /// One line: `https://dns.example/dns-query: HTTP 500`.
    public var description: String {
        switch self {
        case .invalidName(let name, let reason): "cannot query '\(name)': \(reason)"
        case .endpointFailed(let url, let reason): "\(url.absoluteString): \(reason)"
        }
    }
}
