import HTTPDNSCore

/// Option values read and refused in one place, so that every refusal has one shape:
/// `--max-time: expected a duration in seconds (0 to 2147483.647; 0: no limit), got 'nan'`, the
/// option as its long name, what it takes, and what it was given, whichever option it is.
enum OptionValue {
    /// The usage error for `value`, which `option` does not take: `OPTION: expected EXPECTED, got
    /// 'VALUE'`, then `why` when there is more to say about the value (`(invalid address '1.2.3.x')`).
    /// - Parameter quoted: false for a description of the value in place of the value itself (`5
    ///   bytes`, for a secret that is not to be echoed).
    static func refusal(_ option: String, expected: String, got value: String, quoted: Bool = true, why: String? = nil, command: String) -> UsageError {
        UsageError("\(option): expected \(expected), got \(quoted ? "'\(value)'" : value)\(why.map { " (\($0))" } ?? "")", command: command)
    }

    /// The usage error for a file `option` names that cannot be read or written, one shape for
    /// every option: `OPTION: cannot read 'PATH': REASON` (`strerror`'s text, as `No such file
    /// or directory`), the option as the user typed it (`-E` or `--cert`).
    /// - Parameter status: 2, or the status the file's failure has always had (23 for an output
    ///   file or cookie jar that cannot be written, as curl's).
    static func refusal(_ failure: FileFailure, option: String, command: String, status: Int32 = HTTPDNSTool.ExitStatus.usage) -> UsageError {
        UsageError("\(option): \(failure)", command: command, status: status)
    }

    /// The refusal of `value` for an option that takes one of a fixed set (`--type`'s A, AAAA, both
    /// or auto): the set, listed.
    static func refusal(_ value: String, for option: ArgumentParser.Option, command: String) -> UsageError {
        refusal(option.names.last { $0.hasPrefix("--") } ?? option.names[0], expected: option.valueList, got: value, command: command)
    }

    /// The numbers a numeric option takes, as its refusal states them: `>= 0`, `> 0`, `1 to 300`,
    /// then what a special value means (`0: no limit`).
    struct Bounds: CustomStringConvertible {
        var minimum: Double
        /// Whether `minimum` itself is taken (`>= 0`) or only numbers above it (`> 0`).
        var minimumIncluded = true
        var maximum: Double? = nil
        var note: String? = nil

        static func atLeast(_ minimum: Double, note: String? = nil) -> Bounds { Bounds(minimum: minimum, note: note) }
        static func above(_ minimum: Double) -> Bounds { Bounds(minimum: minimum, minimumIncluded: false) }
        static func from(_ minimum: Double, to maximum: Double, note: String? = nil) -> Bounds {
            Bounds(minimum: minimum, maximum: maximum, note: note)
        }

        func contains(_ value: Double) -> Bool {
            (minimumIncluded ? value >= minimum : value > minimum) && maximum.map { value <= $0 } != false
        }

        var description: String {
            let range =
                if let maximum { "\(Self.number(minimum)) to \(Self.number(maximum))" } else { "\(minimumIncluded ? ">=" : ">") \(Self.number(minimum))" }
            return range + (note.map { "; \($0)" } ?? "")
        }

        /// `300`, not `300.0`; `2147483.647` as it is.
        private static func number(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
        }
    }

    /// `text` as a number of seconds within `bounds` (finite: NaN and infinity are no durations).
    /// - Throws: `UsageError` in `refusal`'s shape for anything else.
    static func seconds(_ text: String, option: String, bounds: Bounds, command: String) throws(UsageError) -> Double {
        guard let value = Double(text), value.isFinite, bounds.contains(value) else {
            throw refusal(option, expected: "a duration in seconds (\(bounds))", got: text, command: command)
        }
        return value
    }

    /// `text` as a whole number of `what` (`redirects`) within `bounds`.
    /// - Throws: `UsageError` in `refusal`'s shape for anything else.
    static func integer(_ text: String, option: String, counting what: String, bounds: Bounds, command: String) throws(UsageError) -> Int {
        guard let value = Int(text), bounds.contains(Double(value)) else {
            throw refusal(option, expected: "a number of \(what) (\(bounds))", got: text, command: command)
        }
        return value
    }
}
