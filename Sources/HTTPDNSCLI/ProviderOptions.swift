import Foundation
import HTTPDNS

/// The provider, cache and bypass options that come with `ResolverOptions`, and the connection
/// options of the commands that connect to the host's addresses.
struct ProviderOptions {
    static let providerOption = ArgumentParser.Option(
        names: ["--provider"], arity: .value, valueName: "NAME",
        summary: "doh, json, httpdns-ali[-v2], httpdns-dnspod",
        detail: """
            The protocol of the --doh-url/--endpoint URLs. doh (the default): RFC 8484. json: JSON DoH
            (GET ?name=&type=, application/dns-json). httpdns-ali: Alibaba-style HTTPDNS (needs
            --account-id; signed with the secret). httpdns-ali-v2: Alibaba's current /v2/d API (needs
            --account-id; HMAC-SHA256-signed with the secret, given as hex). httpdns-dnspod: Tencent Cloud HTTPDNS (DNSPod D+):
            plain, the HTTPS entry's token (the secret without --key-id), or DES/AES-encrypted with
            --key-id, --alg and the secret. The secret comes from --secret, --secret-file or
            HTTPDNS_SECRET. Every provider fails over to the next URL; HTTP 429 and 5xx, time-outs and
            garbage are failures, never NXDOMAIN.
            """,
        values: ["doh", "json", "httpdns-ali", "httpdns-ali-v2", "httpdns-dnspod"])

    static let parserOptions: [ArgumentParser.Option] = [
        providerOption,
        .init(names: ["--account-id"], arity: .value, valueName: "ID", summary: "Account of an httpdns-ali[-v2] endpoint"),
        .init(
            names: ["--secret"], arity: .value, valueName: "SECRET", summary: "Secret, key or token of an httpdns-* provider",
            detail: """
                The signing secret of an httpdns-ali endpoint (and of its scheduling requests); for
                httpdns-ali-v2, the HMAC-SHA256 secret as hex; for httpdns-dnspod, the DES key (8 bytes;
                of a longer key the first 8 are used) or AES key (16, 24 or 32 bytes) with --key-id, or
                the HTTPS entry's token without it. Any local user can read a command line: prefer
                --secret-file or HTTPDNS_SECRET. Never printed, in verbose output or in errors.
                """),
        .init(
            names: ["--secret-file"], arity: .value, valueName: "FILE", summary: "Read the --secret from FILE",
            detail: """
                Read the secret from FILE (its one line; a final line break is dropped; - for standard input), keeping it off
                the command line. A FILE its group or other users can read is warned about. Without
                --secret and --secret-file, the HTTPDNS_SECRET environment variable is used when set.
                """),
        .init(names: ["--key-id"], arity: .value, valueName: "ID", summary: "Key (authorization) ID, httpdns-dnspod"),
        .init(
            names: ["--alg"], arity: .value, valueName: "ALG", summary: "With --key-id: des (default) or aes",
            detail: "The encryption of an httpdns-dnspod endpoint given --key-id: des (DES-ECB, the API's default) or aes (AES-CBC).",
            values: ["des", "aes"]),
        .init(
            names: ["--startup-ip"], arity: .value, valueName: "ADDRESS", summary: "Service IPs from Alibaba scheduling at ADDRESS",
            detail: """
                For httpdns-ali and httpdns-ali-v2: ask the scheduling API (/ACCOUNT/ss) at this startup IP for the
                service IPs, and resolve through those. Repeat for several startup IPs. TLS is verified for the
                --endpoint URL's host (default resolvers.httpdns.aliyuncs.com); the request is signed with the
                secret when there is one.
                """),
        .init(
            names: ["--region"], arity: .value, valueName: "REGION", summary: "Region for --startup-ip (default global)",
            detail: "The scheduling API's region: global (the nearest cluster, the default), cn, hk, sg, us or de.",
            values: AlibabaServiceSchedule.Region.allCases.map(\.rawValue)),
        .init(
            names: ["--client-ip"], arity: .value, valueName: "ADDRESS",
            summary: "Answer as for a client at ADDRESS (ECS, ip=)",
            detail: """
                Ask for the answer a client at ADDRESS would get rather than the one for the address the query
                comes from: with doh, an EDNS Client Subnet option (RFC 7871) of ADDRESS[/PREFIX] (default /24
                for IPv4, /56 for IPv6; /0 asks the resolver to use none of your address); with httpdns-dnspod
                or httpdns-ali, ip=ADDRESS; with httpdns-ali-v2, cip=ADDRESS. It tells every server on the way
                where you are.
                """),
        .init(
            names: ["--rebinding-guard"], arity: .value, valueName: "SCOPE", summary: "Drop local addresses: public (default), all, off",
            detail: """
                Drop loopback, private, link-local, unique-local and multicast addresses from answers (DNS
                rebinding): public, the default, from the built-in public DoH resolvers' answers; all, from every
                provider's; off, from none. An answer left with no address is "no addresses" (exit 6). HTTPS
                records' address hints are screened the same way.
                """,
            values: ["public", "all", "off"]),
        .init(
            names: ["--cache-file"], arity: .value, valueName: "PATH",
            summary: "Keep the answer cache in PATH (SQLite)",
            detail:
                "Keep the answer cache in PATH across runs: an SQLite file, created (with its directory) when missing, shared safely by several processes. A file that cannot be used is warned about on stderr, naming --cache-file and the file, and the answers are kept in memory only."
        ),
        .init(
            names: ["--stale"], arity: .flag,
            summary: "Answer from an expired entry, refreshing it",
            detail: """
                Answer at once from an expired cache entry (at most --max-stale seconds old, default 3600)
                while refreshing it in the background.
                """),
        .init(
            names: ["--max-stale"], arity: .value, valueName: "SECONDS",
            summary: "--stale, serving up to SECONDS expired",
            detail: "As --stale, serving answers expired at most SECONDS ago (--stale alone: 3600); it implies --stale."),
        .init(
            names: ["--bypass"], arity: .value, valueName: "NAME|.SUFFIX",
            summary: "Use the system resolver for NAME (or .SUFFIX)",
            detail: """
                Resolve NAME, or every name under .SUFFIX, with the system resolver. Repeatable. localhost
                always is.
                """),
        .init(
            names: ["--race"], arity: .flag, summary: "Ask two endpoints at once, take the first answer",
            detail: "Ask the first two endpoints at once and take the first answer (twice the queries, half the worst-case wait).")
    ]

    /// The options of commands that connect to the host's addresses themselves (`fetch`, `probe`, `pins`).
    static let connectionOptions: [ArgumentParser.Option] = [
        .init(
            names: ["--no-happy-eyeballs"], arity: .flag,
            summary: "Try the addresses in turn, not racing them",
            detail: """
                Do not race connections to the host's addresses; libcurl tries them one after another,
                giving a black-holed one its share of the connect time limit (half of it for the first of
                two). By default they race (Happy Eyeballs v2, RFC 8305: families interleaved, 250 ms apart),
                so a dead first address costs 250 ms.
                """),
        .init(names: ["--happy-eyeballs"], arity: .flag, summary: "Race connections to the addresses (the default)"),
        .init(
            names: ["--no-https-records"], arity: .flag,
            summary: "Do not ask for or follow HTTPS records",
            detail: """
                Do not ask for the host's HTTPS records (RFC 9460) beside its addresses. By default they
                are asked for in parallel over the same DoH connection (RFC 8484 providers only), and the
                first usable one gives the port connected to, the HTTP versions offered (h2, http/1.1;
                h3 is skipped) and, for another TargetName, that name's addresses; SNI, Host and the
                certificate check stay on the URL's name. Only URLs on port 443 (or http:// upgraded to it).
                """),
        .init(
            names: ["--no-https-upgrade"], arity: .flag,
            summary: "Keep http:// despite an HTTPS record",
            detail: """
                Send http:// URLs as given. By default an http:// URL on port 80 whose host has a usable
                HTTPS record is sent as https:// on port 443 (RFC 9460 section 9.5, as browsers do).
                """)
    ]

    /// The options that apply to some providers only, each with the providers it applies to. Given
    /// with another provider, one does nothing and is warned about (`noEffect`), not refused: a
    /// script that switches `--provider` may leave it in place. (`--alg` and `--client-ip` are
    /// refused instead: they change what is asked, and a query without them is not the one meant.)
    static let providerSpecific: [(key: String, providers: Set<String>)] = [
        ("account-id", ["httpdns-ali", "httpdns-ali-v2"]),
        ("secret", ["httpdns-ali", "httpdns-ali-v2", "httpdns-dnspod"]),
        ("secret-file", ["httpdns-ali", "httpdns-ali-v2", "httpdns-dnspod"]),
        ("key-id", ["httpdns-dnspod"])
    ]

    var kind = "doh"
    /// One line per option given that does nothing with `kind`, in `providerSpecific`'s order:
    /// `--account-id has no effect with --provider doh`.
    var noEffect: [String] = []
    var accountID: String?
    /// From `--secret`, `--secret-file` or `HTTPDNS_SECRET`.
    var secret: SecretOption?
    var keyID: String?
    /// `--alg`: `des` or `aes`.
    var algorithm = "des"
    var clientIP: IPAddress?
    /// `--client-ip` for doh: the ECS option.
    var clientSubnet: EDNSClientSubnet?
    var rebindingGuard = RebindingGuard.publicResolvers
    /// `--startup-ip`: resolve through the service IPs Alibaba's scheduling API gives.
    var startupAddresses: [IPAddress] = []
    var region = AlibabaServiceSchedule.Region.global
    /// Said on stderr once the resolver exists (its observer prints them): a secret file others can read.
    var warnings: [String] = []
    var cacheFile: URL?
    var maximumStaleness: TimeInterval?
    var bypass: [String] = []
    var race = false
    var happyEyeballs = true
    /// Not `--no-https-records`: the resolver asks for HTTPS records and the client follows them.
    var httpsRecords = true
    /// Not `--no-https-upgrade`: http:// is upgraded when an HTTPS record exists.
    var httpsUpgrade = true

    init() {}

    /// The connection options (`connectionOptions`) on a client of a command that sends through
    /// `HTTPClient` (`fetch`, `pins`): racing, following HTTPS records, the http:// upgrade.
    func configureConnections(_ configuration: inout HTTPClient.Configuration) {
        configuration.racesAddresses = happyEyeballs
        configuration.usesServiceBindings = httpsRecords
        configuration.upgradesToHTTPS = httpsUpgrade
    }

    init(_ parsed: ArgumentParser.Parsed, environment: Environment = Environment([:]), command: String) throws(UsageError) {
        kind = parsed.value("provider")?.lowercased() ?? "doh"
        guard Self.providerOption.values.contains(kind) else {
            throw OptionValue.refusal(kind, for: Self.providerOption, command: command)
        }
        noEffect = Self.providerSpecific.filter { parsed.value($0.key) != nil && !$0.providers.contains(kind) }.map {
            "\(parsed.spelling($0.key)) has no effect with --provider \(kind)"
        }
        accountID = parsed.value("account-id")
        keyID = parsed.value("key-id")
        // The environment's secret is for the httpdns-* providers only; the options are checked always.
        secret = try SecretOption.read(parsed, environment: kind.hasPrefix("httpdns-") ? environment : Environment([:]), command: command)
        if let warning = secret?.warning { warnings.append(warning) }
        if let text = parsed.value("alg") {
            algorithm = text.lowercased()
            guard ["des", "aes"].contains(algorithm) else { throw OptionValue.refusal("--alg", expected: "des or aes", got: text, command: command) }
            guard kind == "httpdns-dnspod", keyID != nil else { throw UsageError("--alg is for --provider httpdns-dnspod with --key-id", command: command) }
        }
        if let text = parsed.value("client-ip") {
            if kind == "doh" {
                let subnet: EDNSClientSubnet?
                do { subnet = try EDNSClientSubnet(parsing: text) } catch { throw UsageError("--client-ip: \(error)", command: command) }
                guard let subnet else {
                    throw OptionValue.refusal("--client-ip", expected: "an IPv4 or IPv6 address, with /PREFIX for doh", got: text, command: command)
                }
                clientSubnet = subnet
            } else {
                guard let address = IPAddress(text) else { throw OptionValue.refusal("--client-ip", expected: "an IPv4 or IPv6 address", got: text, command: command) }
                guard ["httpdns-dnspod", "httpdns-ali", "httpdns-ali-v2"].contains(kind) else {
                    throw UsageError("--client-ip is for --provider doh (ECS), httpdns-dnspod or httpdns-ali (ip=) or httpdns-ali-v2 (cip=)", command: command)
                }
                clientIP = address
            }
        }
        if let text = parsed.value("rebinding-guard") {
            switch text.lowercased() {
            case "public": rebindingGuard = .publicResolvers
            case "all": rebindingGuard = .allProviders
            case "off": rebindingGuard = .off
            default: throw OptionValue.refusal("--rebinding-guard", expected: "public, all or off", got: text, command: command)
            }
        }
        for text in parsed.all("startup-ip") {
            guard let address = IPAddress(text) else { throw OptionValue.refusal("--startup-ip", expected: "an IPv4 or IPv6 address", got: text, command: command) }
            startupAddresses.append(address)
        }
        if let text = parsed.value("region") {
            guard let value = AlibabaServiceSchedule.Region(rawValue: text.lowercased()) else {
                throw OptionValue.refusal("--region", expected: "global, cn, hk, sg, us or de", got: text, command: command)
            }
            guard !startupAddresses.isEmpty else { throw UsageError("--region is for the scheduling API: give --startup-ip", command: command) }
            region = value
        }
        if !startupAddresses.isEmpty, !kind.hasPrefix("httpdns-ali") {
            throw UsageError("--startup-ip is for --provider httpdns-ali or httpdns-ali-v2 (Alibaba's scheduling API)", command: command)
        }
        if kind.hasPrefix("httpdns-ali"), accountID?.isEmpty ?? true {
            throw UsageError("--provider \(kind) needs --account-id", command: command)
        }
        if kind == "httpdns-ali-v2", let problem = AlibabaHTTPDNSV2Endpoint(url: URL(string: "https://203.107.1.1")!, accountID: "0", secret: secret?.value).problem() {
            throw UsageError("\(secret?.origin ?? "--secret") for httpdns-ali-v2: \(problem)", command: command)
        }
        // Account IDs are numbers; letters, "-" and "_" are let through, anything else is a typo.
        if let accountID, !accountID.isEmpty,
            !accountID.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") })
        {
            throw OptionValue.refusal("--account-id", expected: "letters, digits, '-' or '_' (the API's account number)", got: accountID, command: command)
        }
        if keyID?.isEmpty == true { throw UsageError("--key-id is empty", command: command) }
        if kind == "httpdns-dnspod", keyID != nil, secret == nil {
            throw UsageError(
                "--provider httpdns-dnspod with --key-id encrypts with the \(algorithm == "des" ? "DES" : "AES") key: give it with --secret-file, \(SecretOption.environmentVariable) or --secret",
                command: command)
        }
        if kind == "httpdns-dnspod", let problem = DNSPodHTTPDNSEndpoint.problem(with: dnspodAuthentication) {
            // A key of the wrong length is refused in the shape of every option value; the key
            // itself is not echoed: its length is what is wrong.
            if keyID?.isEmpty == false, let secret {
                let length = "\(secret.value.utf8.count) byte\(secret.value.utf8.count == 1 ? "" : "s")"
                let expected =
                    algorithm == "aes"
                    ? "httpdns-dnspod's AES key (16, 24 or 32 bytes)" : "httpdns-dnspod's DES key (at least 8 bytes; the first 8 are used)"
                throw OptionValue.refusal(secret.origin, expected: expected, got: length, quoted: false, command: command)
            }
            throw UsageError("\(secret?.origin ?? "--secret") for httpdns-dnspod: \(problem)", command: command)
        }
        if parsed.value("cache-file")?.isEmpty == true { throw UsageError("--cache-file needs a path", command: command) }
        cacheFile = parsed.value("cache-file").map { URL(fileURLWithPath: $0) }
        if let text = parsed.value("max-stale") {
            maximumStaleness = try OptionValue.seconds(text, option: "--max-stale", bounds: .above(0), command: command)
        } else if parsed.has("stale") {
            maximumStaleness = 3_600
        }
        bypass = parsed.all("bypass")
        for entry in bypass {
            // NAME or .SUFFIX, a name either way (which the resolver normalizes as it matches).
            let name = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
            guard HostName.normalize(name) != nil else {
                throw OptionValue.refusal("--bypass", expected: "a host name or .SUFFIX", got: entry, command: command)
            }
        }
        race = parsed.has("race")
        if parsed.has("happy-eyeballs"), parsed.has("no-happy-eyeballs") {
            throw UsageError("--happy-eyeballs and --no-happy-eyeballs contradict each other", command: command)
        }
        happyEyeballs = !parsed.has("no-happy-eyeballs")
        httpsRecords = !parsed.has("no-https-records")
        httpsUpgrade = !parsed.has("no-https-upgrade")
    }

    /// The providers for `--provider` at `urls` (already parsed as DoH URLs into `endpoints`, which
    /// carry their `--resolve` bootstrap addresses). Without URLs: the vendors' public defaults.
    func providers(urls: [String], endpoints: [DoHEndpoint], command: String) throws(UsageError) -> [any ResolutionProvider] {
        // DoH URL parsing (https, host, port) validated them; the vendor APIs take the URL as given
        // (no default /dns-query path), with the same --resolve bootstrap.
        let given =
            urls.isEmpty
            ? []
            : zip(urls, endpoints).map { text, endpoint in
                DoHEndpoint(url: URL(string: text) ?? endpoint.url, bootstrapAddresses: endpoint.bootstrapAddresses)
            }
        switch kind {
        case "json":
            let list =
                given.isEmpty
                ? [
                    DoHEndpoint(url: URL(string: "https://dns.google/resolve")!, bootstrapAddresses: DoHEndpoint.google.bootstrapAddresses),
                    DoHEndpoint(url: URL(string: "https://cloudflare-dns.com/dns-query")!, bootstrapAddresses: DoHEndpoint.cloudflare.bootstrapAddresses)
                ] : given
            return list.map { JSONDoHEndpoint(url: $0.url, bootstrapAddresses: $0.bootstrapAddresses) }
        case "httpdns-ali" where !startupAddresses.isEmpty, "httpdns-ali-v2" where !startupAddresses.isEmpty:
            let schedule = AlibabaServiceSchedule(
                accountID: accountID ?? "", startupAddresses: startupAddresses, region: region, secret: secret?.value,
                serviceHost: given.first?.url.host() ?? "resolvers.httpdns.aliyuncs.com", port: given.first?.url.port ?? 443)
            guard kind == "httpdns-ali" else {
                var endpoint = AlibabaHTTPDNSV2Endpoint(schedule: schedule, secret: secret?.value)
                endpoint.clientSubnet = clientIP
                return [endpoint]
            }
            var endpoint = AlibabaHTTPDNSEndpoint(schedule: schedule, secret: secret?.value)
            endpoint.clientSubnet = clientIP
            return [endpoint]
        case "httpdns-ali":
            let list = given.isEmpty ? [DoHEndpoint(url: URL(string: "https://203.107.1.1")!, bootstrapAddresses: [])] : given
            return list.map {
                AlibabaHTTPDNSEndpoint(
                    url: $0.url, accountID: accountID ?? "", secret: secret?.value, clientSubnet: clientIP, bootstrapAddresses: $0.bootstrapAddresses)
            }
        case "httpdns-ali-v2":
            let list = given.isEmpty ? [DoHEndpoint(url: URL(string: "https://203.107.1.1")!, bootstrapAddresses: [])] : given
            return list.map {
                AlibabaHTTPDNSV2Endpoint(
                    url: $0.url, accountID: accountID ?? "", secret: secret?.value, clientSubnet: clientIP, bootstrapAddresses: $0.bootstrapAddresses)
            }
        case "httpdns-dnspod":
            let list = given.isEmpty ? [DoHEndpoint(url: URL(string: "https://119.29.29.99")!, bootstrapAddresses: [])] : given
            return list.map {
                DNSPodHTTPDNSEndpoint(url: $0.url, authentication: dnspodAuthentication, clientSubnet: clientIP, bootstrapAddresses: $0.bootstrapAddresses)
            }
        default:
            return endpoints.map { endpoint in
                var endpoint = endpoint
                endpoint.clientSubnet = clientSubnet
                return endpoint
            }
        }
    }

    /// httpdns-dnspod's credentials: DES or AES with `--key-id`, the HTTPS token without it.
    var dnspodAuthentication: DNSPodHTTPDNSEndpoint.Authentication {
        guard let secret else { return .none }
        guard let keyID else { return .token(secret.value) }
        return algorithm == "aes" ? .aes(keyID: keyID, key: secret.value) : .des(keyID: keyID, key: secret.value)
    }

    func apply(to configuration: inout HostResolver.Configuration) {
        configuration.persistentCacheFile = cacheFile
        configuration.maximumStaleness = maximumStaleness
        configuration.bypassList = bypass
        configuration.racesFirstTwoProviders = race
        configuration.rebindingGuard = rebindingGuard
    }
}

/// Without `-v`: only the resolver's warnings (an unreadable or unwritable cache file, say), on
/// stderr, so they are never silently lost.
struct ConsoleWarningObserver: ResolverObserver {
    let console: Console
    var drops: ServiceBindingDrops?

    func serviceBindingsDropped(host: String, error: ServiceBindingError) { drops?.record(error, host: host) }

    func warning(_ message: String) { console.note("httpdns: warning: \(message)") }
    func cacheFileWarning(file: URL, message: String) { warning(CacheFileOption.warning(message, file: file)) }
    /// A fallback is a downgrade to the network's resolver: never silent.
    func fellBackToSystemResolver(host: String, reasons: [String]) {
        let why = reasons.map { $0.split(separator: "\n").first.map(String.init) ?? $0 }.joined(separator: "; ")
        console.note("httpdns: warning: the trusted resolver failed for \(host) (\(why)); using the system resolver (--no-fallback refuses instead)")
    }
}

extension Console {
    /// Warns, once each, of the options given that do nothing with the chosen provider
    /// (`ProviderOptions.noEffect`): `httpdns: warning: --account-id has no effect with --provider doh`.
    func warnOfOptionsWithoutEffect(_ options: ProviderOptions) {
        for line in options.noEffect { note("httpdns: warning: \(line)") }
    }

    /// The resolver observer for a command: every event with `-v`, warnings only otherwise.
    /// `drops`, when given, keeps why HTTPS records were dropped (probe says it without -v too).
    func resolverObserver(verbose: Bool, drops: ServiceBindingDrops? = nil) -> any ResolverObserver {
        verbose ? ConsoleResolverObserver(console: self, drops: drops) : ConsoleWarningObserver(console: self, drops: drops)
    }
}

/// `-v`: resolver events on stderr, one `* resolver:` line each.
struct ConsoleResolverObserver: ResolverObserver {
    let console: Console
    var drops: ServiceBindingDrops?

    private func say(_ text: String) { console.note("* resolver: \(text)") }
    private static func ms(_ seconds: TimeInterval) -> String { String(format: "%.1f ms", seconds * 1000) }

    func cacheHit(host: String, resolution: HostResolution) {
        say("cache hit \(host) (ttl \(Int(resolution.ttl ?? 0)) s, from \(resolution.provider ?? "?"))")
    }
    func negativeCacheHit(host: String, error: ResolutionError) {
        switch error {
        case .nameNotFound: say("cache hit \(host): NXDOMAIN")
        case .noAddresses: say("cache hit \(host): no addresses (NODATA)")
        default: say("cache hit \(host): \(error)")
        }
    }
    func cacheMiss(host: String) { say("cache miss \(host)") }
    func staleAnswerServed(host: String, resolution: HostResolution, expiredFor: TimeInterval, reason: StaleAnswerReason) {
        let why =
            switch reason {
            case .staleReuse: "refreshing in the background"
            case .clientResponseTimeout: "no fresh answer within the client response timer; the lookup goes on"
            case .lookupFailed: "no resolver could be reached"
            case .failureRecheck: "a lookup failed moments ago, so none is made yet"
            case .withoutWaiting: "a lookup started"
            }
        say("stale answer for \(host) (expired \(Int(expiredFor)) s ago): \(why)")
    }
    func refreshStarted(host: String, reason: RefreshReason) { say("refreshing \(host) (\(reason.rawValue))") }
    func serviceBindingsAnswered(host: String, type: DNSRecordType, provider: String, endpoint: URL, latency: TimeInterval, count: Int) {
        say("\(provider) \(endpoint.absoluteString) answered \(host) \(type) in \(Self.ms(latency)): \(count) \(count == 1 ? "record" : "records")")
    }
    func serviceBindingsFailed(host: String, type: DNSRecordType, provider: String, endpoint: URL, reason: String) {
        say("\(provider) \(endpoint.absoluteString) failed \(host) \(type): \(reason)")
    }
    func providerAnswered(host: String, provider: String, endpoint: URL, latency: TimeInterval, answer: DoHClient.Answer) {
        let what: String
        switch answer {
        case .addresses(let addresses, let ttl): what = "\(addresses.count) \(addresses.count == 1 ? "address" : "addresses"), ttl \(Int(ttl)) s"
        case .nameNotFound: what = "NXDOMAIN"
        case .noAddresses: what = "no addresses (NODATA)"
        }
        say("\(provider) \(endpoint.absoluteString) answered \(host) in \(Self.ms(latency)): \(what)")
    }
    func endpointFailed(host: String, provider: String, endpoint: URL, reason: String, latency: TimeInterval) {
        say("\(provider) endpoint failed for \(host) after \(Self.ms(latency)): \(reason)")
    }
    func endpointSkipped(host: String, endpoint: URL, consecutiveFailures: Int, retryAfter: TimeInterval) {
        say("skipping \(endpoint.absoluteString) for \(host): \(consecutiveFailures) failures in a row")
    }
    /// Why the records were not used, and where a request goes instead (Documentation/CLI.md: -v
    /// says both). A failed query's reason was said on its own line (`serviceBindingsFailed`).
    func serviceBindingsDropped(host: String, error: ServiceBindingError) {
        drops?.record(error, host: host)
        let why = if case .providersFailed = error { "its HTTPS query failed (above)" } else { "\(error)" }
        say("no usable HTTPS record for \(host): \(why); a request goes to \(host)'s own addresses and port, as without records")
    }
    func fellBackToSystemResolver(host: String, reasons: [String]) { say("every provider failed for \(host); asking the system resolver") }
    func bypassed(host: String) { say("\(host) bypasses HTTPDNS (system resolver)") }
    func warning(_ message: String) { say("warning: \(message)") }
    func cacheFileWarning(file: URL, message: String) { warning(CacheFileOption.warning(message, file: file)) }
    func dnssecValidated(host: String, status: DNSSECStatus) { say("DNSSEC \(host): \(status)") }
}

/// `--cache-file`'s warnings name the option, so that the user knows which one they are about.
enum CacheFileOption {
    /// `message`, which names the file by its absolute path, after the option, and after the path
    /// as given when that was relative.
    static func warning(_ message: String, file: URL) -> String {
        file.relativePath == file.path ? "--cache-file: \(message)" : "--cache-file \(file.relativePath): \(message)"
    }
}
