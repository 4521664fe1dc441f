import Foundation
import HTTPDNSCore
import TLSTrust

/// An HTTP/1.1 and HTTP/2 client on libcurl that connects to the addresses its resolver chooses
/// while SNI, `Host` and certificate verification use the URL's host name.
///
/// All clients in a process share one transfer thread (libcurl multi interface), which is also a
/// Swift executor (`executor`). Connections and
/// TLS sessions are pooled per trust policy, HTTP version preference and per-host connection limit,
/// and reused only for the same host, port and address set. A client is cheap; create one per
/// configuration.
///
/// ```swift
/// let client = try HTTPClient(resolver: resolver)
/// let response = try await client.execute(HTTPRequest(url: URL(string: "https://example.com/")!))
/// ```
public final class HTTPClient: Sendable {
    /// Client-wide settings; requests may override some of them.
    public struct Configuration: Sendable {
        /// What server certificates must chain to. Default: system roots.
        public var trust: TrustPolicy
        /// Connect and total time limits, in seconds. Default: 10 s to connect, no total limit. Each
        /// limit is nil or as `Timeouts` says (above 0, at most `Timeouts.maximum`): `init` throws
        /// `InvalidDurationError` for another.
        public var timeouts: Timeouts
        /// HTTP version preference. Default: HTTP/2 by ALPN, else HTTP/1.1.
        public var httpVersion: HTTPVersionPreference
        /// `User-Agent` sent unless a request sets one; nil sends none.
        public var userAgent: String?
        /// Advertise every content coding libcurl supports and decode responses
        /// (CURLOPT_ACCEPT_ENCODING ""). Default: true.
        public var decompressesResponses: Bool
        /// Race connections to a name's addresses with Happy Eyeballs v2 (RFC 8305: families interleaved,
        /// a new attempt every 250 ms or as soon as one fails) instead of libcurl's sequential attempts,
        /// so a dead first address (refused, black-holed, an IPv6 route that goes nowhere) costs at
        /// most 250 ms. The race runs once per new route, a host on a set of addresses (a route
        /// connected in the last 100 s reuses its pooled connection and starts with the address that
        /// won); libcurl then connects to the winner first, so a new route costs one extra TCP handshake. Requests with one address, with
        /// `connectTo` of one address, to an IP literal or through a proxy are not raced.
        /// Default: true. false: libcurl's own attempts in order: a refused address is skipped at
        /// once, a black-holed one after its share of the connect timeout (half of it for the first of
        /// two addresses; CURLOPT_CONNECTTIMEOUT_MS), as in the curl tool.
        public var racesAddresses: Bool = true
        /// Orders a host's addresses by how connections to them went before they are raced (or, with
        /// `racesAddresses` off, a resolver's list handed to libcurl, which tries it in order), and learns from each
        /// race, from each new connection libcurl makes without one, and from `probedPorts`' and
        /// `probeConnections`' TCP probes (`AddressRanking`). Default: a ranking of this configuration's own,
        /// shared by the clients made from it (`AddressRanking.shared` shares one across the
        /// process); nil races them in the resolver's order.
        public var addressRanking: AddressRanking? = AddressRanking()
        /// Host names whose addresses are TCP-connect probed (`ConnectProbe`) on the given port, in the
        /// background, after a resolution that brings an address `addressRanking` has not probed in
        /// the last minute: the vendors' "IP ranking list" (Alibaba's `setIPRankingList`, host → port).
        /// The probes rank the addresses before any request has connected to them; each is one TCP
        /// handshake, closed at once, bounded by the connect time limit. Exact names, as the URL's host
        /// (lowercase). Default: none (only real connections rank addresses). Needs `addressRanking`.
        public var probedPorts: [String: Int] = [:]
        /// When to go through an HTTP proxy (by host name, no IP replacement). Default: curl's
        /// environment variables (`https_proxy`, `http_proxy`, `all_proxy`, `no_proxy`).
        public var proxy: ProxyPolicy = .environment
        /// Per-host trust policies; when set, a request without its own `trust` uses
        /// `trustPolicies.policy(for: host)` instead of `trust`. Default nil.
        public var trustPolicies: TrustPolicyManager?
        /// Receives pin mismatches (enforced and report-only) and connections made without
        /// verification, on a thread driving libcurl (usually the loop thread, `executor`) or the
        /// request's own: keep it short and never block in it, as it may delay every transfer of
        /// the process. A connection made without verification is reported
        /// when its response head arrives, before any body byte reaches a `.handler` or `.streaming`
        /// destination (a redirect's whose body is dropped, and the rest, when the request ends).
        /// nil: insecure connections are warned about on stderr, pin mismatches are only in errors
        /// and responses.
        public var trustEventHandler: (@Sendable (TrustEvent) -> Void)?
        /// The most connections open at once to one host, port and address set
        /// (CURLMOPT_MAX_HOST_CONNECTIONS); requests beyond it wait for a free connection, or over
        /// HTTP/2 for a free stream on one (each carries up to 100 at once,
        /// CURLMOPT_MAX_CONCURRENT_STREAMS). A waiting request counts its connect time limit
        /// (`Timeouts.connect`) from when it was sent: past it, it fails with `.timedOut` (curl 28),
        /// as does one past its `total` limit. nil: no limit, a new connection for every request
        /// that finds none free (an HTTP/2 burst then opens one per request beyond the streams of
        /// those already open). Default: 16 (browsers use 6). Values below 1 are taken as 1.
        public var maximumConnectionsPerHost: Int? = 16
        /// The shortest time, in seconds, between two uploads of the same pin report (same host,
        /// presented chain and report URL) to `PinSet.reportURL`. Default: one day (TrustKit's). 0 or
        /// more: 0 uploads every mismatch, `.infinity` each report once per process; `init` throws
        /// `InvalidDurationError` for a negative or NaN one.
        public var pinReportInterval: Double = 86_400
        /// Follow the origin's HTTPS records (RFC 9460) when its resolution carries them
        /// (`HostResolution.serviceBindingRecords`, asked for by `HostResolver` under
        /// `HostResolver.Configuration.asksForServiceBindings`): the first usable ServiceMode record
        /// gives the port connected to, the HTTP versions offered (its `alpn`: `h2` and `http/1.1`;
        /// `h3` is skipped, this libcurl has no HTTP/3) and, when its TargetName is another name,
        /// that name's addresses (its `ipv4hint`/`ipv6hint` while they are not known yet). SNI, `Host`
        /// and the certificate check stay on the origin's name. Hostile records (port 0, hints of the
        /// wrong family) and records this client cannot use are passed over; with none left the
        /// request goes to the origin's addresses and port. What was done is in
        /// `ConnectionReport.serviceBindingRoute` (and `HTTPClientError.serviceBindingRoute`).
        /// Applies to `https` URLs on port 443 (and `http` ones upgraded to them): another port's
        /// records are `_PORT._https.NAME`'s (RFC 9460 §9.1), which the resolver does not ask.
        /// Requests with `connectTo` or through a proxy have no resolution, so no records. Default: true.
        public var usesServiceBindings: Bool = true
        /// Send an `http://` request on port 80 as `https://` on port 443 when the origin has a usable
        /// HTTPS record (RFC 9460 §9.5: as if a 307 redirect said so; `HTTPResponse.url` is the
        /// `https` URL). Needs `usesServiceBindings`. Default: true; false keeps `http://` as given
        /// (the CLI's `--no-https-upgrade`).
        public var upgradesToHTTPS: Bool = true
        public init(
            trust: TrustPolicy = .system,
            timeouts: Timeouts = Timeouts(),
            httpVersion: HTTPVersionPreference = .http2,
            userAgent: String? = "httpdns/1.0",
            decompressesResponses: Bool = true
        ) {
            self.trust = trust
            self.timeouts = timeouts
            self.httpVersion = httpVersion
            self.userAgent = userAgent
            self.decompressesResponses = decompressesResponses
        }
    }

    public let configuration: Configuration
    /// Turns host names into addresses for every request without `connectTo`.
    public let resolver: any HostResolving
    private let pool: PoolDescriptor
    private let engine: TransferEngine
    private let lastTarget = RequestTarget.Memo()
    private let optionLists = TransferOptionsMemo()

    /// - Parameters:
    ///   - configuration: Trust, timeouts, versions.
    ///   - resolver: Where addresses come from (a DoH resolver, the system resolver, static entries).
    /// - Throws: `InvalidDurationError` naming the first time setting of `configuration` that is not
    ///   one it accepts: a `timeouts` limit that is not nil, above 0 and at most `Timeouts.maximum`;
    ///   a negative or NaN `pinReportInterval`.
    public convenience init(configuration: Configuration = Configuration(), resolver: any HostResolving) throws(InvalidDurationError) {
        let limits = configuration.timeouts
        for (name, seconds) in [("connect", limits.connect), ("total", limits.total), ("idle", limits.idle)] {
            try InvalidDurationError.check(seconds, .positiveAtMost(Timeouts.maximum), setting: "HTTPClient.Configuration.timeouts.\(name)")
        }
        try InvalidDurationError.check(configuration.pinReportInterval, .nonNegativeOrInfinity, setting: "HTTPClient.Configuration.pinReportInterval")
        self.init(checkedConfiguration: configuration, resolver: resolver)
    }

    /// A client whose configuration is known to be valid (its durations the defaults), for the
    /// package's own clients.
    package init(checkedConfiguration configuration: Configuration, resolver: any HostResolving) {
        self.configuration = configuration
        self.resolver = resolver
        self.engine = .shared
        self.pool = engine.pool(
            for: configuration.trust, version: configuration.httpVersion,
            connectionsPerHost: configuration.maximumConnectionsPerHost.map { max(1, $0) })
    }

    /// Sends `request` and returns the final response.
    ///
    /// The host is resolved by `resolver` (unless `request.connectTo` is set or the host is an IP
    /// literal), and the connection goes to those addresses, raced with Happy Eyeballs v2 when
    /// `configuration.racesAddresses` (the default), keeping SNI, `Host` and verification on the
    /// name. Redirects are not followed.
    ///
    /// The request is sent once. The one resend libcurl makes itself, on a fresh connection when a
    /// reused one closes before any response byte, happens only for idempotent requests
    /// (`HTTPRequest.isIdempotent`); a `POST` or `PATCH` then fails with `.transferFailed` (curl 52).
    ///
    /// - Parameters:
    ///   - request: What to send.
    ///   - destination: Where the body goes. Default: collected in memory without limit.
    /// - Returns: The response; `body` is filled only for `.memory`.
    /// - Throws: `HTTPClientError` (its `kind` tells resolution, connection, TLS, verification,
    ///   timeout and I/O failures apart), or `CancellationError` when the task is cancelled, which
    ///   stops the transfer.
    public func execute(_ request: HTTPRequest, to destination: ResponseBodyDestination = .memory(limit: nil)) async throws -> HTTPResponse {
        try await onLoop { try await perform(request, to: destination, discardingBodyWhen: nil) }
    }

    /// The executor every client's transfers run on: one thread per process, which owns the
    /// libcurl multi handles and waits for all their sockets in one epoll set.
    ///
    /// A caller elsewhere (the global executor) builds its request on its own thread and, while the
    /// loop is idle, starts it there as well; the loop thread takes over the transfer and resumes
    /// the caller once the response is in: one thread hand-off per request. Code that sends many
    /// requests can run on the loop instead (`execute` then sets the options, reads the response
    /// and resumes the caller there) and makes no thread hop at all:
    ///
    /// ```swift
    /// try await withTaskExecutorPreference(client.executor) {
    ///     for url in urls { _ = try await client.execute(HTTPRequest(url: url)) }
    /// }
    /// ```
    ///
    /// - Warning: Work on it delays every transfer of the process: never block it (no synchronous
    ///   file or network I/O, no long computation, no semaphore waits).
    public var executor: any TaskExecutor { engine }

    /// The same loop thread as a `SerialExecutor`, for an actor that should share it:
    /// `nonisolated var unownedExecutor: UnownedSerialExecutor { client.serialExecutor.asUnownedSerialExecutor() }`.
    /// Its requests then leave the loop thread only to resolve names that are not cached.
    /// - Warning: As `executor`: never block it.
    public var serialExecutor: any SerialExecutor { engine.serialExecutor }

    /// Runs `body` where the caller runs, keeping a caller on the loop thread there (see
    /// `executor`): an actor on `serialExecutor` that prefers no task executor would otherwise send
    /// the request's nonisolated work to the global executor and back. A caller elsewhere is not
    /// moved: the loop starts its transfer without a hop (`TransferEngine.submit`).
    func onLoop<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        guard engine.isOnLoop else { return try await body() }
        return try await withTaskExecutorPreference(engine, operation: body)
    }

    /// Closes the idle keep-alive connections of this client's pool and forgets its TLS sessions,
    /// returning their file descriptors; the next request connects (and handshakes) afresh.
    ///
    /// The pool is the one for `configuration.trust`, `configuration.httpVersion` and
    /// `configuration.maximumConnectionsPerHost`, shared with every client of the same three settings
    /// (requests that override the first two use other pools, which are left alone). libcurl keeps
    /// idle connections for reuse until they are 118 s old, up to 64 per pool (CURLMOPT_MAXCONNECTS),
    /// so after a burst of requests to many hosts a process may hold dozens of idle sockets; call
    /// this to release them.
    /// - Returns: false, closing nothing, when a transfer of the pool is in flight (a connection in
    ///   use cannot be told from an idle one from outside libcurl).
    @discardableResult
    public func closeIdleConnections() async -> Bool {
        await engine.closeIdleConnections(of: pool)
    }

    /// What to do when the host's network changed (`NetworkChangeWatcher` calls it): closes this
    /// client's pool as `closeIdleConnections()` does (the same pool, shared by the clients of the
    /// same three settings), and when a transfer is in flight in it, as soon as the last one ends,
    /// so that no connection from an address the host no longer has, or over a route that is gone,
    /// is reused (the pool reuses a connection for the same host, port and address set, whatever
    /// the network). Forgets `configuration.addressRanking`'s records (`AddressRanking.forgetAll()`).
    /// - Returns: false when the pool was busy and is closed later.
    @discardableResult
    public func networkChanged() async -> Bool {
        configuration.addressRanking?.forgetAll()
        return await engine.retire(pool)
    }

    /// One request without redirects; `discardsBody` (see `Transfer.discardsBody`) lets the
    /// redirect loop drop the bodies of redirects it will follow.
    func perform(
        _ request: HTTPRequest, to destination: ResponseBodyDestination,
        discardingBodyWhen discardsBody: (@Sendable (HTTPResponseHead) -> Bool)?
    ) async throws -> HTTPResponse {
        var target = try lastTarget.target(for: request.url)
        // The policy first: a host no policy allows must not even be resolved.
        let policy = try trustPolicy(for: request, host: target.host)
        var resolution: HostResolution?
        var addresses = request.connectTo
        // Through a proxy the request goes by name: the proxy resolves it (no IP replacement).
        let proxy = request.connectTo == nil ? configuration.proxy.proxy(scheme: target.isHTTPS ? "https" : "http", host: target.host, port: target.port) : nil
        // Resolution and the address race count against `Timeouts.total`, which covers the whole
        // request: libcurl gets what is left. Resolving is also bounded by `Timeouts.connect`, as
        // CURLOPT_CONNECTTIMEOUT's connection phase includes the name resolve, but the connection
        // then gets the whole limit again: a cold DoH lookup (a TLS handshake of its own) would
        // otherwise leave a slow connection too little of it.
        var request = request
        let begin = ContinuousClock.now
        let limits = request.timeouts ?? configuration.timeouts
        try limits.check(url: request.url)
        try RequestFraming.checkFields(of: request)
        let deadlines = RequestDeadlines(given: limits, begin: begin)
        /// Takes the time since `begin` off the total limit the rest of the request gets.
        func spend() {
            guard limits.total != nil else { return }
            request.timeouts = deadlines.remaining(at: .now)
        }
        var lookupTime: TimeInterval?
        var serviceRoute: ServiceBindingRoute?
        var askedVersion = request.httpVersion
        if addresses == nil, !target.isIPLiteral, proxy == nil {
            do {
                let resolved = try await resolve(host: target.host, port: target.port, within: deadlines.resolveLimit, url: request.url)
                resolution = resolved
                addresses = resolved.addresses
                if configuration.usesServiceBindings, let records = resolved.serviceBindingRecords {
                    askedVersion = request.httpVersion
                    serviceRoute = try await followServiceBindings(records, request: &request, target: &target, addresses: &addresses, within: deadlines.resolveLimit)
                }
            } catch let error as ResolutionError {
                throw HTTPClientError(kind: .couldNotResolve, message: error.description, url: request.url, resolutionError: error)
            }
            lookupTime = (ContinuousClock.now - begin).seconds
            spend()
            if !configuration.probedPorts.isEmpty, let port = configuration.probedPorts[target.host], let ranking = configuration.addressRanking, let list = addresses {
                ranking.probeInBackground(list, port: port, timeout: ConnectProbe.timeout(forConnectLimit: limits.connect))
            }
        }
        /// `send` with what the resolution (and any record) gave; a failure carries the route.
        func attempt(_ request: HTTPRequest, addresses: [IPAddress]?, route: ServiceBindingRoute?) async throws -> HTTPResponse {
            do {
                return try await send(
                    request, target: target, addresses: addresses, resolution: resolution, serviceRoute: route,
                    policy: policy, proxy: proxy, deadlines: deadlines, lookupTime: lookupTime, begin: begin,
                    to: destination, discardingBodyWhen: discardsBody)
            } catch var error as HTTPClientError {
                error.serviceBindingRoute = route
                throw error
            }
        }
        var route = serviceRoute
        var current = request
        var currentAddresses = addresses
        while true {
            do {
                return try await attempt(current, addresses: currentAddresses, route: route)
            } catch let error as HTTPClientError {
                guard error.kind == .couldNotConnect, var failed = route, let record = failed.record, let origin = resolution?.addresses else { throw error }
                let unreachable = "HTTPS record priority \(record.priority): \(failed.targetName) port \(failed.port) could not be reached"
                // The next usable record's endpoint, then the origin's (RFC 9460 §3).
                var next = request
                next.httpVersion = askedVersion
                var nextAddresses: [IPAddress]? = origin
                if let records = resolution?.serviceBindingRecords,
                    var nextRoute = try await followServiceBindings(
                        records, request: &next, target: &target, addresses: &nextAddresses, within: deadlines.resolveLimit, after: record),
                    let nextRecord = nextRoute.record
                {
                    nextRoute.upgradedToHTTPS = failed.upgradedToHTTPS
                    nextRoute.notes = failed.notes + ["\(unreachable); trying HTTPS record priority \(nextRecord.priority)"] + nextRoute.notes
                    route = nextRoute
                    current = next
                    currentAddresses = nextAddresses
                    continue
                }
                // The origin's own endpoint, as without records, unless the record's was the origin's.
                guard failed.changesConnection else { throw error }
                failed.fallBackToOrigin("\(unreachable); connecting to \(target.host)'s addresses on port \(failed.originPort)")
                route = failed
                current = next
                currentAddresses = origin
            }
        }
    }

    /// The rest of `perform`, once the addresses (and any HTTPS record's route) are known.
    private func send(
        _ request: HTTPRequest, target: RequestTarget, addresses: [IPAddress]?, resolution: HostResolution?,
        serviceRoute: ServiceBindingRoute?, policy: TrustPolicy, proxy: URL?, deadlines: RequestDeadlines,
        lookupTime: TimeInterval?, begin: ContinuousClock.Instant, to destination: ResponseBodyDestination,
        discardingBodyWhen discardsBody: (@Sendable (HTTPResponseHead) -> Bool)?
    ) async throws -> HTTPResponse {
        var request = request
        var addresses = addresses
        let limits = request.timeouts ?? configuration.timeouts
        func spend() {
            guard limits.total != nil else { return }
            request.timeouts = deadlines.remaining(at: .now)
        }
        let connectPort =
            if let route = serviceRoute, route.record != nil { route.port } else if request.connectTo != nil, let port = request.connectPort, (1...65535).contains(port) { port } else { target.port }
        try Task.checkCancellation()
        let engine = self.engine
        let version = request.httpVersion ?? configuration.httpVersion
        // A request with a body never shares an HTTP/2 connection (Documentation/LibcurlNotes.md #7).
        let multiplexes = request.body == nil || version == .http1_1
        let pool =
            policy == configuration.trust && version == configuration.httpVersion && multiplexes
            ? self.pool
            : await engine.poolOffLoop(for: policy, version: version, connectionsPerHost: self.pool.connectionsPerHost, multiplexes: multiplexes)
        var raceTime: TimeInterval?
        if configuration.racesAddresses, let list = addresses, list.count > 1, !target.isIPLiteral {
            do {
                (addresses, raceTime) = try await raceAddresses(list, target: target, port: connectPort, pool: pool, request: request)
            } catch var error as HTTPClientError {
                error.resolution = resolution
                throw error
            }
            spend()
        } else if let ranking = configuration.addressRanking, request.connectTo == nil, let list = addresses, list.count > 1, !target.isIPLiteral {
            // libcurl tries the resolver's addresses in order: the ranking's, as a race would have
            // started with it. A caller's own `connectTo` order is kept.
            addresses = ranking.order(list, port: connectPort)
        }
        // Without verification, the warning (a trust event) goes out when the head arrives, before
        // any body byte reaches a destination that streams it, as curl's verbose lines precede the body.
        // (Only then: every other request keeps its destination and allocates nothing more.)
        var warnedAtHead: LockedValue<Bool>?
        var destination = destination
        if policy.verification == .insecureSkippingAllVerification {
            let warned = LockedValue(false)
            warnedAtHead = warned
            destination = destination.observingHead { connection in
                warned.withLock { $0 = true }
                self.deliverTrustEvents(of: connection, host: target.host, port: target.port)
            }
        }
        let transfer = try Transfer(
            request: request, target: target, connectPort: connectPort, addresses: addresses, resolution: resolution,
            configuration: configuration, destination: destination, pool: pool,
            proxy: proxy, memo: optionLists)
        transfer.discardsBody = discardsBody
        transfer.serviceBindingRoute = serviceRoute
        transfer.addressRaceTime = raceTime
        transfer.nameLookupTime = lookupTime
        transfer.startTime = (ContinuousClock.now - begin).seconds
        do {
            var response = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    transfer.continuation = continuation
                    engine.submit(transfer)
                }
            } onCancel: {
                engine.cancel(transfer)
            }
            // The transfer is over: its fields are read here, off the transfer thread.
            response.headers = transfer.receivedHeaders()
            if warnedAtHead?.withLock({ $0 }) != true { deliverTrustEvents(of: response.connection, host: target.host, port: target.port) }
            response.url = request.url
            if raceTime == nil, let ranking = configuration.addressRanking, let offered = addresses, !target.isIPLiteral {
                ranking.learn(from: response.connection, offered: offered, port: connectPort)
            }
            response.connection.serviceBindingRoute = serviceRoute
            return response
        } catch var error as HTTPClientError {
            if raceTime == nil, let ranking = configuration.addressRanking, let offered = addresses, !target.isIPLiteral {
                ranking.learn(from: error, offered: offered, port: connectPort)
            }
            if let report = error.pinReport {
                // The handshake was made, unverified under -k: said as for a response, before the pin failure.
                if policy.verification == .insecureSkippingAllVerification, warnedAtHead?.withLock({ $0 }) != true {
                    deliverTrustEvents(
                        of: ConnectionReport(remoteAddress: report.remoteAddress, reusedConnection: false, verificationSkipped: true), host: target.host, port: target.port)
                }
                deliver(report)
            }
            // An HTTP error's head: its fields are read here, off the transfer thread, as a response's.
            if error.responseHead != nil { error.responseHead?.headers = transfer.receivedHeaders() }
            throw error
        }
    }

    /// `resolver.resolve` for `target`, failing with `.timedOut` (curl's 28, as curl's "Resolving timed
    /// out") when `limit` seconds pass first. The resolution is cancelled then; a resolver that does
    /// not stop at once is not waited for.
    func resolve(host: String, port: Int, within limit: Double?, url: URL) async throws -> HostResolution {
        let resolver = self.resolver
        guard let limit else { return try await resolver.resolve(host: host, port: port) }
        // An answer known at once (a cache hit) needs no timer racing it: two tasks per request.
        if let known = try resolver.resolveImmediately(host: host, port: port) { return known }
        let outcome = FirstOutcome<HostResolution>()
        let lookup = Task { outcome.settle(await Result { try await resolver.resolve(host: host, port: port) }) }
        let timer = Task {
            try? await Task.sleep(for: .seconds(limit))
            outcome.settle(.failure(HTTPClientError.timedOut(.resolving(host: host, limit: limit), url: url)))
        }
        defer {
            lookup.cancel()
            timer.cancel()
        }
        return try await withTaskCancellationHandler {
            try await outcome.value()
        } onCancel: {
            outcome.settle(.failure(CancellationError()))
        }
    }

    /// Happy Eyeballs for a route not connected recently: the address list (families interleaved) with
    /// the first address to connect put first, so libcurl, which tries them in order, starts with one
    /// that works, and the race's time (nil when no race ran). The racing socket is closed: libcurl
    /// connects again itself (one extra handshake per new route, not per request; handing libcurl the
    /// connected socket through CURLOPT_OPENSOCKETFUNCTION + CURL_SOCKOPT_ALREADY_CONNECTED made some
    /// transfers stall: Documentation/LibcurlNotes.md #11). A route raced within `RouteMemory.freshness` is not raced again (its
    /// pooled connection will be reused); it only gets the last winner first. When every address
    /// refuses, the list goes to libcurl unchanged, to fail the usual way.
    /// - Throws: `HTTPClientError.Kind.timedOut` (curl 28) when no address connected within the
    ///   connect (or total) time limit: libcurl would only wait that long again.
    private func raceAddresses(
        _ addresses: [IPAddress], target: RequestTarget, port: Int, pool: PoolDescriptor,
        request: HTTPRequest
    ) async throws -> (addresses: [IPAddress], raceTime: TimeInterval?) {
        let ranking = configuration.addressRanking
        let ordered = HappyEyeballs.interleave(ranking?.order(addresses, port: port) ?? addresses)
        let key = "\(pool.id)|\(port)|\(ConnectRoute.cached(host: target.host, addresses: addresses, port: port).name)"
        let timeout = RequestDeadlines.raceLimit(request.timeouts ?? configuration.timeouts)
        func winnerFirst(_ winner: IPAddress?) -> [IPAddress] {
            guard let winner, ordered.contains(winner) else { return ordered }
            return [winner] + ordered.filter { $0 != winner }
        }
        let claim = RouteMemory.shared.claim(key) {
            let outcome = await HappyEyeballs.race(ordered, port: port, timeout: timeout)
            if let winner = outcome.winner { close(winner.fd) }
            for attempt in outcome.attempts { ranking?.report(attempt.result, address: attempt.address, port: port) }
            return outcome
        }
        let race: RouteMemory.Race
        let isOwn: Bool
        switch claim {
        case .known(let winner): return (winnerFirst(winner), nil)
        case .join(let other): (race, isOwn) = (other, false)
        case .race(let own): (race, isOwn) = (own, true)
        }
        // The race runs in a task of its own, so the requests that joined it get its outcome even if
        // the one that started it is cancelled; a cancelled request stops waiting at once.
        guard let outcome = await RouteMemory.outcome(of: race) else {
            if isOwn { Task { RouteMemory.shared.finish(key, winner: await race.value.winner?.address) } }
            throw CancellationError()
        }
        if isOwn { RouteMemory.shared.finish(key, winner: outcome.winner?.address) }
        try Task.checkCancellation()
        if outcome.winner == nil, outcome.timedOut {
            throw HTTPClientError.timedOut(
                .connecting(authority: IPAddress.authority(host: target.host, port: port), limit: timeout, tried: ordered),
                url: request.url)
        }
        // No winner and no time-out: every address refused; libcurl fails the usual way.
        return (winnerFirst(outcome.winner?.address), isOwn ? outcome.elapsed : nil)
    }
}

/// The first of several results to arrive, awaited once.
private final class FirstOutcome<Value: Sendable>: Sendable {
    private let state = LockedValue<(result: Result<Value, any Error>?, waiter: CheckedContinuation<Value, any Error>?)>((nil, nil))

    /// Records `result` unless one arrived before; resumes the waiter, if any.
    func settle(_ result: Result<Value, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
    }

    func value() async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<Value, any Error>? in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}

private extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
