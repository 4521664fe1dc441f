import Foundation
import HTTPDNS

/// `--upgrade-resolver`: Discovery of Designated Resolvers (RFC 9462) before the command resolves.
extension ResolverOptions {
    static let designatedResolverOption = ArgumentParser.Option(
        names: ["--upgrade-resolver"], arity: .value, valueName: "SERVER",
        summary: "Use the DoH server SERVER designates (DDR)",
        detail: """
            Upgrade an unencrypted resolver to its own DoH server (Discovery of Designated Resolvers, RFC
            9462): ask SERVER (system: each nameserver of /etc/resolv.conf; or ADDRESS, ADDRESS:PORT,
            [IPV6]:PORT) for _dns.resolver.arpa SVCB over plain DNS, and use each DoH server it names
            whose certificate verifies for its name and also names SERVER's address (RFC 9462 §4.2),
            before any --doh-url endpoint (instead of the built-in ones). Repeatable. A designation that
            fails those checks is never used; with none verified, the command warns and goes on with the
            other endpoints; verbose output lists what was passed over. Only with the doh provider.
            """)

    /// `--upgrade-resolver` values as servers; `system` reads /etc/resolv.conf.
    /// - Throws: `UsageError` for a value that is neither `system` nor an address (with a port), or
    ///   an unreadable /etc/resolv.conf.
    static func designatedResolverServers(_ texts: [String], command: String) throws(UsageError) -> [PlainDNSServer] {
        var servers: [PlainDNSServer] = []
        for text in texts {
            if text == "system" {
                do {
                    servers += try PlainDNSServer.system()
                } catch {
                    throw UsageError("--upgrade-resolver: \(error)", command: command)
                }
            } else if let server = PlainDNSServer(parsing: text) {
                servers.append(server)
            } else {
                throw OptionValue.refusal("--upgrade-resolver", expected: "system, ADDRESS, ADDRESS:PORT or [IPV6]:PORT", got: text, command: command)
            }
        }
        return servers
    }

    /// Puts the verified designated resolvers of `designatedResolverServers` before the given
    /// endpoints (in place of the built-in ones); warns and keeps the endpoints when none verifies.
    /// - Parameter silent: `fetch -s`: no warning either.
    mutating func upgradeToDesignatedResolvers(console: Console, verbose: Bool, silent: Bool = false, command: String) async {
        guard !designatedResolverServers.isEmpty else { return }
        do {
            let (resolvers, passedOver) = try await DesignatedResolver.verified(of: designatedResolverServers, dohTrust: dohTrust)
            if verbose {
                for reason in passedOver { console.note("* DDR: passed over \(reason)") }
                for resolver in resolvers {
                    console.note("* DDR: using \(resolver) (its certificate names \(resolver.unencrypted.address))")
                }
            }
            endpoints = resolvers.map(\.endpoint) + (endpointsAreExplicit ? endpoints : [])
            providers = (try? providerOptions.providers(urls: [], endpoints: endpoints, command: command)) ?? providers
        } catch {
            if !silent { console.note("httpdns: warning: --upgrade-resolver: \(error); using the other endpoints") }
        }
    }
}
