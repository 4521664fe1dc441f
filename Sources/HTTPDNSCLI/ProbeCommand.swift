import Foundation
import HTTPDNS

/// `httpdns probe URL`: checks every address of the URL's host, each on its own connection with SNI
/// and verification on the host name.
enum ProbeCommand {
    static let reference = CommandReference(
        name: "probe",
        synopsis: "[options] URL",
        summary: "Check each address of the host: TLS, certificate, status.",
        description: """
            Resolves URL's host (as fetch does) and, for each address, connects with SNI set to the host,
            verifies the certificate for the host, sends GET and reports on it. The first line says what
            the name resolved to: '# HOST: ADDRESS, ADDRESS (source SOURCE)' (none for an IP literal;
            ', synthesized in NAT64 prefix PREFIX' after SOURCE when --nat64 made the addresses, ',
            dnssec secure|insecure|bogus|indeterminate' under --dnssec report or require).
            probe waits for the HTTPS answer (RFC 9460) as long as its query takes (fetch waits at most
            0.5 s). When the host has HTTPS records, '# HTTPS record ...' lines follow: why a
            record was passed over ('# HTTPS record priority 1 rejected: port 0', then '# no usable
            HTTPS record: ...'), why the resolver dropped them all ('# no usable HTTPS record:
            AliasMode records loop: ...; probing HOST's addresses on port 443'; a malformed answer
            too) and what the record used changed ('# HTTPS record priority 1: port 8443 (not 443),
            alpn h2,http/1.1'). Each address is probed on the record's endpoint as
            is (its port; its TargetName's addresses): one that refuses is FAILED, naming that port,
            where fetch would go on to the next record's endpoint, then the origin's addresses and
            port (--no-https-records probes those), so that a broken record shows. The last '#' line is the order a new connection
            would try the addresses in, from one TCP connect to each: '# rank (TCP connect to each):
            1. ADDRESS connect MS ms; 2. ADDRESS failed once, last for S s' (an address that failed
            goes last for a back-off, 5 s doubling to 5 min, that its next connection ends).
            Then one line per address: ADDRESS ok|FAILED connect=MS tls=MS VERSION sni=NAME
            verified=true|false verification=verified|disabled status=CODE total=MS cert="SUBJECT"
            expires=DATE, or ADDRESS FAILED and the failure in words (could not connect, TLS handshake
            failed, certificate verification failed, timed out, ...) with its message on the same line
            (a pin mismatch's presented chain too, its parts separated by '; '). An address is healthy
            when the request completes with a status below 400. With -k nothing is verified:
            verified=false verification=disabled.

            --json prints one object per line and address, no header: "address", "healthy", "status",
            "connect_ms", "tls_ms", "total_ms", "tls" (sni, verified, verification, version, subject,
            expires) and "rank" (position, connect_ms, failures, back_off_s); for a failed address
            "address", "healthy": false, "message" (the text), "error", the failure's name, and
            "rank". With HTTPS records both also carry "https_record" (the record's '#' line, or "no
            HTTPS record used") and "https_record_notes" (the other '#' HTTPS lines, as a list; []
            when none), and under --dnssec "dnssec" (the outcome's name). A host that cannot be
            resolved gives one object {"host", "healthy": false,
            "error", "message"} instead. The failure names are stable, for scripts: couldNotResolve,
            couldNotConnect, timedOut, tlsHandshakeFailed, certificateVerificationFailed,
            trustConfigurationInvalid, pinMismatch, clientCertificateRejected, certificateStatusInvalid,
            responseTooLarge, transferFailed.

            Trust options apply to every address: with --pinnedpubkey, probe checks that each address
            serves a pinned key. Any trust failure (pin mismatch, verification, --cert-status without a
            staple) makes that address FAILED, so probe exits 1, not fetch's 60/90/91.
            """,
        sections: [
            .init(
                title: "Output",
                options: [
                    .init(names: ["--json"], arity: .flag, summary: "One JSON object per address instead"),
                    .init(names: ["-v", "--verbose"], arity: .flag, summary: "Print resolver events on stderr")
                ]),
            .init(
                title: "Connection",
                options: [
                    .init(
                        names: ["--connect-timeout"], arity: .value, valueName: "SECONDS",
                        summary: "Connect limit per address and DoH (default 5)",
                        detail: """
                            Limit for connecting to each address, TLS included (default 5), and to each DoH/HTTPDNS
                            endpoint.
                            """),
                    .init(
                        names: ["-m", "--max-time"], arity: .value, valueName: "SECONDS",
                        summary: "Limit to resolve, then per address (default 15)",
                        detail: """
                            As fetch's -m: a limit for resolving the name (DoH/HTTPDNS included), exit 28 when it passes
                            first, then again for each address's whole request, which is FAILED (timed out) past it
                            (default 15; 0: no limit).
                            """)
                ] + ProviderOptions.connectionOptions),
            .init(title: "Name resolution", options: ResolverOptions.resolutionOptions),
            .init(title: "TLS, certificates and pins", options: TrustOptions.parserOptions(probe: true)),
            CommandReference.helpSection
        ],
        mostUsed: ["--json", "-v", "--connect-timeout", "-m", "--doh-url", "--resolve", "--cacert", "--pinnedpubkey", "-E", "-k", "-h"],
        exitStatus: ExitStatusTable.entries(for: "probe"))

    static var help: String { reference.shortHelp() }
    static let parser = reference.parser

    static func run(_ arguments: [String], raw: [[UInt8]], console: Console, environment: Environment) async -> Int32 {
        var url: URL
        var options: ResolverOptions
        let trustOptions: TrustOptions
        var timeouts = Timeouts(connect: 5, total: 15)
        let json: Bool
        let verbose: Bool
        do {
            let parsed = try parser.parse(arguments, raw: raw)
            if parsed.has("help") {
                try console.print(reference.help(for: parsed))
                return HTTPDNSTool.ExitStatus.success
            }
            guard parsed.positionals.count == 1, let text = parsed.positionals.first, let parsedURL = URL(string: text) else {
                throw UsageError("one URL expected", command: "probe")
            }
            do {
                try HTTPRequest.validate(url: parsedURL)
            } catch {
                throw UsageError(error.message, command: "probe")
            }
            url = parsedURL
            for (key, path) in [("connect-timeout", \Timeouts.connect), ("max-time", \Timeouts.total)] {
                guard let text = parsed.value(key) else { continue }
                timeouts[keyPath: path] = try TimeLimitOption.seconds(text, option: parsed.spelling(key), command: "probe")
            }
            options = try ResolverOptions(parsed, environment: environment, command: "probe")
            trustOptions = try TrustOptions(parsed, command: "probe")
            json = parsed.has("json")
            verbose = parsed.has("verbose")
        } catch let error as UsageError {
            return HTTPDNSTool.report(error, console: console)
        } catch {
            return HTTPDNSTool.report(UsageError("\(error)", command: "probe"), console: console)
        }

        let trust: TrustPolicy
        do {
            trust = try trustOptions.policy(base: options.trust)
        } catch {
            // An identity that cannot be loaded is bad input, found before any traffic.
            console.note("httpdns: \(error)")
            return HTTPDNSTool.ExitStatus.usage
        }
        console.warnOfOptionsWithoutEffect(options.providerOptions)
        await options.upgradeToDesignatedResolvers(console: console, verbose: verbose, command: "probe")
        let resolver: HostResolver
        let drops = ServiceBindingDrops()
        do {
            resolver = try options.makeResolver(
                observer: console.resolverObserver(verbose: verbose, drops: drops), connectTimeout: timeouts.connect,
                asksForServiceBindings: options.providerOptions.httpsRecords, waitsForServiceBindings: true)
        } catch {
            return HTTPDNSTool.report(UsageError("\(error)", command: "probe"), console: console)
        }
        let host = url.host(percentEncoded: false) ?? ""
        let port = url.port ?? (url.scheme?.lowercased() == "http" ? 80 : 443)
        var addresses: [IPAddress]
        var route: ProbeRoute?
        // --json's "https_record" and "https_record_notes", for every address.
        var recordKeys: [String: Any] = [:]
        if let literal = IPAddress(host) {
            addresses = [literal]
        } else {
            do {
                let maxTime = timeouts.total
                let resolution = try await TimeLimitOption.resolve(host, port: port, with: resolver, before: maxTime.map { .now + .seconds($0) }, maxTime: maxTime)
                addresses = resolution.addresses
                if !json {
                    let nat64 = resolution.nat64Prefix.map { ", synthesized in NAT64 prefix \($0)" } ?? ""
                    let dnssec = resolution.dnssec.map { ", dnssec \($0.name)" } ?? ""
                    console.print("# \(resolution.host): \(addresses.map(\.description).joined(separator: ", ")) (source \(resolution.source)\(nat64)\(dnssec))")
                }
                if options.providerOptions.httpsRecords, let records = resolution.serviceBindingRecords {
                    (url, route) = await Self.follow(records, url: url, host: resolution.host, upgrades: options.providerOptions.httpsUpgrade, resolver: resolver)
                    if let route {
                        if route.route.record != nil, route.route.targetName != resolution.host { addresses = route.targetAddresses }
                        if !json {
                            for note in route.route.notes { console.print("# \(note)") }
                            if route.route.record != nil { console.print("# \(route.route)") }
                        }
                        recordKeys = ["https_record": route.route.description, "https_record_notes": route.route.notes]
                    }
                } else if options.providerOptions.httpsRecords, let dropped = drops.error(for: resolution.host) {
                    // The resolver dropped the records (malformed, an alias loop): said, as a rejection is.
                    let note = "no usable HTTPS record: \(dropped); probing \(resolution.host)'s addresses on port \(port)"
                    if !json { console.print("# \(note)") }
                    recordKeys = ["https_record": "no HTTPS record used", "https_record_notes": [note]]
                }
                // Under --dnssec, each object says how the addresses' answer validated.
                if let status = resolution.dnssec { recordKeys["dnssec"] = status.name }
            } catch let timeout as TimeLimitOption.Exceeded {
                if json { console.print(encode(["host": host, "healthy": false, "error": "timedOut", "message": timeout.description])) }
                console.note("httpdns: \(timeout)")
                return HTTPDNSTool.ExitStatus.timedOut
            } catch {
                let message = options.withBootstrapHint("\(error)")
                if json { console.print(encode(["host": host, "healthy": false, "error": "couldNotResolve", "message": message])) }
                console.note("httpdns: \(message)")
                return HTTPDNSTool.ExitStatus.couldNotResolve
            }
        }
        var configuration = HTTPClient.Configuration(trust: trust, timeouts: timeouts)
        configuration.racesAddresses = options.providerOptions.happyEyeballs
        let client: HTTPClient
        do {
            client = try HTTPClient(configuration: configuration, resolver: resolver)
        } catch {
            return HTTPDNSTool.report(UsageError("\(error)", command: "probe"), console: console)
        }
        // The order a new connection would try the addresses in, from one TCP connect to each.
        var ranks: [IPAddress: AddressRanking.Ranked] = [:]
        if let ranking = configuration.addressRanking, IPAddress(host) == nil {
            let rankPort = route.map { $0.route.record != nil ? $0.route.port : port } ?? port
            _ = await ConnectProbe.probe(addresses, port: rankPort, timeout: ConnectProbe.timeout(forConnectLimit: [timeouts.connect, timeouts.total].compactMap { $0 }.min()), reportingTo: ranking)
            let ranked = ranking.ranked(addresses, port: rankPort)
            for entry in ranked where ranks[entry.address] == nil { ranks[entry.address] = entry }
            if !json { console.print("# rank (TCP connect to each): " + ranked.map { "\($0.rank). \($0.address) \(reason($0.placement))" }.joined(separator: "; ")) }
        }
        var healthy = true
        for address in addresses {
            var request = HTTPRequest(url: url)
            request.connectTo = [address]
            if let used = route?.route, used.record != nil {
                request.connectPort = used.port
                request.httpVersion = used.httpVersion
            }
            request.reportsTLSDetails = true
            request.timeouts = timeouts
            do {
                let response = try await client.execute(request, to: .handler { _ in })
                let ok = response.status < 400
                healthy = healthy && ok
                console.print(line(address: address, response: response, ok: ok, json: json, rank: ranks[address], recordKeys: recordKeys))
            } catch {
                healthy = false
                let failure = error as? HTTPClientError
                if json {
                    // "error" is the failure's stable name (HTTPClientError.Kind's case), as the help lists them.
                    let kind = failure?.kind.rawValue ?? "error"
                    var object: [String: Any] = ["address": address.description, "healthy": false, "error": kind, "message": failure?.message ?? "\(error)"]
                    if let rank = ranks[address] { object["rank"] = rankObject(rank) }
                    object.merge(recordKeys) { $1 }
                    console.print(encode(object))
                } else {
                    // One line per address: a multi-line message (a pin mismatch's chain) joined with "; ".
                    let text = failure?.summary ?? "error: \(error)"
                    let parts = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                    console.print("\(address) FAILED \(parts.joined(separator: "; "))")
                }
            }
        }
        return healthy ? HTTPDNSTool.ExitStatus.success : 1
    }

    /// Milliseconds to 0.001 ms, so JSON shows 8.809, not 8.809000000000001.
    private static func milliseconds(_ seconds: TimeInterval) -> Double { (seconds * 1_000_000).rounded() / 1000 }

    private static func ms(_ seconds: TimeInterval?) -> String {
        seconds.map { String(format: "%.1f", $0 * 1000) } ?? "?"
    }

    /// Why an address has its rank, in words: "connect 0.4 ms", "not measured", "failed 2 times in a row, last for 8.5 s".
    private static func reason(_ placement: AddressRanking.Placement) -> String {
        switch placement {
        case .measured(let time): "connect \(ms(time)) ms"
        case .unmeasured: "not measured"
        case .backingOff(let failures, let remaining):
            "failed \(failures == 1 ? "once" : "\(failures) times in a row"), last for \(String(format: "%.1f", remaining)) s"
        }
    }

    /// `--json`'s "rank": {"position", "connect_ms", "failures", "back_off_s"}.
    private static func rankObject(_ rank: AddressRanking.Ranked) -> [String: Any] {
        var object: [String: Any] = ["position": rank.rank, "connect_ms": NSNull(), "failures": 0, "back_off_s": NSNull()]
        switch rank.placement {
        case .measured(let time): object["connect_ms"] = milliseconds(time)
        case .unmeasured: break
        case .backingOff(let failures, let remaining):
            object["failures"] = failures
            object["back_off_s"] = (remaining * 10).rounded() / 10
        }
        return object
    }

    /// The records' route for `url` (upgraded to https when `upgrades` and a record allows it), with
    /// the TargetName's addresses when it is another name (its hints when it does not resolve).
    private static func follow(
        _ records: ServiceBindingRecords, url: URL, host: String, upgrades: Bool, resolver: HostResolver
    ) async -> (URL, ProbeRoute?) {
        var url = url
        var upgraded = false
        let isHTTPS = url.scheme?.lowercased() == "https"
        let port = url.port ?? (isHTTPS ? 443 : 80)
        if !isHTTPS {
            guard upgrades, ServiceBindingRoute.upgradesToHTTPS(records: records, port: port), let https = ServiceBindingRoute.upgradedURL(url) else { return (url, nil) }
            url = https
            upgraded = true
        }
        guard var route = ServiceBindingRoute(records: records, host: host, port: upgraded ? 443 : port, version: .http2) else { return (url, nil) }
        route.upgradedToHTTPS = upgraded
        var targetAddresses: [IPAddress] = []
        if route.record != nil, route.targetName != host {
            if let resolved = try? await resolver.resolve(host: route.targetName, port: route.port) {
                targetAddresses = resolved.addresses
            } else {
                route.usedAddressHints = !route.addressHints.isEmpty
                targetAddresses = route.addressHints
            }
            if targetAddresses.isEmpty {
                route.notes.append("TargetName \(route.targetName) did not resolve: probing \(host)'s addresses on port \(route.originPort)")
                route.record = nil
                route.port = route.originPort
                route.httpVersion = nil
            }
        }
        return (url, ProbeRoute(route: route, targetAddresses: targetAddresses))
    }

    /// What the records changed, and the TargetName's addresses to probe.
    private struct ProbeRoute {
        var route: ServiceBindingRoute
        var targetAddresses: [IPAddress]
    }

    private static func line(
        address: IPAddress, response: HTTPResponse, ok: Bool, json: Bool, rank: AddressRanking.Ranked? = nil,
        recordKeys: [String: Any] = [:]
    ) -> String {
        let timing = response.connection.timing
        let tls = response.connection.tls
        let expires = tls?.peerNotAfter.map { ISO8601DateFormatter().string(from: $0) }
        if json {
            var object: [String: Any] = [
                "address": address.description, "healthy": ok, "status": response.status,
                "connect_ms": timing.map { milliseconds($0.connect) } as Any? ?? NSNull(),
                "tls_ms": timing.map { milliseconds($0.tlsHandshake) } as Any? ?? NSNull(),
                "total_ms": timing.map { milliseconds($0.total) } as Any? ?? NSNull()
            ]
            if let rank { object["rank"] = rankObject(rank) }
            // "https_record" (what the record changed, or "no HTTPS record used") and "https_record_notes"
            // (why records were passed over or dropped, h3 or ech skipped; []): the text's `#` lines.
            object.merge(recordKeys) { $1 }
            if let tls {
                object["tls"] =
                    [
                        "sni": tls.serverName ?? NSNull(), "verified": tls.verified, "verification": verificationName(tls.verification),
                        "version": tls.protocolVersion ?? NSNull(),
                        "subject": tls.peerSubject ?? NSNull(), "expires": expires ?? NSNull()
                    ] as [String: Any]
            }
            return encode(object)
        }
        var text = "\(address) \(ok ? "ok" : "FAILED") connect=\(ms(timing?.connect))ms"
        if let tls {
            text += " tls=\(ms(timing?.tlsHandshake))ms \(tls.protocolVersion ?? "?") sni=\(tls.serverName ?? "-") verified=\(tls.verified)"
            // Why verified is false with -k (disabled), so that it is not read as a failed check.
            text += " verification=\(verificationName(tls.verification))"
        }
        text += " status=\(response.status) total=\(ms(timing?.total))ms"
        if let tls { text += " cert=\"\(tls.peerSubject ?? "?")\" expires=\(expires ?? "?")" }
        return text
    }

    /// `--json`'s `tls.verification`: `verified`, `disabled` (-k: nothing was checked) or `failed`.
    private static func verificationName(_ verification: CertificateVerification) -> String {
        switch verification {
        case .verified: "verified"
        case .disabled: "disabled"
        case .failed: "failed"
        }
    }

    private static func encode(_ object: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
