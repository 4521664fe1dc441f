import Foundation

/// Where a set of addresses came from.
public enum ResolutionSource: Sendable, Hashable, CustomStringConvertible {
    /// An RFC 8484 DNS-over-HTTPS answer from the endpoint with this URL.
    case doh(endpoint: URL)
    /// An HTTPDNS service API answer (Alibaba- or DNSPod-style) from the endpoint with this URL.
    case httpdns(endpoint: URL)
    /// An earlier answer still within its TTL (or, when stale answers are allowed, past it: see
    /// `HostResolution.isStale`).
    case cache
    /// The operating system's resolver (`getaddrinfo`).
    case system
    /// A fixed mapping given by the caller (`--resolve`, bootstrap addresses).
    case staticMapping
    /// The host was already an IP literal; nothing was resolved.
    case literal

    /// Short form used in CLI output: `doh`, `httpdns`, `cache`, `system`, `static`, `literal`.
    public var description: String {
        switch self {
        case .doh: "doh"
        case .httpdns: "httpdns"
        case .cache: "cache"
        case .system: "system"
        case .staticMapping: "static"
        case .literal: "literal"
        }
    }
}

/// The addresses of one host name, best first.
///
/// Equality and hashing compare `host`, `addresses`, `ttl`, `source`, `isStale` and `serviceBindingRecords`; `provider`,
/// `latency` and `fallbackReasons` describe how the answer was obtained and are left out.
public struct HostResolution: Sendable, Hashable {
    /// The normalized name that was resolved (see `HostName.normalize`).
    public var host: String
    /// Addresses in the order to try them. Never empty.
    public var addresses: [IPAddress]
    /// Remaining lifetime in seconds (the minimum TTL over the records used); `nil` when the source
    /// gives none (system resolver, static mapping, literal).
    public var ttl: TimeInterval?
    /// Where the addresses came from.
    public var source: ResolutionSource
    /// Why the trusted resolvers were passed over when `source` is `.system` after a fallback: one
    /// line per DoH endpoint that failed. Empty otherwise.
    public var fallbackReasons: [String]
    /// The provider kind that answered (`doh`, `json`, `httpdns-ali`, `httpdns-dnspod`, `system`), also
    /// for answers served from the cache; `nil` for static mappings and literals.
    public var provider: String?
    /// Seconds the lookup took, from the call to the answer (cache hits included); `nil` when not measured.
    public var latency: TimeInterval?
    /// True when the answer is past its TTL and was served from the cache while a refresh runs
    /// (opt-in stale reuse); `ttl` is then 0.
    public var isStale: Bool
    /// The name's HTTPS records when the resolver was asked for them (`HostResolver.Configuration.asksForServiceBindings`)
    /// and its provider can carry them (RFC 8484 DoH); `nil` otherwise, and when the query failed or
    /// its answer was malformed (the observer is told; the addresses stand).
    public var serviceBindingRecords: ServiceBindingRecords?

    /// The ServiceMode HTTPS records, best first (`serviceBindingRecords?.records`); empty when none
    /// were asked for or found.
    public var serviceBindings: [ServiceBinding] { serviceBindingRecords?.records ?? [] }

    /// What DNSSEC validation made of the answer when the resolver validates the name (its DNSSEC
    /// policy for it is not off), for a provider's answer and for a cache hit of one alike; `nil`
    /// otherwise (static mappings, literals, the system resolver).
    public var dnssec: DNSSECStatus? = nil

    /// The NAT64 prefix the addresses were synthesized in (RFC 6052 §2.3) from the name's IPv4
    /// addresses, on a network with no IPv4 route (`HostResolver.Configuration.nat64`); `nil` when
    /// they are the answer's own.
    public var nat64Prefix: NAT64Prefix? = nil

    public init(
        host: String, addresses: [IPAddress], ttl: TimeInterval?, source: ResolutionSource,
        provider: String? = nil, latency: TimeInterval? = nil, isStale: Bool = false,
        fallbackReasons: [String] = [], serviceBindingRecords: ServiceBindingRecords? = nil
    ) {
        self.host = host
        self.addresses = addresses
        self.ttl = ttl
        self.source = source
        self.fallbackReasons = fallbackReasons
        self.provider = provider
        self.latency = latency
        self.isStale = isStale
        self.serviceBindingRecords = serviceBindingRecords
    }

    public static func == (lhs: HostResolution, rhs: HostResolution) -> Bool {
        lhs.host == rhs.host && lhs.addresses == rhs.addresses && lhs.ttl == rhs.ttl && lhs.source == rhs.source
            && lhs.isStale == rhs.isStale && lhs.serviceBindingRecords == rhs.serviceBindingRecords
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(host)
        hasher.combine(addresses)
        hasher.combine(ttl)
        hasher.combine(source)
        hasher.combine(isStale)
        hasher.combine(serviceBindingRecords)
    }
}

/// Why a name could not be turned into addresses. DNS outcomes (`nameNotFound`, `noAddresses`) are
/// answers; `resolverUnavailable` means no answer could be had.
public enum ResolutionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The name is not a valid DNS host name.
    case invalidHostName(String)
    /// NXDOMAIN (RFC 1035 §4.1.1 RCODE 3): the name does not exist. `negativeTTL` in seconds from the
    /// SOA minimum (RFC 2308 §5), when known.
    case nameNotFound(host: String, negativeTTL: TimeInterval?)
    /// The name exists but has no address of the requested families (NODATA, RFC 2308 §2.2).
    case noAddresses(host: String, negativeTTL: TimeInterval?)
    /// No resolver gave an answer; `reasons` lists each endpoint's failure, in order tried.
    case resolverUnavailable(host: String, reasons: [String])
    /// DNSSEC validation under the `require` policy found the answer bogus (RFC 4035 §5.5): `reason`
    /// names what failed (an expired signature, no matching key, a DS mismatch, a missing denial proof).
    case dnssecBogus(host: String, reason: String)

    public var description: String {
        switch self {
        case .invalidHostName(let name):
            "invalid host name '\(name)'" + HostName.numericHostHint(name)
        case .nameNotFound(let host, _):
            "could not resolve host '\(host)': name does not exist (NXDOMAIN)"
        case .noAddresses(let host, _):
            "could not resolve host '\(host)': the name has no addresses of the requested type"
        case .resolverUnavailable(let host, let reasons) where reasons.contains(where: { $0.contains("\n") }):
            // A reason of several lines (a pin mismatch with the presented chain) reads as a list.
            "could not resolve host '\(host)': no resolver answered:\n"
                + reasons.map { reason in
                    "  - " + reason.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n    ")
                }.joined(separator: "\n")
        case .resolverUnavailable(let host, let reasons):
            "could not resolve host '\(host)': no resolver answered (\(reasons.joined(separator: "; ")))"
        case .dnssecBogus(let host, let reason):
            "could not resolve host '\(host)': the answer failed DNSSEC validation (\(reason))"
        }
    }
}

/// Turns a host name into addresses. The HTTP client sees resolvers only through this protocol.
public protocol HostResolving: Sendable {
    /// Resolves `host` for a connection to `port`.
    ///
    /// - Parameters:
    ///   - host: A host name as written in a URL (any case, optional trailing dot). IP literals may be
    ///     passed and are returned as they are with source `.literal`.
    ///   - port: The TCP port the caller will connect to (static mappings are per host and port, as
    ///     curl's `--resolve`).
    /// - Returns: At least one address.
    /// - Throws: `ResolutionError`.
    func resolve(host: String, port: Int) async throws -> HostResolution

    /// The answer `resolve(host:port:)` would give without waiting for anything (an IP literal, a
    /// static mapping, a cache hit), or nil when it would have to wait (a query, the system
    /// resolver). `HTTPClient` asks it first for a request with a total time limit
    /// (`Timeouts.total`): an answer known at once then needs no timer racing the lookup, which
    /// cost two tasks per request. Must not wait (no lock held for long, no I/O).
    ///
    /// The default answers nil, which is always correct: `resolve(host:port:)` is then called.
    /// - Throws: `ResolutionError`, as `resolve(host:port:)` would throw it at once (an invalid
    ///   name, a cached NXDOMAIN).
    func resolveImmediately(host: String, port: Int) throws -> HostResolution?
}

extension HostResolving {
    /// nil: every lookup goes through `resolve(host:port:)`.
    public func resolveImmediately(host: String, port: Int) throws -> HostResolution? { nil }
}
