/// A small curl-style argument parser: long options (`--name VALUE`, `--name=VALUE`), short
/// options (`-X VALUE`, `-XVALUE`, `-sv`), repeated options and positional arguments.
struct ArgumentParser {
    /// How an option takes its value.
    enum Arity { case flag, value }

    struct Option {
        let names: [String]   // e.g. ["-X", "--request"]
        let arity: Arity
        /// The key results are stored under (the first long name without dashes).
        var key: String { (names.first { $0.hasPrefix("--") } ?? names[0]).trimmingPrefix(while: { $0 == "-" }).description }
    }

    struct Parsed {
        var values: [String: [String]] = [:]
        var flags: Set<String> = []
        var positionals: [String] = []
        /// Options in the order given, for options whose order matters (`--http1.1` vs `--http2`).
        var order: [String] = []

        func value(_ key: String) -> String? { values[key]?.last }
        func all(_ key: String) -> [String] { values[key] ?? [] }
        func has(_ key: String) -> Bool { flags.contains(key) }
    }

    let command: String
    let options: [Option]

    /// - Throws: `UsageError` for an unknown option or a missing value.
    func parse(_ arguments: [String]) throws(UsageError) -> Parsed {
        var parsed = Parsed()
        var index = 0
        var onlyPositionals = false
        func store(_ option: Option, _ value: String?) {
            parsed.order.append(option.key)
            if let value { parsed.values[option.key, default: []].append(value) } else { parsed.flags.insert(option.key) }
        }
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
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
                if let equals = argument.firstIndex(of: "=") {
                    name = String(argument[..<equals])
                    inline = String(argument[argument.index(after: equals)...])
                }
                guard let option = options.first(where: { $0.names.contains(name) }) else {
                    throw UsageError("unknown option '\(name)' for '\(command)'", command: command)
                }
                switch option.arity {
                case .flag:
                    guard inline == nil else { throw UsageError("option '\(name)' takes no value", command: command) }
                    store(option, nil)
                case .value:
                    if let inline {
                        store(option, inline)
                    } else {
                        guard index < arguments.count else { throw UsageError("option '\(name)' needs a value", command: command) }
                        store(option, arguments[index])
                        index += 1
                    }
                }
                continue
            }
            // Short options, possibly bundled (-sv) or with an attached value (-XPOST).
            var characters = Substring(argument.dropFirst())
            while let character = characters.first {
                characters = characters.dropFirst()
                let name = "-\(character)"
                guard let option = options.first(where: { $0.names.contains(name) }) else {
                    throw UsageError("unknown option '\(name)' for '\(command)'", command: command)
                }
                if option.arity == .flag {
                    store(option, nil)
                    continue
                }
                if !characters.isEmpty {
                    store(option, String(characters))
                } else {
                    guard index < arguments.count else { throw UsageError("option '\(name)' needs a value", command: command) }
                    store(option, arguments[index])
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

    init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }

    var description: String { message }
}
