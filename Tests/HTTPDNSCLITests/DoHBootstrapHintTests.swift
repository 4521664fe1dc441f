import Foundation
import Testing
@testable import HTTPDNSCLI

/// A `--doh-url` host without a `--resolve` entry is looked up with the system resolver; when that
/// fails, the message says so and how to give its address.
@Suite("--doh-url host that cannot be resolved")
struct DoHBootstrapHintTests {
    @Test("resolve's failure names the --resolve entry that would reach the DoH endpoint's host")
    func resolveHintsResolveEntry() async {
        let output = LockedOutput()
        let status = await HTTPDNSTool.run(
            ["resolve", "--no-fallback", "--doh-url", "https://nosuch.invalid:8443/dns-query", "a.test"],
            console: output.console, environment: [:])
        #expect(status == HTTPDNSTool.ExitStatus.couldNotResolve)
        #expect(
            output.errorText.hasSuffix(
                "(the DoH endpoint's host nosuch.invalid is looked up with the system resolver; --resolve nosuch.invalid:8443:ADDR gives its address)\n"
            ), "\(output.errorText)")
    }

    @Test("an endpoint given a --resolve entry is not looked up, so no hint is given")
    func bootstrappedEndpointHasNoHint() {
        let options = try? ResolverOptions(
            ResolveCommand.parser.parse(["--doh-url", "https://nosuch.invalid/dns-query", "--resolve", "nosuch.invalid:443:127.0.0.1", "a.test"]),
            environment: Environment([:]), command: "resolve")
        let message = "could not resolve host 'nosuch.invalid': name does not exist (NXDOMAIN)"
        #expect(options?.withBootstrapHint(message) == message)
    }

    @Test("--doh-url's help says an endpoint's host without a --resolve entry is looked up with the system resolver")
    func helpSaysSystemResolver() {
        let detail = ResolverOptions.resolutionOptions.first { $0.names.contains("--doh-url") }?.detail.replacingOccurrences(of: "\n", with: " ") ?? ""
        #expect(!detail.contains("never through the system"))
        #expect(detail.contains("without one, it is looked up with the system resolver"))
    }
}
