import Foundation
import Testing
@testable import HTTPDNSCLI

/// `pins` reports what its resolver does as `fetch`, `resolve` and `probe` do: warnings on stderr.
@Suite("pins warnings")
struct PinsWarningTests {
    @Test("pins warns about a cache file it cannot use, then goes on without it")
    func unusableCacheFileWarns() async {
        let output = LockedOutput()
        let status = await HTTPDNSTool.run(
            ["pins", "--no-fallback", "--cache-file", "/proc/httpdns-x/c.db", "--resolve", "a.test:1:127.0.0.1", "https://a.test:1/"],
            console: output.console, environment: [:])
        #expect(status == 7)
        #expect(
            output.errorText.hasPrefix(
                "httpdns: warning: --cache-file: not using the cache file /proc/httpdns-x/c.db: cannot create the directory /proc/httpdns-x (No such file or directory); answers are kept in memory only\n"
            ), "\(output.errorText)")
    }

    @Test("pins warns when the trusted resolver fails and the system resolver is used")
    func fallbackWarns() async {
        let output = LockedOutput()
        _ = await HTTPDNSTool.run(
            ["pins", "--connect-timeout", "60", "--doh-url", "https://127.0.0.1:1/dns-query", "https://a.test/"],
            console: output.console, environment: [:])
        #expect(
            output.errorText.hasPrefix(
                "httpdns: warning: the trusted resolver failed for a.test (https://127.0.0.1:1/dns-query: "
            ), "\(output.errorText)")
        #expect(output.errorText.contains("could not connect to 127.0.0.1:1 (addresses tried: 127.0.0.1)"), "\(output.errorText)")
        #expect(output.errorText.contains("using the system resolver (--no-fallback refuses instead)\n"), "\(output.errorText)")
    }
}
