import Foundation
import Testing
@testable import HTTPDNSCLI

/// Every option value a command refuses is refused in one shape (`OptionValue`): `httpdns: OPTION:
/// expected WHAT, got 'VALUE'`, exit 2, before any traffic.
@Suite("option values: one shape for every refusal")
struct OptionValueTests {
    /// What `arguments` print on standard error, and the status.
    static func run(_ arguments: [String]) async -> (status: Int32, error: String) {
        let output = LockedOutput()
        let status = await HTTPDNSTool.run(arguments, console: output.console, environment: [:])
        return (status, output.errorText)
    }

    /// The numeric options of each command: the words before the value, and the option as the
    /// refusal names it (as typed: `-m` or `--max-time`).
    static let numericOptions: [(arguments: [String], option: String)] = [
        (["fetch", "https://a.test/", "--max-time"], "--max-time"),
        (["fetch", "https://a.test/", "-m"], "-m"),
        (["resolve", "a.test", "-m"], "-m"),
        (["fetch", "https://a.test/", "--connect-timeout"], "--connect-timeout"),
        (["fetch", "https://a.test/", "-L", "--max-redirs"], "--max-redirs"),
        (["fetch", "https://a.test/", "--parallel-max"], "--parallel-max"),
        (["fetch", "https://a.test/", "--stale-timeout"], "--stale-timeout"),
        (["fetch", "https://a.test/", "--stale", "--max-stale"], "--max-stale"),
        (["resolve", "a.test", "--max-time"], "--max-time"),
        (["resolve", "a.test", "--stale-timeout"], "--stale-timeout"),
        (["resolve", "a.test", "--max-stale"], "--max-stale"),
        (["probe", "https://a.test/", "--max-time"], "--max-time"),
        (["probe", "https://a.test/", "--connect-timeout"], "--connect-timeout"),
        (["pins", "https://a.test/", "--connect-timeout"], "--connect-timeout")
    ]

    @Test(
        "every numeric option refuses NaN, infinity, a negative number and a word with 'OPTION: expected ..., got VALUE'",
        arguments: numericOptions.map { $0.arguments + [$0.option] })
    func numericRefusalsHaveOneShape(words: [String]) async throws {
        let arguments = Array(words.dropLast()), option = words.last!
        let command = arguments[0]
        for value in ["nan", "NaN", "inf", "-5", "soon", ""] {
            let result = await Self.run(arguments + [value])
            #expect(result.status == 2, "\(arguments) \(value): \(result.error)")
            let prefix = "httpdns: \(option): expected a ", suffix = ", got '\(value)' (see 'httpdns help \(command)')\n"
            #expect(result.error.hasPrefix(prefix) && result.error.hasSuffix(suffix), "\(arguments) \(value): \(result.error)")
        }
    }

    @Test(
        "each refusal says what the option takes: its range and what a special value means",
        arguments: [
            (["fetch", "https://a.test/", "--max-time", "nan"], "--max-time: expected a duration in seconds (0 to 2147483.647; 0: no limit), got 'nan'"),
            (["fetch", "https://a.test/", "-m", "1e17"], "-m: expected a duration in seconds (0 to 2147483.647; 0: no limit), got '1e17'"),
            (["probe", "https://a.test/", "--connect-timeout", "-1"], "--connect-timeout: expected a duration in seconds (0 to 2147483.647; 0: libcurl's 300 s), got '-1'"),
            (["fetch", "https://a.test/", "-L", "--max-redirs", "-2"], "--max-redirs: expected a number of redirects (>= -1; -1: no limit), got '-2'"),
            (["fetch", "https://a.test/", "--parallel-max", "301"], "--parallel-max: expected a number of transfers (1 to 300), got '301'"),
            (["resolve", "--stale-timeout", "-1", "a.test"], "--stale-timeout: expected a duration in seconds (>= 0), got '-1'"),
            (["resolve", "--max-stale", "0", "a.test"], "--max-stale: expected a duration in seconds (> 0), got '0'"),
            (["resolve", "--type", "MX", "a.test"], "--type: expected A, AAAA, both, auto, HTTPS or SVCB, got 'MX'"),
            (["resolve", "--doh-method", "PUT", "a.test"], "--doh-method: expected GET or POST, got 'PUT'"),
            (["resolve", "--provider", "dns", "a.test"], "--provider: expected doh, json, httpdns-ali, httpdns-ali-v2 or httpdns-dnspod, got 'dns'"),
            (["resolve", "--bypass", ".", "a.test"], "--bypass: expected a host name or .SUFFIX, got '.'"),
            (["resolve", "--resolve", "a.test:x:127.0.0.1", "a.test"], "--resolve: expected HOST:PORT:ADDR[,ADDR]..., got 'a.test:x:127.0.0.1' (invalid port 'x')"),
            (["fetch", "https://a.test/", "-H", "no colon"], "-H: expected 'Name: value', 'Name:' to leave it out or 'Name;' to send it empty, got 'no colon'"),
            // The secret is not echoed: its length is what is wrong.
            (
                ["resolve", "--provider", "httpdns-dnspod", "--key-id", "1", "--secret", "short", "a.test"],
                "--secret: expected httpdns-dnspod's DES key (at least 8 bytes; the first 8 are used), got 5 bytes"
            ),
            (
                ["resolve", "--provider", "httpdns-dnspod", "--key-id", "1", "--alg", "aes", "--secret", "short", "a.test"],
                "--secret: expected httpdns-dnspod's AES key (16, 24 or 32 bytes), got 5 bytes"
            )
        ])
    func refusalsSayWhatTheOptionTakes(arguments: [String], message: String) async {
        let result = await Self.run(arguments)
        #expect(result.status == 2)
        #expect(result.error == "httpdns: \(message) (see 'httpdns help \(arguments[0])')\n")
    }

    @Test("a value within the range is taken: 0 and the maximum of -m, -1 of --max-redirs, 1 and 300 of --parallel-max")
    func valuesWithinTheRangeAreTaken() throws {
        #expect(try TimeLimitOption.seconds("0", option: "--max-time", command: "fetch") == nil)
        #expect(try TimeLimitOption.seconds("2147483.647", option: "--max-time", command: "fetch") == 2147483.647)
        #expect(try OptionValue.integer("-1", option: "--max-redirs", counting: "redirects", bounds: .atLeast(-1), command: "fetch") == -1)
        #expect(try OptionValue.integer("1", option: "--parallel-max", counting: "transfers", bounds: .from(1, to: 300), command: "fetch") == 1)
        #expect(try OptionValue.integer("300", option: "--parallel-max", counting: "transfers", bounds: .from(1, to: 300), command: "fetch") == 300)
        #expect(throws: UsageError.self) { try OptionValue.seconds("0", option: "--max-stale", bounds: .above(0), command: "resolve") }
    }
}
