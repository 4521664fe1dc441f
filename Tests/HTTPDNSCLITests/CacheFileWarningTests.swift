import Foundation
import Testing
@testable import HTTPDNSCLI

/// An unusable `--cache-file` is a warning in words of our own, and the command goes on without it.
@Suite("--cache-file that cannot be used")
struct CacheFileWarningTests {
    @Test("a cache file whose directory cannot be made warns with the directory and the system's reason, and the command succeeds")
    func uncreatableDirectoryWarns() async {
        let output = LockedOutput()
        let status = await HTTPDNSTool.run(
            ["resolve", "--no-fallback", "--cache-file", "/proc/httpdns-x/c.db", "--resolve", "a.test:443:127.0.0.1", "a.test"],
            console: output.console, environment: [:])
        #expect(status == HTTPDNSTool.ExitStatus.success)
        #expect(output.text == "a.test 127.0.0.1 ttl=- source=static\n")
        #expect(
            output.errorText
                == "httpdns: warning: --cache-file: not using the cache file /proc/httpdns-x/c.db: cannot create the directory /proc/httpdns-x (No such file or directory); answers are kept in memory only\n"
        )
    }
}
