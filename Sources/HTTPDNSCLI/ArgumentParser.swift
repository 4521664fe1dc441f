/// A small curl-style argument parser: long options (`--name VALUE`, `--name=VALUE`), short
/// options (`-X VALUE`, `-XVALUE`, `-sv`), repeated options and positional arguments.
struct ArgumentParser {
    /// How an option takes its value.
    enum Arity { case flag, value }

    /// One option: how it parses, and its documentation, from which `--help`, `httpdns help`,
    /// the man pages and the shell completions are made.
    struct Option {
        let names: [String] // e.g. ["-X", "--request"]
        let arity: Arity
        /// Whether the value is bytes rather than text (a body given inline), so that it may be
        /// any bytes; every other value, and every positional argument, must be valid UTF-8.
        var takesBytes = false
        /// The value's placeholder in help (`METHOD`); nil for a flag.
        var valueName: String? = nil
        /// One line for `--help`.
        var summary: String = ""
        /// The whole story, for `httpdns help COMMAND` and the man page; empty: the summary says it all.
        var detail: String = ""
        /// The values it takes when they are a fixed set (`GET`, `POST`): what the shell completions
        /// offer and its usage error lists.
        var values: [String] = []
        /// The key results are stored under (the first long name without dashes); stored, as
        /// parsing reads it for every option given.
        let key: String

        init(
            names: [String], arity: Arity, takesBytes: Bool = false, valueName: String? = nil, summary: String = "",
            detail: String = "", values: [String] = []
        ) {
            self.names = names
            self.arity = arity
            self.takesBytes = takesBytes
            self.valueName = valueName
            self.summary = summary
            self.detail = detail
            self.values = values
            key = (names.first { $0.hasPrefix("--") } ?? names[0]).trimmingPrefix(while: { $0 == "-" }).description
        }
        /// `values` as a message lists them: `A, AAAA, both or auto`.
        var valueList: String {
            values.count < 2 ? values.joined() : values.dropLast().joined(separator: ", ") + " or " + values.last!
        }
    }

    struct Parsed {
        var values: [String: [String]] = [:]
        /// Each value's bytes exactly as the command line gave them, beside `values`: the strings
        /// have invalid UTF-8 replaced by U+FFFD, which a body must not (curl sends argv bytes).
        var rawValues: [String: [[UInt8]]] = [:]
        /// The name each value was given with, beside `values` (`-E` or `--cert`): messages about a
        /// value name the option as the user typed it.
        var spellings: [String: [String]] = [:]
        var flags: Set<String> = []
        var positionals: [String] = []
        /// Options in the order given, for options whose order matters (`--http1.1` vs `--http2`).
        var order: [String] = []
        /// The argument right after a flag, when it is not an option (`--help all`'s topic); it
        /// is a positional argument too.
        var argumentAfter: [String: String] = [:]

        func value(_ key: String) -> String? { values[key]?.last }
        func all(_ key: String) -> [String] { values[key] ?? [] }
        /// The bytes of each value of `key`, as given on the command line.
        func allBytes(_ key: String) -> [[UInt8]] { rawValues[key] ?? [] }
        func has(_ key: String) -> Bool { flags.contains(key) }
        /// The name the last value of `key` was given with (the one `value(_:)` returns): `-E` or
        /// `--cert`; `--KEY` when it was not given.
        func spelling(_ key: String) -> String { spellings[key]?.last ?? "--\(key)" }

        /// For a "no URL/host given" refusal: when the last option given took a value, which option and
        /// value (`" ('-m' took 'https://a.test/' as its value)"`), as a value meant for an option is
        /// often missing and the URL became it; empty otherwise.
        var swallowedValueHint: String {
            guard let key = order.last, let value = values[key]?.last, !flags.contains(key) else { return "" }
            return " ('\(spelling(key))' took '\(value)' as its value)"
        }
        /// Each value of `key` with the name it was given with, in command-line order.
        func allSpelled(_ key: String) -> [(value: String, spelling: String)] {
            Array(zip(all(key), spellings[key] ?? []))
        }
    }

    let command: String
    let options: [Option]
    /// Each name's option (the first that has it), so that an argument costs one lookup, not a
    /// scan of every option.
    private let optionsByName: [String: Option]

    init(command: String, options: [Option]) {
        self.command = command
        self.options = options
        optionsByName = Dictionary(options.flatMap { option in option.names.map { ($0, option) } }, uniquingKeysWith: { first, _ in first })
    }

    /// - Parameters:
    ///   - arguments: The command line's arguments as strings.
    ///   - raw: The same arguments' bytes (from `argv`, so possibly not UTF-8), one per argument;
    ///     nil takes each string's UTF-8.
    /// - Throws: `UsageError` for an unknown option, a missing value, or a value or positional
    ///   argument that is not valid UTF-8 (unless its option `takesBytes`): read as text it would
    ///   be changed (invalid bytes become U+FFFD), and so would the header sent or the file written.
    func parse(_ arguments: [String], raw: [[UInt8]]? = nil) throws(UsageError) -> Parsed {
        precondition(raw == nil || raw?.count == arguments.count, "one raw argument per argument")
        let raw = raw ?? arguments.map { Array($0.utf8) }
        var parsed = Parsed()
        var index = 0
        var onlyPositionals = false
        /// Stores `value`, whose bytes are those of raw argument `rawIndex` from byte `offset` on.
        /// What precedes a value in its argument (`--name=`, `-sX`) is ASCII, which a repaired
        /// string keeps byte for byte, so the offset counts the same in both.
        func store(_ option: Option, _ value: String?, spelled name: String, rawIndex: Int = 0, offset: Int = 0) throws(UsageError) {
            parsed.order.append(option.key)
            guard let value else {
                parsed.flags.insert(option.key)
                if index < arguments.count, !arguments[index].hasPrefix("-") || arguments[index] == "-" {
                    parsed.argumentAfter[option.key] = arguments[index]
                }
                return
            }
            let bytes = Array(raw[rawIndex].dropFirst(offset))
            guard option.takesBytes || bytes.elementsEqual(value.utf8) else {
                throw UsageError("the value of \(name) is not valid UTF-8: give it as UTF-8 text", command: command)
            }
            parsed.values[option.key, default: []].append(value)
            parsed.rawValues[option.key, default: []].append(bytes)
            parsed.spellings[option.key, default: []].append(name)
        }
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
                guard raw[index - 1].elementsEqual(argument.utf8) else {
                    throw UsageError("argument '\(argument)' is not valid UTF-8: give it as UTF-8 text", command: command)
                }
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            if argument.hasPrefix("--") {
                var name = argument
                var inline: String?
                // Split at the byte: as a Character, '=' followed by a combining mark is not '='.
                if let equals = argument.utf8.firstIndex(of: UInt8(ascii: "=")) {
                    name = String(argument.unicodeScalars[..<equals])
                    inline = String(argument.unicodeScalars[argument.utf8.index(after: equals)...])
                }
                guard let option = optionsByName[name] else {
                    throw UsageError("unknown option '\(name)' for '\(command)'", command: command)
                }
                switch option.arity {
                case .flag:
                    // --help=all, as --max-time=5: the topic given after '='.
                    if option.key == "help", let inline {
                        try store(option, nil, spelled: name)
                        parsed.argumentAfter[option.key] = inline
                        continue
                    }
                    guard inline == nil else { throw UsageError("option '\(name)' takes no value", command: command) }
                    try store(option, nil, spelled: name)
                case .value:
                    if let inline {
                        // The name before '=' is a known option, so ASCII: the raw '=' is at the same byte.
                        try store(option, inline, spelled: name, rawIndex: index - 1, offset: name.utf8.count + 1)
                    } else {
                        guard index < arguments.count else { throw UsageError("option '\(name)' needs a value", command: command) }
                        try store(option, arguments[index], spelled: name, rawIndex: index)
                        index += 1
                    }
                }
                continue
            }
            // Short options, possibly bundled (-sv) or with an attached value (-XPOST). Taken by
            // Unicode scalar: as Characters, a value that starts with a combining mark would merge
            // with the option letter before it.
            var scalars = argument.unicodeScalars.dropFirst()
            while let scalar = scalars.first {
                scalars = scalars.dropFirst()
                let name = "-\(scalar)"
                guard let option = optionsByName[name] else {
                    throw UsageError("unknown option '\(name)' for '\(command)'", command: command)
                }
                if option.arity == .flag {
                    try store(option, nil, spelled: name)
                    continue
                }
                if !scalars.isEmpty {
                    // '-' and the option letters before the value are ASCII, one byte each.
                    let value = String(String.UnicodeScalarView(scalars))
                    try store(option, value, spelled: name, rawIndex: index - 1, offset: argument.utf8.count - value.utf8.count)
                } else {
                    guard index < arguments.count else { throw UsageError("option '\(name)' needs a value", command: command) }
                    try store(option, arguments[index], spelled: name, rawIndex: index)
                    index += 1
                }
                break
            }
        }
        return parsed
    }
}

/// Bad command-line input: exit status 2 with a one-line message.
struct UsageError: Error, CustomStringConvertible {
    let message: String
    let command: String?
    /// 2, or curl's own status where curl refuses the same input the same way before any traffic
    /// and scripts expect it: 23 for `-O` with a URL that names no file.
    let status: Int32

    init(_ message: String, command: String? = nil, status: Int32 = 2) {
        self.message = message
        self.command = command
        self.status = status
    }

    var description: String { message }
}
