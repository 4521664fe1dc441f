import Foundation
import HTTPDNS

/// `httpdns pins URL`: connect like `fetch` and print the certificate chain with its pins.
enum PinsCommand {
    static let reference = CommandReference(
        name: "pins",
        synopsis: "[options] URL",
        summary: "Print the server's certificate chain with pins to paste.",
        description: """
            Connects to URL's host the way fetch does (DoH, IP-direct, SNI and verification on the name)
            and prints the chain the handshake verified, leaf first: subject, issuer, expiry, the SPKI pin
            (for fetch --pinnedpubkey) and the certificate's SHA-256 (for fetch --pin-cert).

            The last line is a fetch --pinnedpubkey option with the server's own key pin, ready to paste (add a
            backup key's pin before relying on it). The line before it lists the issuers' pins apart: a pin
            matches anywhere in the chain, so an issuer's pin lets through every certificate that issuer
            signs, for any host.

            An HTTPS record (RFC 9460) moves the connection as it does fetch's (another port, another
            TargetName's addresses), so the chain is the one fetch would be shown; a note on stderr
            says where the record sent it. --no-https-records connects to the URL's own port.
            """,
        sections: [
            .init(
                title: "Connection",
                options: [
                    .init(
                        names: ["--connect-timeout"], arity: .value, valueName: "SECONDS",
                        summary: "Limit to resolve, then to connect (default 10)",
                        detail: """
                            Limit for resolving the name (DoH/HTTPDNS included, as curl's), then again for connecting,
                            TLS included (default 10).
                            """)
                ] + ProviderOptions.connectionOptions.filter { !$0.names.contains("--no-https-upgrade") }), // https URLs only
            .init(title: "Name resolution", options: ResolverOptions.resolutionOptions),
            .init(
                title: "TLS",
                options: ResolverOptions.trustOptions + [
                    .init(names: ["-k", "--insecure"], arity: .flag, summary: "Show the chain even when it does not verify")
                ]),
            CommandReference.helpSection
        ],
        mostUsed: ["--connect-timeout", "--doh-url", "--resolve", "--no-fallback", "--cacert", "-k", "-h"],
        exitStatus: ExitStatusTable.entries(for: "pins"))

    static var help: String { reference.shortHelp() }
    static let parser = reference.parser

    static func run(_ arguments: [String], raw: [[UInt8]], console: Console, environment: Environment) async -> Int32 {
        let url: URL
        var options: ResolverOptions
        let insecure: Bool
        var timeouts = Timeouts()
        do throws(UsageError) {
            let parsed = try parser.parse(arguments, raw: raw)
            if parsed.has("help") {
                try console.print(reference.help(for: parsed))
                return HTTPDNSTool.ExitStatus.success
            }
            guard parsed.positionals.count == 1, let text = parsed.positionals.first, let parsedURL = URL(string: text) else {
                throw UsageError("one URL expected", command: "pins")
            }
            do {
                try HTTPRequest.validate(url: parsedURL)
            } catch {
                throw UsageError(error.message, command: "pins")
            }
            guard parsedURL.scheme?.lowercased() == "https" else { throw UsageError("pins needs an https URL", command: "pins") }
            if let value = parsed.value("connect-timeout") {
                timeouts.connect = try TimeLimitOption.seconds(value, option: "--connect-timeout", command: "pins")
            }
            url = parsedURL
            options = try ResolverOptions(parsed, environment: environment, command: "pins")
            insecure = parsed.has("insecure")
        } catch {
            return HTTPDNSTool.report(error, console: console)
        }

        var trust = options.trust
        if insecure { trust.verification = .insecureSkippingAllVerification }
        console.warnOfOptionsWithoutEffect(options.providerOptions)
        await options.upgradeToDesignatedResolvers(console: console, verbose: false, command: "pins")
        let client: HTTPClient
        do {
            var configuration = HTTPClient.Configuration(trust: trust, timeouts: timeouts)
            options.providerOptions.configureConnections(&configuration)
            // As probe: the records are waited for, since the chain reported must be the endpoint's they name.
            let resolver = try options.makeResolver(
                observer: console.resolverObserver(verbose: false), asksForServiceBindings: options.providerOptions.httpsRecords, waitsForServiceBindings: true)
            client = try HTTPClient(configuration: configuration, resolver: resolver)
        } catch {
            return HTTPDNSTool.report(UsageError("\(error)", command: "pins"), console: console)
        }
        var request = HTTPRequest(url: url, method: "HEAD")
        request.reportsTLSDetails = true
        do {
            let response = try await client.execute(request)
            // Where an HTTPS record sent the connection: the chain printed is that endpoint's.
            if let route = response.connection.serviceBindingRoute { FetchCommand.describe(route, console: console, prefix: "httpdns: ") }
            let chain = response.connection.tls?.certificateChain ?? []
            guard !chain.isEmpty else {
                console.note("httpdns: no certificate chain was captured (the TLS session was resumed)")
                return 1
            }
            if response.connection.tls?.verification == .disabled {
                console.note("httpdns: not verified (verification disabled): the chain as the server sent it, not checked")
            }
            let formatter = ISO8601DateFormatter()
            for (index, certificate) in chain.enumerated() {
                console.print("\(index) subject: \(certificate.subject)")
                console.print("  issuer:  \(certificate.issuer)")
                console.print("  expires: \(formatter.string(from: certificate.expiresAt))")
                console.print("  pin:     \(certificate.publicKeyPin)")
                console.print("  sha256:  \(certificate.certificatePin.sha256.map { String(format: "%02x", $0) }.joined())")
            }
            if chain.count > 1 {
                let issuers = chain.dropFirst().map(\.publicKeyPin.description).joined(separator: ";")
                console.print("issuer pins (each matches any certificate its key signed, for any host): \(issuers)")
            }
            console.print("--pinnedpubkey '\(chain[0].publicKeyPin)'")
            return HTTPDNSTool.ExitStatus.success
        } catch let error as HTTPClientError {
            if let route = error.serviceBindingRoute { FetchCommand.describe(route, console: console, prefix: "httpdns: ") }
            console.note("httpdns: \(options.withBootstrapHint(error.message))")
            return error.curlExitStatus
        } catch {
            console.note("httpdns: \(error)")
            return 1
        }
    }
}
