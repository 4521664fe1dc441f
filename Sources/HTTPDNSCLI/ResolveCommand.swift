import Foundation
import HTTPDNS

/// `httpdns resolve HOST...`: print each name's addresses and where they came from.
enum ResolveCommand {
    static let reference = CommandReference(
        name: "resolve",
        synopsis: "[options] HOST...",
        summary: "Resolve names over DNS-over-HTTPS, a line per address.",
        description: """
            Resolves each HOST over DNS-over-HTTPS (RFC 8484, or the --provider's HTTPDNS API), falling back
            to the system resolver when every endpoint fails (unless --no-fallback). One line per address:
            HOST ADDRESS ttl=SECONDS source=doh|httpdns|cache|system|static|literal (ttl=- when the source
            gives none), and "stale" after an expired answer served stale (--stale, --stale-timeout).
            With --dnssec, each line ends in dnssec=secure|insecure|bogus|indeterminate for an answer that
            was validated (a cache hit has its answer's, a static or system answer none), the reason on stderr; a name
            answered NXDOMAIN or NODATA prints HOST - dnssec=STATUS for its proof.
            Several HOSTs go to an httpdns-ali or httpdns-dnspod provider in batches (5 or 8 names a
            request), printed in the order given.

            With --type HTTPS or SVCB, asks for each HOST's service binding records (RFC 9460) instead,
            following AliasMode records (at most 8), and prints one line per ServiceMode record in priority
            order, as in a zone file: OWNER. TTL IN HTTPS PRIORITY TARGET PARAMS (RFC 9460 §2.1, e.g.
            "svc.test. 300 IN HTTPS 1 . alpn=h2 port=8443 ipv4hint=192.0.2.1"), OWNER being the last alias
            target. Lines starting with ";" say which aliases were followed ("; HOST: AliasMode -> TARGET")
            or that there are none ("; HOST: no HTTPS records", exit 0; a name that does not exist is
            NXDOMAIN, exit 6). Only DNS-over-HTTPS (RFC 8484)
            carries them: a --provider other than doh is refused before anything is sent (exit 2); a
            malformed record fails the name (exit 6), naming what is wrong with it.

            With --compare, asks the system resolver and the trusted provider side by side for each HOST
            and prints one line per name: HOST agree|disagree|trusted-failed|system-failed, then both
            answers (a possible DNS hijack when they disagree). With --dnssec too, the line ends in
            trusted_dnssec=STATUS system_dnssec=STATUS: the trusted answer validated, and the system's
            judged by the zone's signatures that came with it (secure when they sign its addresses,
            bogus when they sign something else); stderr then says which side's answer validates.
            """,
        sections: [
            .init(
                title: "Lookup",
                options: [
                    typeOption,
                    .init(
                        names: ["--json"], arity: .flag,
                        summary: "One JSON object per host instead",
                        detail: """
                            One JSON object per host instead, on one line: "host", "addresses" (a list), "ttl" (seconds, or
                            null), "source" (as in the line form), "endpoint" (the DoH or HTTPDNS URL that answered, null for
                            any other source), "provider" (its name, or null), "latency_ms" (or null) and "stale" (true or
                            false); with --dnssec also "dnssec" (secure, insecure, bogus, indeterminate, or null for an
                            answer not validated) and "dnssec_reason" (or null), in the error object too when the answer
                            was validated (NXDOMAIN, NODATA, bogus). A host that cannot be resolved gives {"host": HOST, "error": MESSAGE}, the message
                            also printed on stderr. With --type HTTPS or SVCB: "host", "type", "name" (the records' owner),
                            "alias_chain" (the AliasMode targets followed), "ttl" and "records", each with "priority",
                            "target" (with its trailing dot), "presentation" (the line form's RDATA) and "params": "alpn",
                            "ipv4hint", "ipv6hint" and "mandatory" as lists, "port" a number, "no-default-alpn" true,
                            "dohpath" text, "ech" and any keyNNNNN in base64.
                            """),
                    .init(
                        names: ["--compare"], arity: .flag, summary: "Hijack check: system resolver against provider",
                        detail: """
                            Hijack check: ask the system resolver and the trusted provider side by side and compare their answers.
                            With --dnssec, say which side's answer the zone's signatures back (trusted_dnssec and system_dnssec;
                            in --json also with their _reason).
                            """),
                    .init(
                        names: ["-m", "--max-time"], arity: .value, valueName: "SECONDS",
                        summary: "Limit for the whole command (exit 28)", detail: "Limit for the whole command, every lookup included; exceeded: exit 28."),
                    .init(
                        names: ["-v", "--verbose"], arity: .flag, summary: "Print resolver events on stderr",
                        detail: "Print the resolver's events on stderr: cache hits and misses, providers asked, failover, fallback."),
                    .init(names: ["-4", "--ipv4"], arity: .flag, summary: "IPv4 addresses only (as --type A)", detail: "As --type A: IPv4 addresses only (as fetch -4)."),
                    .init(names: ["-6", "--ipv6"], arity: .flag, summary: "IPv6 addresses only (as --type AAAA)", detail: "As --type AAAA: IPv6 addresses only (as fetch -6).")
                ]),
            .init(title: "Name resolution", options: ResolverOptions.resolutionOptions),
            .init(title: "TLS to the resolver", options: ResolverOptions.trustOptions),
            CommandReference.helpSection
        ],
        mostUsed: ["--type", "--json", "--compare", "-m", "-v", "--doh-url", "--resolve", "--no-fallback", "--provider", "--cache-file", "--cacert", "-h"],
        exitStatus: ExitStatusTable.entries(for: "resolve"))

    static let typeOption = ArgumentParser.Option(
        names: ["--type"], arity: .value, valueName: "TYPE",
        summary: "A, AAAA, both (default), auto; HTTPS, SVCB",
        detail: """
            Address types to ask for: A (IPv4), AAAA (IPv6), both (the default) or auto (the families this host has a route for);
            or HTTPS or SVCB to print the name's service binding records (RFC 9460) instead of addresses.
            """,
        values: ["A", "AAAA", "both", "auto", "HTTPS", "SVCB"])

    static var help: String { reference.shortHelp() }
    static let parser = reference.parser

    static func run(_ arguments: [String], raw: [[UInt8]], console: Console, environment: Environment) async -> Int32 {
        let hosts: [String]
        var options: ResolverOptions
        let families: AddressFamilies
        let json: Bool
        let compare: Bool
        let verbose: Bool
        var maxTime: TimeInterval?
        var recordType: DNSRecordType?
        do {
            let parsed = try parser.parse(arguments, raw: raw)
            if parsed.has("help") {
                try console.print(reference.help(for: parsed))
                return HTTPDNSTool.ExitStatus.success
            }
            guard !parsed.positionals.isEmpty else { throw UsageError("no host given\(parsed.swallowedValueHint)", command: "resolve") }
            for host in parsed.positionals where HostName.normalize(host) == nil {
                throw UsageError("invalid host name '\(host)'" + HostName.numericHostHint(host), command: "resolve")
            }
            // The last of --type, -4 and -6 counts, as the last of fetch's -4 and -6 does.
            let last = parsed.order.last { ["type", "ipv4", "ipv6"].contains($0) }
            let type = last == "ipv4" ? "a" : last == "ipv6" ? "aaaa" : parsed.value("type")?.lowercased()
            switch type {
            case nil, "both": families = .both
            case "a": families = .ipv4
            case "aaaa": families = .ipv6
            case "auto": families = .auto
            case "https", "svcb":
                families = .both
                recordType = type == "https" ? .https : .svcb
            default: throw OptionValue.refusal(parsed.value("type") ?? "", for: typeOption, command: "resolve")
            }
            hosts = parsed.positionals
            options = try ResolverOptions(parsed, environment: environment, command: "resolve")
            json = parsed.has("json")
            compare = parsed.has("compare")
            verbose = parsed.has("verbose")
            if let text = parsed.value("max-time") { maxTime = try TimeLimitOption.seconds(text, option: parsed.spelling("max-time"), command: "resolve") }
            if compare, let recordType { throw UsageError("--compare compares addresses; it cannot be used with --type \(recordType)", command: "resolve") }
            // Known before any traffic: only RFC 8484 DoH carries other record types.
            if let recordType, options.providerOptions.kind != "doh" {
                throw UsageError(
                    "--type \(recordType) needs --provider doh: \(options.providerOptions.kind) can carry addresses only (use an RFC 8484 DoH endpoint)",
                    command: "resolve")
            }
        } catch let error as UsageError {
            return HTTPDNSTool.report(error, console: console)
        } catch {
            return HTTPDNSTool.report(UsageError("\(error)", command: "resolve"), console: console)
        }

        console.warnOfOptionsWithoutEffect(options.providerOptions)
        let resolver: HostResolver
        // With --dnssec: each name's outcome, a negative answer's included.
        var outcomes: DNSSECOutcomeObserver?
        await options.upgradeToDesignatedResolvers(console: console, verbose: verbose, command: "resolve")
        do {
            let observer = console.resolverObserver(verbose: verbose)
            outcomes = options.dnssec.validatesAny ? DNSSECOutcomeObserver(observer) : nil
            resolver = try options.makeResolver(families: families, observer: outcomes ?? observer)
        } catch {
            return HTTPDNSTool.report(UsageError("\(error)", command: "resolve"), console: console)
        }
        if verbose, options.nat64 != .off { await describeNAT64(resolver, mode: options.nat64, console: console) }
        if compare { return await runCompare(hosts, resolver: resolver, json: json, console: console) }
        if let recordType {
            if options.dnssec.validatesAny {
                console.note("httpdns: warning: --dnssec validates address answers only: these \(recordType) records are not validated")
            }
            return await runServiceBindings(hosts, type: recordType, resolver: resolver, json: json, console: console, maxTime: maxTime)
        }
        var status = HTTPDNSTool.ExitStatus.success
        let deadline = maxTime.map { ContinuousClock.now + .seconds($0) }
        // Several names to a provider with a batch API: asked in batches (within its limit), each
        // name then printed in order; a name the batch did not answer is resolved alone.
        var batched: [Result<HostResolution, any Error>] = []
        if hosts.count > 1, (options.providers.first?.batchLimit ?? 1) > 1 {
            batched = await TimeLimitOption.resolve(hosts, port: 443, with: resolver, before: deadline) ?? []
        }
        for (index, host) in hosts.enumerated() {
            do {
                let resolution =
                    index < batched.count
                    ? try batched[index].get()
                    : try await TimeLimitOption.resolve(host, port: 443, with: resolver, before: deadline, maxTime: maxTime)
                if json {
                    console.print(jsonLine(host: host, resolution: resolution, dnssec: options.dnssec.validatesAny))
                } else {
                    let ttl = resolution.ttl.map { String(Int($0)) } ?? "-"
                    for address in resolution.addresses {
                        console.print(
                            "\(resolution.host) \(address) ttl=\(ttl) source=\(resolution.source)\(resolution.isStale ? " stale" : "")\(dnssecField(resolution))\(nat64Field(resolution))")
                    }
                    if let reason = resolution.dnssec?.reason { console.note("httpdns: \(resolution.host): DNSSEC \(resolution.dnssec?.name ?? ""): \(reason)") }
                }
            } catch {
                if error is TimeLimitOption.Exceeded {
                    status = report(error, host: host, json: json, console: console)
                    continue
                }
                status = HTTPDNSTool.ExitStatus.couldNotResolve
                let outcome = outcomes?.outcome(host)
                if json {
                    console.print(jsonLine(host: host, error: options.withBootstrapHint("\(error)"), outcome: outcome))
                } else if let outcome, outcome.name != "bogus" || options.dnssec.policy(for: HostName.normalize(host) ?? host) == .report {
                    // NXDOMAIN and NODATA are answers: say what validation made of their proof.
                    console.print("\(HostName.normalize(host) ?? host) - dnssec=\(outcome.name)")
                }
                console.note("httpdns: \(options.withBootstrapHint("\(error)"))")
            }
        }
        // A stale answer starts a background refresh: let it finish (and reach the cache file)
        // before the process exits under it.
        let left = deadline.map { Self.seconds(from: .now, to: $0) }
        for host in hosts { await resolver.waitForRefresh(host: host, within: left) }
        await resolver.waitForPreResolution(within: left)
        resolver.savePersistentCache()
        return status
    }

    /// Prints why `host` has no answer (on stderr, and as `{"host", "error"}` with `--json`).
    /// - Returns: The exit status: 28 for `-m`'s time limit, else 6.
    static func report(_ error: any Error, host: String, json: Bool, console: Console, wording: (String) -> String = { $0 }) -> Int32 {
        let timedOut = error is TimeLimitOption.Exceeded
        let message = timedOut ? "\(error)" : wording("\(error)")
        if json { console.print(jsonLine(host: host, error: message)) }
        console.note("httpdns: \(message)")
        return timedOut ? HTTPDNSTool.ExitStatus.timedOut : HTTPDNSTool.ExitStatus.couldNotResolve
    }

    private static func seconds(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> TimeInterval {
        let span = end - start
        return max(0, Double(span.components.seconds) + Double(span.components.attoseconds) / 1e18)
    }

    /// -v with --nat64: the prefix in use, where it came from, and whether this network needs it.
    static func describeNAT64(_ resolver: HostResolver, mode: NAT64Synthesis, console: Console) async {
        let prefix = await resolver.nat64Prefix()
        let origin = mode == .discover ? "discovered through \(NAT64PrefixDiscovery.wellKnownName) (RFC 7050)" : "given"
        let routes = resolver.configuration.routeProbe.families()
        let use = routes == .ipv6 ? "no IPv4 route: IPv4-only names are synthesized" : "an IPv4 route exists: nothing is synthesized"
        guard let prefix else {
            console.note(
                "* nat64: no prefix \(mode == .discover ? "found through \(NAT64PrefixDiscovery.wellKnownName) (no DNS64?)" : "given"); \(routes == .ipv6 ? "no IPv4 route" : "an IPv4 route exists")")
            return
        }
        console.note("* nat64: prefix \(prefix), \(origin); \(use)")
    }

    /// The line form's ` nat64=PREFIX` when the addresses were synthesized.
    private static func nat64Field(_ resolution: HostResolution) -> String {
        resolution.nat64Prefix.map { " nat64=\($0)" } ?? ""
    }

    /// The line form's ` dnssec=STATUS` when the answer was validated.
    private static func dnssecField(_ resolution: HostResolution) -> String {
        resolution.dnssec.map { " dnssec=\($0.name)" } ?? ""
    }

    /// - Parameters:
    ///   - dnssec: Whether `--dnssec` validates: an answer's object then has "dnssec" and "dnssec_reason".
    ///   - outcome: For an error, the outcome of a negative answer's validation, added the same way.
    private static func jsonLine(
        host: String, resolution: HostResolution? = nil, error: String? = nil, dnssec: Bool = false, outcome: DNSSECStatus? = nil
    ) -> String {
        var object: [String: Any] = ["host": HostName.normalize(host) ?? host]
        if let resolution {
            object["addresses"] = resolution.addresses.map(\.description)
            object["ttl"] = resolution.ttl.map { Int($0) } as Any? ?? NSNull()
            object["source"] = resolution.source.description
            // Every key in every answer: null where the source has no endpoint (cache, system, static).
            object["endpoint"] = NSNull()
            if case .doh(let endpoint) = resolution.source { object["endpoint"] = endpoint.absoluteString }
            if case .httpdns(let endpoint) = resolution.source { object["endpoint"] = endpoint.absoluteString }
            object["provider"] = resolution.provider as Any? ?? NSNull()
            object["latency_ms"] = resolution.latency.map { ($0 * 1_000_000).rounded() / 1000 } as Any? ?? NSNull()
            object["stale"] = resolution.isStale
            if dnssec {
                object["dnssec"] = resolution.dnssec?.name as Any? ?? NSNull()
                object["dnssec_reason"] = resolution.dnssec?.reason as Any? ?? NSNull()
            }
        }
        if let error { object["error"] = error }
        if let outcome {
            object["dnssec"] = outcome.name
            object["dnssec_reason"] = outcome.reason as Any? ?? NSNull()
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// `--compare`: one verdict per name; exit 0 all agree, 1 any disagree, 6 when a side failed and
    /// none disagreed.
    private static func runCompare(_ hosts: [String], resolver: HostResolver, json: Bool, console: Console) async -> Int32 {
        let validates = resolver.configuration.dnssec.validatesAny
        var disagreed = false
        var failed = false
        for host in hosts {
            let comparison = await resolver.compare(host: host)
            switch comparison.verdict {
            case .agree: break
            case .disagree: disagreed = true
            case .trustedFailed, .systemFailed: failed = true
            }
            if json {
                var object: [String: Any] = ["host": comparison.host, "verdict": comparison.verdict.rawValue]
                object["trusted"] = describe(comparison.trusted, asJSON: true)
                object["system"] = describe(comparison.system, asJSON: true)
                for (key, status) in [("trusted", comparison.trustedDNSSEC), ("system", comparison.systemDNSSEC)] where validates {
                    object["\(key)_dnssec"] = status?.name as Any? ?? NSNull()
                    object["\(key)_dnssec_reason"] = status?.reason as Any? ?? NSNull()
                }
                let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
                console.print(String(decoding: data, as: UTF8.self))
            } else {
                let proof = validates ? " trusted_dnssec=\(comparison.trustedDNSSEC?.name ?? "-") system_dnssec=\(comparison.systemDNSSEC?.name ?? "-")" : ""
                console.print(
                    "\(comparison.host) \(comparison.verdict.rawValue) trusted=\(describe(comparison.trusted, asJSON: false)) system=\(describe(comparison.system, asJSON: false))\(proof)")
            }
            if let proof = proofNote(comparison) { console.note("httpdns: \(comparison.host): \(proof)") }
        }
        if disagreed { return 1 }
        return failed ? HTTPDNSTool.ExitStatus.couldNotResolve : HTTPDNSTool.ExitStatus.success
    }

    /// `--compare --dnssec`'s conclusion for stderr: which side's answer validates, when they are
    /// not both secure; nil when both are, or nothing was validated.
    static func proofNote(_ comparison: HijackComparison) -> String? {
        guard let trusted = comparison.trustedDNSSEC else { return nil }
        let system = comparison.systemDNSSEC
        func said(_ status: DNSSECStatus) -> String { status.reason.map { "\(status.name): \($0)" } ?? status.name }
        switch (trusted, system) {
        case (.secure, .secure?), (.secure, nil):
            return nil
        case (.secure, let other?):
            return "the trusted provider's answer validates (secure); the system resolver's does not (\(said(other)))"
        case (_, .secure?):
            return "the system resolver's answer validates (secure); the trusted provider's does not (\(said(trusted)))"
        case (.bogus, _), (_, .bogus?):
            return "neither answer validates (trusted: \(said(trusted))\(system.map { "; system: \(said($0))" } ?? ""))"
        default:
            return "no answer can be validated (\(said(trusted)))"
        }
    }

    private static func describe(_ answer: Result<[IPAddress], ResolutionError>, asJSON: Bool) -> Any {
        switch answer {
        case .success(let addresses):
            let list = addresses.map(\.description)
            return asJSON ? list as Any : list.joined(separator: ",")
        case .failure(let error):
            let text: String
            switch error {
            case .nameNotFound: text = "NXDOMAIN"
            case .noAddresses: text = "NODATA"
            case .resolverUnavailable(_, let reasons): text = "unavailable(\(reasons.joined(separator: "; ")))"
            case .invalidHostName: text = "invalid"
            case .dnssecBogus(_, let reason): text = "bogus(\(reason))"
            }
            return asJSON ? ["error": text] as Any : text
        }
    }
}
