import Foundation
import HTTPDNS

/// The `httpdns` command: `resolve`, `fetch`, `help`.
public enum HTTPDNSTool {
    /// Exit statuses, following curl's where the same failure exists (curl(1) "EXIT CODES"), from
    /// the library's one table (`HTTPClientError.exitStatus(for:curlCode:)`).
    public enum ExitStatus {
        public static let success: Int32 = 0
        /// Usage error or bad input found before any traffic (a malformed URL, `--resolve`, PEM
        /// file, unknown option, a client identity that cannot be loaded).
        public static let usage = HTTPClientError.exitStatus(for: .invalidRequest)
        public static let couldNotResolve = HTTPClientError.exitStatus(for: .couldNotResolve)
        public static let couldNotConnect = HTTPClientError.exitStatus(for: .couldNotConnect)
        public static let httpError = HTTPClientError.exitStatus(for: .httpError)
        /// Writing the output failed (CURLE_WRITE_ERROR).
        public static let writeFailed = HTTPClientError.exitStatus(for: .outputFailed)
        public static let timedOut = HTTPClientError.exitStatus(for: .timedOut)
        public static let tlsHandshakeFailed = HTTPClientError.exitStatus(for: .tlsHandshakeFailed)
        public static let tooManyRedirects = HTTPClientError.exitStatus(for: .tooManyRedirects)
        public static let certificateVerificationFailed = HTTPClientError.exitStatus(for: .certificateVerificationFailed)
        /// The server rejected the client certificate, or TLS refused it during the handshake
        /// (CURLE_SSL_CERTPROBLEM). One that cannot be loaded is bad input (`usage`), found
        /// before any traffic.
        public static let clientCertificateProblem = HTTPClientError.exitStatus(for: .clientCertificateRejected)
        /// No certificate of the verified chain matched a pin (CURLE_SSL_PINNEDPUBKEYNOTMATCH).
        public static let pinMismatch = HTTPClientError.exitStatus(for: .pinMismatch)
    }

    /// What `--version` prints, and the man pages' footer.
    static let version = "1.0"

    /// The commands, in the order help lists them.
    static let commands: [CommandReference] = [ResolveCommand.reference, FetchCommand.reference, ProbeCommand.reference, PinsCommand.reference]

    /// `httpdns(1)`: the tool itself and its own options.
    static let reference = CommandReference(
        name: "",
        synopsis: "COMMAND [options] | --version | --generate-KIND ARG",
        summary: "HTTPS straight to the address DNS-over-HTTPS gives, verified for the name.",
        description: """
            Names are resolved over DNS-over-HTTPS (RFC 8484) or a vendor HTTPDNS API instead of the
            network's resolver, and the request goes straight to the resolved address, while SNI, Host and
            certificate verification keep using the host name.

            Commands: resolve HOST... (resolve names, one line per address), fetch URL... (send requests,
            curl-like options), probe URL (check every address of URL's host: connect, TLS, certificate,
            status), pins URL (print the verified certificate chain with pins ready to paste), help
            [COMMAND] (a command's options, explained). Each command's options are in its own page:
            httpdns-resolve(1), httpdns-fetch(1), httpdns-probe(1), httpdns-pins(1).

            Environment: HTTPDNS_DOH_URL (comma-separated DoH endpoints, when no --doh-url is given);
            HTTPDNS_SECRET (the secret of an httpdns-* provider, when neither --secret nor --secret-file
            is given); https_proxy, http_proxy, all_proxy and no_proxy for fetch, as curl reads them; TMPDIR for
            fetch -o's temporary files.
            """,
        sections: [
            .init(
                title: "Options",
                options: [
                    .init(names: ["--version"], arity: .flag, summary: "Print the version"),
                    .init(
                        names: ["--generate-man"], arity: .value, valueName: "DIR",
                        summary: "Write the man pages into DIR",
                        detail: "Write the man pages (httpdns.1, httpdns-fetch.1, ...) into DIR, created when missing."),
                    .init(
                        names: ["--generate-markdown"], arity: .value, valueName: "DIR",
                        summary: "Write the man pages as Markdown into DIR",
                        detail: "Write the man pages as Markdown (httpdns.md, httpdns-fetch.md, ...) into DIR, created when missing."),
                    .init(
                        names: ["--generate-completion"], arity: .value, valueName: "bash|zsh",
                        summary: "Print the bash or zsh completion script", values: ["bash", "zsh"]),
                    .init(names: ["-h", "--help"], arity: .flag, summary: "This help")
                ])
        ],
        mostUsed: ["--version", "--generate-man", "--generate-markdown", "--generate-completion", "-h"],
        exitStatus: [
            ("0", "success; else the command's own status (its page lists them)"), ("2", "an unknown command or option"),
            ("\(ExitStatus.writeFailed)", "writing the output or the pages (--generate-man, --generate-markdown) failed")
        ])

    static var usage: String {
        var lines = ["Usage: httpdns \(reference.synopsis)", "", reference.summary, "", "Commands:"]
        let commandRows = commands.map { ($0.name + " " + $0.synopsis.replacingOccurrences(of: "[options] ", with: ""), $0.summary) }
        lines += CommandReference.columns(commandRows + [("help [COMMAND]", "Explain a command's options (its man page, as text).")])
        lines += ["", "Options:"]
        lines += CommandReference.columns(reference.options.map { (CommandReference.label($0), $0.summary) })
        lines += ["", "Run 'httpdns <command> --help' for a command's most used options,", "'httpdns help <command>' for all of them, explained."]
        return lines.joined(separator: "\n")
    }

    /// Runs one command line (without the program name) and returns the exit status.
    public static func run(_ arguments: [String], console: Console = .standard, environment: [String: String]) async -> Int32 {
        await run(arguments, console: console, environment: Environment(environment))
    }

    /// Runs one command line (without the program name) with `environment`'s variables (by default
    /// the process's) and returns the exit status.
    public static func run(_ arguments: [String], console: Console = .standard, environment: Environment = .process) async -> Int32 {
        await run(arguments, raw: arguments.map { Array($0.utf8) }, console: console, environment: environment)
    }

    /// Runs one command line given as its bytes (`argv` without the program name), which need not
    /// be UTF-8: request bodies given inline (`--data-binary`, `-d`) are sent byte for byte, as
    /// curl sends them; any other value or argument that is not valid UTF-8 is refused (exit 2),
    /// where reading it as text would change it.
    public static func run(rawArguments: [[UInt8]], console: Console = .standard, environment: Environment = .process) async -> Int32 {
        let arguments = rawArguments.map { String(decoding: $0, as: UTF8.self) }
        return await run(arguments, raw: rawArguments, console: console, environment: environment)
    }

    private static func run(_ arguments: [String], raw: [[UInt8]], console: Console, environment: Environment) async -> Int32 {
        guard let command = arguments.first else {
            console.note(usage)
            return ExitStatus.usage
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "resolve":
            return await ResolveCommand.run(rest, raw: Array(raw.dropFirst()), console: console, environment: environment)
        case "fetch":
            return await FetchCommand.run(rest, raw: Array(raw.dropFirst()), console: console, environment: environment)
        case "probe":
            return await ProbeCommand.run(rest, raw: Array(raw.dropFirst()), console: console, environment: environment)
        case "pins":
            return await PinsCommand.run(rest, raw: Array(raw.dropFirst()), console: console, environment: environment)
        case "help", "--help", "-h":
            guard rest.count <= 1 else {
                console.note("httpdns: \(command) takes at most one command name, got '\(rest.joined(separator: " "))'; run 'httpdns --help'")
                return ExitStatus.usage
            }
            switch rest.first {
            case nil, "help":
                // help help: httpdns(1), which explains help itself.
                console.print(command == "help" || rest.first == "help" ? reference.detailedHelp() : usage)
            case let name? where commands.contains { $0.name == name }:
                let page = commands.first { $0.name == name }!
                console.print(command == "help" ? page.detailedHelp() : page.shortHelp())
            case let other?:
                console.note("httpdns: no help for unknown command '\(other)'; run 'httpdns --help'")
                return ExitStatus.usage
            }
            return ExitStatus.success
        case "--generate-man", "--generate-markdown":
            guard rest.count == 1, let directory = rest.first, !directory.isEmpty else {
                console.note("httpdns: \(command) needs one directory")
                return ExitStatus.usage
            }
            return generatePages(in: directory, markdown: command == "--generate-markdown", console: console)
        case "--generate-completion":
            guard rest.count == 1, let shell = rest.first, let script = ShellCompletion.script(for: shell) else {
                console.note("httpdns: --generate-completion needs bash or zsh")
                return ExitStatus.usage
            }
            console.print(script)
            return ExitStatus.success
        case "--version":
            guard rest.isEmpty else {
                console.note("httpdns: --version takes no argument, got '\(rest.joined(separator: " "))'")
                return ExitStatus.usage
            }
            console.print("httpdns \(version)")
            return ExitStatus.success
        default:
            let what = command.hasPrefix("-") ? "option" : "command"
            console.note("httpdns: unknown \(what) '\(command)'; run 'httpdns --help'")
            return ExitStatus.usage
        }
    }

    /// Prints a usage error the same way for every command.
    static func report(_ error: UsageError, console: Console) -> Int32 {
        let hint = error.command.map { " (see 'httpdns help \($0)')" } ?? ""
        console.note("httpdns: \(error.message)\(hint)")
        return error.status
    }
}
