import Foundation

/// How much longer than usual the suite allows for work whose time depends on the machine: the
/// factor in `HTTPDNS_TEST_TIME_SCALE`, 1 when it is unset. `scripts/sanitize.sh` sets it (a
/// sanitized build running the whole suite on two cores is several times slower: cold TLS
/// handshakes and DoH lookups of 5 s and more); `scripts/test.sh` does not, so the ordinary run
/// asserts every bound unscaled. The `httpdns` child processes inherit the variable and ignore it.
///
/// Scale only what allows for the machine's speed: a generous limit on work whose time is not under
/// test, or the slack above a limit that is (`1 + TestTimeScale.scaled(5)` for a 1 s limit). The
/// limit under test itself, and lower bounds ("not before the timeout"), stay as they are.
public enum TestTimeScale {
    /// The environment variable read.
    public static let variable = "HTTPDNS_TEST_TIME_SCALE"

    /// The factor, read once per process. A value that is not a number from 1 to 100 stops the
    /// process with a message naming it: read as 1, a typo would look like the machine's timing.
    public static let factor: Double = {
        let text = ProcessInfo.processInfo.environment[variable]
        guard let factor = parse(text) else {
            fatalError("\(variable)='\(text ?? "")': expected a number from 1 to 100 (the factor for the tests' time allowances), or unset for 1")
        }
        return factor
    }()

    /// `seconds` stretched by `factor`.
    public static func scaled(_ seconds: Double) -> Double { seconds * factor }

    /// The factor `text` gives: 1 for nil or empty, nil when it is not a number from 1 to 100.
    public static func parse(_ text: String?) -> Double? {
        guard let text, !text.isEmpty else { return 1 }
        guard let value = Double(text), value >= 1, value <= 100 else { return nil }
        return value
    }
}
