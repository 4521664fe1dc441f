import HTTPDNS

/// `-m/--max-time` and `--connect-timeout` values, read as curl reads them.
enum TimeLimitOption {
    /// A time limit in seconds; 0 is no limit (for `--connect-timeout`, libcurl's default of 300 s),
    /// as curl.
    /// - Throws: `UsageError` for anything but a finite number from 0 to `Timeouts.maximum`.
    static func seconds(_ text: String, option: String, command: String) throws(UsageError) -> Double? {
        guard let value = Double(text), value.isFinite, value >= 0 else {
            throw UsageError("\(option) needs a number of seconds (0 for no limit), got '\(text)'", command: command)
        }
        guard value <= Timeouts.maximum else {
            throw UsageError("\(option): too large number '\(text)' (at most \(Timeouts.maximum) seconds)", command: command)
        }
        return value == 0 ? nil : value
    }
}
