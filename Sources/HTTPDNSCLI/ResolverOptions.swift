import Foundation
import HTTPDNS

/// The resolver and trust options `resolve` and `fetch` share.
struct ResolverOptions {
    /// Where names are resolved: the endpoints, static entries, fallback, provider and cache.
    static let resolutionOptions: [ArgumentParser.Option] =
        [
            .init(
                names: ["--doh-url", "--endpoint"], arity: .value, valueName: "URL",
                summary: "Resolver endpoint, repeatable, tried in order",
                detail: """
                    The resolver's endpoint: DNS-over-HTTPS (RFC 8484) unless --provider names another protocol.
                    Repeatable; endpoints are tried in order, a failing one (network error, a time-out of 5 s
                    per exchange, HTTP error, malformed answer) handing over to the next. Default:
                    $HTTPDNS_DOH_URL (comma-separated), else Cloudflare (1.1.1.1, 1.0.0.1,
                    2606:4700:4700::1111), Google (8.8.8.8, 8.8.4.4, 2001:4860:4860::8888) and Quad9 (9.9.9.9,
                    149.112.112.112), reached at those bootstrap addresses; with --provider json, dns.google and
                    Cloudflare's JSON endpoints; httpdns-ali and httpdns-ali-v2, https://203.107.1.1;
                    httpdns-dnspod, https://119.29.29.99. Another endpoint's host is reached
                    at the addresses of a --resolve entry for it; without one, it is looked up with the system
                    resolver (plain DNS, which can be hijacked).
                    """),
            .init(
                names: ["--resolve"], arity: .value, valueName: "HOST:PORT:ADDR",
                summary: "Use these addresses for HOST:PORT, as curl",
                detail: """
                    [+]HOST:PORT:ADDR[,ADDR]...: use these addresses for HOST:PORT (PORT may be *), as curl does; also how a --doh-url host is
                    reached without system DNS. A later entry for the same HOST:PORT replaces an earlier one,
                    and -HOST:PORT removes it, as in curl.
                    """),
            .init(
                names: ["--no-fallback"], arity: .flag,
                summary: "Never fall back to the system resolver",
                detail: """
                    Do not fall back to the system resolver when every endpoint fails (network error, timeout,
                    HTTP error, malformed answer): the name cannot be resolved (exit 6). A fallback is always
                    reported on stderr. An NXDOMAIN is an answer, never a reason to fall back.
                    """),
            dohMethodOption,
            .init(
                names: ["--stale-timeout"], arity: .value, valueName: "SECONDS",
                summary: "Serve stale data (RFC 8767) after SECONDS",
                detail: """
                    Serve stale data (RFC 8767): answer from an expired cache entry when a fresh lookup fails
                    or has not answered within SECONDS (the client response timer; 1.8 is RFC 8767's
                    suggestion, 0 answers from the expired entry at once), refreshing the entry in the
                    background. A stale answer has a TTL of 30 s; an entry expired more than a day ago is not
                    served.
                    """),
            .init(
                names: ["--pre-resolve"], arity: .value, valueName: "HOST,...",
                summary: "Resolve these names into the cache at start",
                detail: """
                    Resolve these names into the cache at start, repeatable; the command waits for them (within
                    its time limit) before it writes the cache file and exits.
                    """),
            .init(
                names: ["--nat64"], arity: .value, valueName: "MODE",
                summary: "off, discover or PREFIX: reach IPv4 via NAT64",
                detail: """
                    On a network with an IPv6 route and no IPv4 route, give an IPv4-only name IPv6 addresses in the
                    network's NAT64 prefix (RFC 6052), so the connection goes through its NAT64. discover asks
                    the system resolver for ipv4only.arpa's AAAA records (RFC 7050; the network's DNS64 makes
                    them); PREFIX is one to use, as 64:ff9b::/96 (lengths 32, 40, 48, 56, 64 or 96). off (the
                    default) never does. A name with IPv6 addresses of its own keeps them. resolve prints
                    nat64=PREFIX after a synthesized address, and names the prefix in use when verbose.
                    """)
        ] + ProviderOptions.parserOptions + dnssecOptions + [designatedResolverOption]

    static let dohMethodOption = ArgumentParser.Option(
        names: ["--doh-method"], arity: .value, valueName: "GET|POST",
        summary: "How RFC 8484 queries are sent (default GET)",
        detail: """
            How RFC 8484 queries are sent. GET (the default) sends ?dns=, and queries share one HTTP/2
            connection; POST sends each query as a body, on a connection of its own, as curl --doh-url
            sends them. Only with the doh provider.
            """,
        values: ["GET", "POST"])

    /// The CA files every command takes (the DoH endpoints' TLS too); listed with the pins in help.
    static let anchorOptions: [ArgumentParser.Option] = [
        .init(
            names: ["--cacert"], arity: .value, valueName: "FILE",
            summary: "Also trust these PEM CA certificates (DoH too)",
            detail: """
                Also trust the CA certificates in this PEM file, beside the system roots, for every TLS
                connection of the command, the DoH server's included. FILE may be a pipe.
                """),
        .init(
            names: ["--doh-cacert"], arity: .value, valueName: "FILE",
            summary: "Also trust these CA certificates, for DoH only", detail: "Also trust the CA certificates in this PEM file, for the DoH endpoints only (beside --cacert's).")
    ]

    /// The DoH endpoints' own pins.
    static let dohPinOptions: [ArgumentParser.Option] = [
        .init(
            names: ["--doh-pinnedpubkey"], arity: .value, valueName: "PINS",
            summary: "Public-key pins for the DoH endpoints only",
            detail: """
                Public-key pins ('sha256//BASE64[;sha256//BASE64]...', SPKI SHA-256) for the DoH endpoints only: an endpoint whose verified chain
                carries none of them fails, and the next endpoint is asked (then the system resolver, with a
                warning, unless --no-fallback).
                """)
    ]

    /// The TLS options of a command that has no target pins of its own (`resolve`, `pins`).
    static var trustOptions: [ArgumentParser.Option] { anchorOptions + dohPinOptions }

    var endpoints: [DoHEndpoint]
    /// The providers to ask, in order (`--provider` with the `--doh-url`/`--endpoint` URLs).
    var providers: [any ResolutionProvider] = []
    var providerOptions = ProviderOptions()
    var staticEntries: [StaticHostResolver.Entry]
    var trust: TrustPolicy
    /// The DoH endpoints' own policy: `trust` plus `--doh-cacert` anchors and `--doh-pinnedpubkey` pins.
    var dohTrust: TrustPolicy
    var fallback: Bool
    /// `--stale-timeout`: RFC 8767's client response timer, in seconds; nil: no serve-stale.
    var staleTimeout: TimeInterval?
    /// `--pre-resolve`: names resolved into the cache at start.
    var preResolve: [String] = []
    /// `--dnssec`, `--trust-anchor`.
    var dnssec: HostResolver.DNSSECSettings = .off
    /// `--nat64`.
    var nat64: NAT64Synthesis = .off
    /// `--upgrade-resolver`: the unencrypted resolvers whose designated DoH servers go first.
    var designatedResolverServers: [PlainDNSServer] = []
    /// Whether the endpoints came from --doh-url or HTTPDNS_DOH_URL rather than the built-in list.
    var endpointsAreExplicit = false

    /// - Throws: `UsageError` for a bad URL, `--resolve` entry or certificate file.
    init(_ parsed: ArgumentParser.Parsed, environment: Environment, command: String) throws(UsageError) {
        staticEntries = try Self.staticEntries(parsed.all("resolve"), command: command)
        let entries = staticEntries

        var anchors: [Certificate] = []
        for path in parsed.all("cacert") {
            do {
                anchors += try Certificate.certificates(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw UsageError("--cacert: \(error)", command: command)
            }
        }
        trust = .anchors(anchors)
        dohTrust = try Self.dohTrust(parsed, anchors: anchors, command: command)
        fallback = !parsed.has("no-fallback")
        dnssec = try Self.dnssecSettings(parsed, command: command)
        if let text = parsed.value("stale-timeout") {
            staleTimeout = try OptionValue.seconds(text, option: "--stale-timeout", bounds: .atLeast(0), command: command)
        }
        if let text = parsed.value("nat64") { nat64 = try Self.nat64(text, command: command) }
        for list in parsed.all("pre-resolve") {
            for host in list.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
                guard HostName.normalize(host) != nil else {
                    // The hint is " (why)", or empty.
                    let hint = HostName.numericHostHint(host)
                    let why = hint.isEmpty ? nil : String(hint.dropFirst(2).dropLast())
                    throw OptionValue.refusal("--pre-resolve", expected: "host names separated by commas", got: host, why: why, command: command)
                }
                preResolve.append(host)
            }
        }

        var urls = parsed.all("doh-url")
        var origin = "--doh-url"
        if urls.isEmpty, let fromEnvironment = environment["HTTPDNS_DOH_URL"], !fromEnvironment.isEmpty {
            urls = fromEnvironment.split(separator: ",").map { String($0) }
            origin = "HTTPDNS_DOH_URL"
        }
        endpointsAreExplicit = !urls.isEmpty
        if urls.isEmpty {
            endpoints = DoHEndpoint.wellKnown
        } else {
            var parsedEndpoints: [DoHEndpoint] = []
            for text in urls {
                var endpoint: DoHEndpoint
                do {
                    endpoint = try DoHEndpoint(parsing: text)
                } catch {
                    throw UsageError("\(origin): \(error)", command: command)
                }
                // Bootstrap: a --resolve entry for the endpoint's host:port says where it is.
                if let host = endpoint.url.host(percentEncoded: false) {
                    let port = endpoint.url.port ?? 443
                    let pinned = StaticHostResolver(entries: entries, fallback: nil).addresses(host: host, port: port)
                    if let pinned { endpoint.bootstrapAddresses = pinned }
                }
                parsedEndpoints.append(endpoint)
            }
            endpoints = parsedEndpoints
        }
        providerOptions = try ProviderOptions(parsed, environment: environment, command: command)
        if let text = parsed.value("doh-method") {
            guard let method = DoHEndpoint.Method(rawValue: text.uppercased()) else {
                throw OptionValue.refusal(text, for: Self.dohMethodOption, command: command)
            }
            guard providerOptions.kind == "doh" else {
                throw UsageError("--doh-method is for RFC 8484 DoH; --provider \(providerOptions.kind) sends its own requests", command: command)
            }
            for index in endpoints.indices { endpoints[index].method = method }
        }
        providers = try providerOptions.providers(urls: urls, endpoints: endpoints, command: command)
        // Known before any traffic: under require such a provider is never asked (no signatures).
        if dnssec.policy == .require, providerOptions.kind != "doh" {
            throw UsageError(
                "--dnssec require needs --provider doh: \(providerOptions.kind) carries no DNSSEC signatures, so it is never asked under require (use report, or require:PATTERN for some hosts)",
                command: command)
        }
        designatedResolverServers = try Self.designatedResolverServers(parsed.all("upgrade-resolver"), command: command)
        if !designatedResolverServers.isEmpty, providerOptions.kind != "doh" {
            throw UsageError("--upgrade-resolver finds RFC 8484 DoH servers; --provider \(providerOptions.kind) is another protocol", command: command)
        }
    }

    /// What a `--resolve` that removes an entry looks like, for its refusal.
    private static let removalForm = "-HOST:PORT to remove an entry (PORT from 1 to 65535, or *)"

    /// The `--resolve` entries in force, as curl keeps them: a later entry for a host and port
    /// replaces an earlier one, and `-HOST:PORT` removes the entry given before it.
    /// - Throws: `UsageError` naming a malformed entry.
    static func staticEntries(_ texts: [String], command: String) throws(UsageError) -> [StaticHostResolver.Entry] {
        var entries: [StaticHostResolver.Entry] = []
        for text in texts {
            if text.hasPrefix("-") {
                let removal = text.dropFirst()
                // PORT as in an entry: a number, or * for the entry that matches any port.
                guard let colon = removal.lastIndex(of: ":"), let host = HostName.normalize(String(removal[..<colon])) else {
                    throw OptionValue.refusal("--resolve", expected: Self.removalForm, got: text, command: command)
                }
                let portText = removal[removal.index(after: colon)...]
                let port = Int(portText)
                guard portText == "*" || port.map({ (1...65535).contains($0) }) == true else {
                    throw OptionValue.refusal("--resolve", expected: Self.removalForm, got: text, why: "invalid port '\(portText)'", command: command)
                }
                entries.removeAll { $0.host == host && $0.port == port }
                continue
            }
            let entry: StaticHostResolver.Entry
            do {
                entry = try StaticHostResolver.Entry(parsing: text)
            } catch let error as StaticHostResolver.ParseError {
                // Its reason says what in the entry is wrong, unless it is only the form again.
                let why = error.reason.hasPrefix("expected ") ? nil : error.reason
                throw OptionValue.refusal("--resolve", expected: "HOST:PORT:ADDR[,ADDR]...", got: text, why: why, command: command)
            } catch {
                throw UsageError("--resolve: \(error)", command: command)
            }
            entries.removeAll { $0.host == entry.host && $0.port == entry.port }
            entries.append(entry)
        }
        return entries
    }

    /// `--nat64 off|discover|PREFIX`.
    /// - Throws: `UsageError` for anything else, or a prefix RFC 6052 does not allow.
    static func nat64(_ text: String, command: String) throws(UsageError) -> NAT64Synthesis {
        switch text {
        case "off": return .off
        case "discover": return .discover
        default:
            guard let prefix = NAT64Prefix(text) else {
                throw OptionValue.refusal(
                    "--nat64", expected: "off, discover or an IPv6 prefix of length 32, 40, 48, 56, 64 or 96 (as 64:ff9b::/96)", got: text, why: nil,
                    command: command)
            }
            return .prefix(prefix)
        }
    }

    /// The resolver these options describe; its DoH queries trust what the command's TLS trusts.
    /// - Parameter connectTimeout: `probe`'s `--connect-timeout` in seconds, for the resolver it
    ///   calls itself: each DoH or HTTPDNS exchange gets at most that long to connect (as curl gives
    ///   its DoH requests the transfer's connect timeout, lib/doh.c), within the resolver's 5 s per
    ///   exchange. nil: 5 s. (Through `HTTPClient`, the client's connect limit covers resolution.)
    /// - Parameter asksForServiceBindings: ask for HTTPS records beside the addresses (`fetch` and
    ///   `probe`, unless `--no-https-records`).
    /// - Parameter waitsForServiceBindings: wait for the HTTPS answer as long as its query takes
    ///   (`probe`, which reports on it), rather than at most `serviceBindingWait`'s 0.5 s (`fetch`).
    /// - Throws: `InvalidDurationError` for a duration the options let through that the resolver
    ///   refuses (the options check theirs first, so none is expected): a usage error.
    func makeResolver(
        families: AddressFamilies = .both, observer: (any ResolverObserver)? = nil,
        connectTimeout: Double? = nil, asksForServiceBindings: Bool = false, waitsForServiceBindings: Bool = false
    ) throws(InvalidDurationError) -> HostResolver {
        var configuration = HostResolver.Configuration(endpoints: endpoints)
        configuration.asksForServiceBindings = asksForServiceBindings
        if waitsForServiceBindings { configuration.serviceBindingWait = nil }
        configuration.providers = providers
        configuration.staticEntries = staticEntries
        configuration.fallbackToSystemResolver = fallback
        configuration.families = families
        configuration.observer = observer
        for warning in providerOptions.warnings { observer?.warning(warning) }
        providerOptions.apply(to: &configuration)
        configuration.serveStale = staleTimeout.map { .init(clientResponseTimeout: $0) }
        configuration.preResolveHosts = preResolve
        configuration.dnssec = dnssec
        configuration.nat64 = nat64
        guard let connectTimeout else { return try HostResolver(configuration: configuration, dohTrust: dohTrust) }
        let client = try HTTPClient(
            configuration: HTTPClient.Configuration(trust: dohTrust, timeouts: Timeouts(connect: connectTimeout)),
            resolver: SystemResolver())
        return try HostResolver(configuration: configuration, transport: client)
    }
}
