import Foundation
import HTTPDNSCore

extension HostResolver {
    /// How a `HostResolver` resolves and caches. All durations are in seconds.
    public struct Configuration: Sendable {
        /// DoH servers, tried in order until one answers. Default: `DoHEndpoint.wellKnown`.
        public var endpoints: [DoHEndpoint]
        /// Which record types to ask for: A, AAAA or both (default, asked in parallel).
        public var families: AddressFamilies
        /// Limit for each HTTP exchange with an endpoint, in seconds (default 5), passed to and enforced by
        /// the `DoHTransport`. A lookup that fails over through every endpoint can take up to this times
        /// the number of endpoints, plus the system resolver's time.
        public var requestTimeout: TimeInterval
        /// Ask the operating system's resolver when no DoH endpoint answers (default `true`).
        ///
        /// - Warning: The system resolver is exactly what DoH protects against: with this on, an
        ///   attacker who can block the DoH endpoints gets the lookup answered by plain DNS, which they
        ///   may be able to forge. TLS verification on the name still stops them impersonating the
        ///   server, but not from steering or blackholing the connection. Turn it off for strict DoH.
        public var fallbackToSystemResolver: Bool
        /// `HOST:PORT:ADDR` mappings checked before anything else, answered with source `.staticMapping`.
        public var staticEntries: [StaticHostResolver.Entry]
        /// Answers with a shorter TTL are kept this long (default 0: TTLs are honoured as they are).
        public var minimumTTL: TimeInterval
        /// Answers with a longer TTL are kept only this long (default 86,400 = one day).
        public var maximumTTL: TimeInterval
        /// NXDOMAIN and NODATA answers are cached for their SOA-derived negative TTL (RFC 2308 §5), but
        /// at most this long (default 300). Negative answers without an SOA are not cached.
        public var negativeCacheTTLCap: TimeInterval
        /// The most names (per family selection) kept in the cache (default 1,000); when full, expired
        /// entries and then those closest to expiry make room. 0 disables caching.
        public var cacheCapacity: Int
        /// The largest DoH response body accepted, in bytes (default 65,535).
        public var maxResponseBytes: Int

        public init(
            endpoints: [DoHEndpoint] = DoHEndpoint.wellKnown,
            families: AddressFamilies = .both,
            requestTimeout: TimeInterval = 5,
            fallbackToSystemResolver: Bool = true,
            staticEntries: [StaticHostResolver.Entry] = [],
            minimumTTL: TimeInterval = 0,
            maximumTTL: TimeInterval = 86_400,
            negativeCacheTTLCap: TimeInterval = 300,
            cacheCapacity: Int = 1_000,
            maxResponseBytes: Int = DoHClient.defaultMaxResponseBytes
        ) {
            self.endpoints = endpoints
            self.families = families
            self.requestTimeout = requestTimeout
            self.fallbackToSystemResolver = fallbackToSystemResolver
            self.staticEntries = staticEntries
            self.minimumTTL = minimumTTL
            self.maximumTTL = maximumTTL
            self.negativeCacheTTLCap = negativeCacheTTLCap
            self.cacheCapacity = cacheCapacity
            self.maxResponseBytes = maxResponseBytes
        }

        /// The defaults.
        public static var `default`: Configuration { Configuration() }

        /// DoH only: no system-resolver fallback, so a lookup either comes from a DoH endpoint (or a
        /// static entry) or fails with `ResolutionError.resolverUnavailable`.
        public static var strict: Configuration { Configuration(fallbackToSystemResolver: false) }
    }
}
