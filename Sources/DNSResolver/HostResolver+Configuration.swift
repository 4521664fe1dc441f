import Foundation
import HTTPDNSCore

extension HostResolver {
    /// How a `HostResolver` resolves and caches. All durations are in seconds; each says what it
    /// accepts, and `HostResolver.init` throws `InvalidDurationError` naming the first that is not
    /// (negative, NaN, infinite, or 0 where 0 would mean nothing), `serveStale`'s timers included.
    public struct Configuration: Sendable {
        /// The providers asked, in order, until one answers: RFC 8484 DoH, JSON DoH, HTTPDNS APIs.
        /// Default: `DoHEndpoint.wellKnown`.
        public var providers: [any ResolutionProvider]
        /// The RFC 8484 endpoints among `providers`; setting it replaces every provider with these.
        public var endpoints: [DoHEndpoint] {
            get { providers.compactMap { $0 as? DoHEndpoint } }
            set { providers = newValue }
        }
        /// Which record types to ask for: A, AAAA, both (default, asked in parallel), or `auto` (the
        /// families this host has a route for, by `routeProbe`).
        public var families: AddressFamilies
        /// Limit for each HTTP exchange with an endpoint, in seconds (default 5), passed to and enforced by
        /// the `DoHTransport`. A lookup that fails over through every endpoint can take up to this times
        /// the number of endpoints, plus the system resolver's time. Finite and above 0 (0 would fail
        /// every exchange unsent).
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
        /// Finite, 0 or more, at most `maximumTTL`.
        public var minimumTTL: TimeInterval
        /// Answers with a longer TTL are kept only this long (default 86,400 = one day). Finite, 0 or
        /// more; 0 caches no positive answer.
        public var maximumTTL: TimeInterval
        /// NXDOMAIN and NODATA answers are cached for their SOA-derived negative TTL (RFC 2308 §5), but
        /// at most this long (default 300). Negative answers without an SOA are not cached. Finite, 0 or
        /// more; 0 caches no negative answer.
        public var negativeCacheTTLCap: TimeInterval
        /// The most names (per family selection) kept in the cache (default 1,000); when full, expired
        /// entries and then those closest to expiry make room. 0 disables caching.
        public var cacheCapacity: Int
        /// The largest DoH response body accepted, in bytes (default 65,535).
        public var maxResponseBytes: Int

        // MARK: Failover and health

        /// Ask the first two available providers at once and take the first answer (default `false`).
        /// Halves the worst-case latency of a dead first provider at the cost of twice the queries.
        public var racesFirstTwoProviders: Bool = false
        /// After this many consecutive failures a provider is skipped (default 3; 0 never skips).
        public var failureThreshold: Int = 3
        /// How long, in seconds, a provider over `failureThreshold` is skipped before it is probed again
        /// (default 30). When every provider is in back-off they are all tried anyway, in order.
        /// Finite, 0 or more; 0 skips none.
        public var failureBackoff: TimeInterval = 30
        /// Which providers' answers lose their local addresses (loopback, private, link-local,
        /// unique-local, multicast): `.publicResolvers` by default, the built-in public DoH services.
        /// See `RebindingGuard`.
        public var rebindingGuard: RebindingGuard = .publicResolvers

        // MARK: Cache policy

        /// Opt-in stale reuse ("expired IP reuse"): an answer expired by at most this many seconds is
        /// returned at once (`isStale`, ttl 0) while a background refresh runs. `nil` (default): off.
        /// Finite and above 0 (0 would reuse nothing: turn it off with `nil`).
        ///
        /// - Warning: A stale address may no longer be the server's; TLS verification on the name still
        ///   protects the connection, but the request may fail where a fresh lookup would not.
        public var maximumStaleness: TimeInterval? = nil
        /// RFC 8767 serve-stale: an expired answer (up to `ServeStale.maximumStaleAge` old) is served
        /// when a fresh lookup fails to reach any resolver or has not answered within the client
        /// response timer; the lookup goes on in the background and refreshes the cache. `nil`
        /// (default): off. `maximumStaleness`, when set, answers at once instead, within its limit.
        ///
        /// - Warning: As with `maximumStaleness`, a stale address may no longer be the server's.
        public var serveStale: ServeStale? = nil
        /// Refresh-ahead: a cached answer used with at most this many seconds left starts a background
        /// refresh, so names in use do not expire under their users. `nil` (default): off. Finite and
        /// above 0 (0 would refresh nothing: turn it off with `nil`).
        public var refreshAheadWindow: TimeInterval? = nil
        /// Names resolved in the background when the resolver is created (batched where the first
        /// provider has a batch API). Default none.
        public var preResolveHosts: [String] = []
        /// An SQLite file the cache is kept in, so a restarted process has answers at once, shared
        /// safely by several processes (Documentation/Resolver.md gives its schema). Read at creation
        /// (at most `cacheCapacity` rows, latest expiry first); each new answer and each flush is
        /// written by a background writer, never on a lookup's path. Created, with its directory, when
        /// missing; a cache file of httpdns's former JSON format is migrated to SQLite once. A file that
        /// cannot be used (a directory, corrupt, another program's, a newer schema) is reported to the
        /// observer, left as it is, and the cache kept in memory. A file that may not be written, or
        /// one in a directory that may not be written (where SQLite keeps its -wal and -shm files), is
        /// read, with a warning that new answers are not saved. `nil` (default): memory only.
        public var persistentCacheFile: URL? = nil
        /// Rows in the cache file expired longer ago than this, in seconds, are dropped (default 86,400).
        /// Rows expired less long are loaded, usable only as stale answers. Finite, 0 or more; 0 drops
        /// every expired row.
        public var persistentCacheMaximumAge: TimeInterval = 86_400
        /// How long, in seconds, the cache file's writer waits for another process's write lock
        /// (default 2); reading the file at creation never waits for it. A background write still
        /// locked out keeps its changes in memory and tries again every second;
        /// `savePersistentCache()` waits this long, then warns of what was not saved. Finite, 0 or more;
        /// 0 never waits (a locked file is written on a later try).
        public var persistentCacheBusyTimeout: TimeInterval = 2

        // MARK: Service bindings (RFC 9460)

        /// Ask for the name's HTTPS records beside A and AAAA, in parallel through the same transport
        /// (so over the same DoH connection), and give them in `HostResolution.serviceBindingRecords`
        /// (default `true`, as browsers do: the query rides the A/AAAA exchange's connection, adds no
        /// round trip, and the lookup waits for it at most `serviceBindingWait`; `HTTPClient` then
        /// follows the records, `HTTPClient.Configuration.usesServiceBindings`, and upgrades
        /// `http://`). A cache hit answers the addresses and the records from one entry, each with
        /// its own TTL, and never waits for an expired HTTPS answer: it goes without records while
        /// one refresh runs in the background. `false` sends A and AAAA queries only. Not for
        /// a host a DNSSEC policy validates (`dnssec`): its HTTPS records would not be validated, so
        /// none are asked for and the connection follows only its validated addresses. Only providers
        /// that can carry them are asked (RFC 8484 DoH; not JSON DoH
        /// or the vendor HTTPDNS APIs, for which the records are absent). A failed or malformed HTTPS
        /// answer never fails the lookup: the observer is told (`serviceBindingsDropped`) and the
        /// addresses are returned without records. Records are cached for their TTL, clamped as
        /// addresses are; in memory only, not in `persistentCacheFile`.
        public var asksForServiceBindings: Bool = true
        /// The most AliasMode records followed from one name (default 8; RFC 9460 §3.1 asks for a
        /// limit). A longer chain, or a loop, gives no records and is reported to the observer.
        public var serviceBindingAliasLimit: Int = 8
        /// How long, in seconds, a lookup waits for the HTTPS answer once its addresses are known
        /// (default 0.5; nil waits as long as the HTTPS query takes, up to its providers' request
        /// time limits). Past it the addresses go without records, and the query runs on for the
        /// cache, so the next lookup has them. Browsers bound this wait in the same way: a provider
        /// or path that drops HTTPS queries must not slow every lookup (or a stale answer served
        /// from the cache) by a request time-out. Measured on `clock`.
        public var serviceBindingWait: TimeInterval? = 0.5

        // MARK: When not to use the providers

        /// Names that go straight to the system resolver: `name` matches exactly, `.suffix` (or
        /// `*.suffix`) matches every name under it. `localhost` and `*.localhost` always do; IP
        /// literals are never resolved.
        public var bypassList: [String] = []

        // MARK: Families and observation

        /// Decides `AddressFamilies.auto`: probed for each lookup, or once per network change when
        /// a `NetworkChangeWatcher` (or `reprobeFamilies()`) has probed.
        public var routeProbe: RouteProbe = RouteProbe()
        /// What `networkChanged(_:)` does with the cache when the network changes (default
        /// `.flush`). Nothing watches the network unless a `NetworkChangeWatcher` is made.
        public var networkChangePolicy: NetworkChangePolicy = .flush
        /// IPv6 addresses synthesized from IPv4 ones on an IPv6-only network with NAT64 (default
        /// `.off`; see `NAT64Synthesis`). It probes the routes on each lookup unless a
        /// `NetworkChangeWatcher` keeps the families probed.
        public var nat64: NAT64Synthesis = .off
        /// How `.discover` finds the prefix (default: `ipv4only.arpa` through the system resolver).
        public var nat64Discovery: NAT64PrefixDiscovery = NAT64PrefixDiscovery()
        /// Receives cache, provider, failover and fallback events. Default none.
        public var observer: (any ResolverObserver)? = nil
        /// DNSSEC validation of RFC 8484 answers (`HostResolver+DNSSEC.swift`). Default: off.
        public var dnssec: DNSSECSettings = .off

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
            self.providers = endpoints
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

        /// RFC 8767's timers, all in seconds; the defaults are the RFC's suggested values.
        ///
        /// Each is a number of seconds, 0 or more; `clientResponseTimeout` and `maximumStaleAge` may
        /// also be `.infinity` (no timer, no age limit), while an infinite `staleAnswerTTL` would never
        /// expire and an infinite `failureRecheckInterval` never ask again. `HostResolver.init` throws
        /// `InvalidDurationError` naming any other value (`serveStale.clientResponseTimeout`, say),
        /// as it does for every duration of the configuration.
        public struct ServeStale: Sendable, Equatable {
            /// The client response timer (§5, 1.8 s): how long a lookup waits for a fresh answer
            /// before it is answered with the stale one. 0: the stale answer at once (the lookup goes
            /// on); `.infinity`: no timer, the stale answer only when no resolver can be reached.
            public var clientResponseTimeout: TimeInterval
            /// The TTL given a stale answer (§4, 30 s): `HostResolution.ttl` of the answers served stale.
            public var staleAnswerTTL: TimeInterval
            /// The maximum stale timer (§5 suggests 1 to 3 days; default 1 day): an answer expired
            /// longer ago is not served. `.infinity`: no limit.
            public var maximumStaleAge: TimeInterval
            /// The failure recheck timer (§4, 30 s): after a lookup failed and was answered stale,
            /// lookups of the name are answered stale at once for this long, without asking again.
            public var failureRecheckInterval: TimeInterval

            public init(
                clientResponseTimeout: TimeInterval = 1.8, staleAnswerTTL: TimeInterval = 30,
                maximumStaleAge: TimeInterval = 86_400, failureRecheckInterval: TimeInterval = 30
            ) {
                self.clientResponseTimeout = clientResponseTimeout
                self.staleAnswerTTL = staleAnswerTTL
                self.maximumStaleAge = maximumStaleAge
                self.failureRecheckInterval = failureRecheckInterval
            }

            /// RFC 8767's suggested values: 1.8 s, 30 s, one day, 30 s.
            public static var rfc8767: ServeStale { ServeStale() }
        }

        /// The defaults.
        public static var `default`: Configuration { Configuration() }

        /// DoH only: no system-resolver fallback, so a lookup either comes from a DoH endpoint (or a
        /// static entry) or fails with `ResolutionError.resolverUnavailable`.
        public static var strict: Configuration { Configuration(fallbackToSystemResolver: false) }
    }
}

extension HostResolver.Configuration {
    /// - Throws: `InvalidDurationError` naming the first duration that is not one its setting
    ///   accepts (each setting's documentation says which), an Alibaba endpoint's
    ///   `signatureLifetime` and `clockOffset` among `providers` included.
    func checkDurations() throws(InvalidDurationError) {
        func check(_ seconds: TimeInterval?, _ requirement: InvalidDurationError.Requirement, _ name: String) throws(InvalidDurationError) {
            try InvalidDurationError.check(seconds, requirement, setting: "HostResolver.Configuration.\(name)")
        }
        try check(requestTimeout, .positive, "requestTimeout")
        try check(maximumTTL, .nonNegative, "maximumTTL")
        // Above `maximumTTL` it would never apply: every TTL is clamped to `minimumTTL...maximumTTL`.
        try check(minimumTTL, .nonNegativeAtMost(maximumTTL), "minimumTTL")
        try check(negativeCacheTTLCap, .nonNegative, "negativeCacheTTLCap")
        try check(failureBackoff, .nonNegative, "failureBackoff")
        try check(maximumStaleness, .positive, "maximumStaleness")
        try check(refreshAheadWindow, .positive, "refreshAheadWindow")
        try check(persistentCacheMaximumAge, .nonNegative, "persistentCacheMaximumAge")
        try check(persistentCacheBusyTimeout, .nonNegative, "persistentCacheBusyTimeout")
        if let serveStale {
            try check(serveStale.clientResponseTimeout, .nonNegativeOrInfinity, "serveStale.clientResponseTimeout")
            try check(serveStale.staleAnswerTTL, .nonNegative, "serveStale.staleAnswerTTL")
            try check(serveStale.maximumStaleAge, .nonNegativeOrInfinity, "serveStale.maximumStaleAge")
            try check(serveStale.failureRecheckInterval, .nonNegative, "serveStale.failureRecheckInterval")
        }
        for (index, provider) in providers.enumerated() {
            if let endpoint = provider as? AlibabaHTTPDNSEndpoint {
                try check(endpoint.signatureLifetime, .positive, "providers[\(index)].signatureLifetime")
                try check(endpoint.clockOffset, .finite, "providers[\(index)].clockOffset")
            } else if let endpoint = provider as? AlibabaHTTPDNSV2Endpoint {
                try check(endpoint.signatureLifetime, .positive, "providers[\(index)].signatureLifetime")
                try check(endpoint.clockOffset, .finite, "providers[\(index)].clockOffset")
            }
        }
    }
}
