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

    static let usage = """
    Usage: httpdns <command> [options]

    HTTPS requests that resolve names over DNS-over-HTTPS (RFC 8484) and connect straight to the
    resolved address, with SNI, Host and certificate verification on the name.

    Commands:
      resolve HOST...   resolve names, one line per address:
                          HOST ADDRESS ttl=SECONDS source=doh|cache|system|static|literal
      fetch URL         send a request, body to stdout or -o FILE (curl-like options)
      probe URL         check every address of URL's host: connect, TLS, certificate, status
      pins URL          print the certificate chain URL presents, with pins ready to paste
      help [COMMAND]    show help
      --version         show the version

    Run 'httpdns <command> --help' for a command's options.
    """

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
            switch rest.first {
            case "resolve": console.print(ResolveCommand.help)
            case "fetch": console.print(FetchCommand.help)
            case "probe": console.print(ProbeCommand.help)
            case "pins": console.print(PinsCommand.help)
            case nil: console.print(usage)
            case let other?:
                console.note("httpdns: no help for unknown command '\(other)'; run 'httpdns --help'")
                return ExitStatus.usage
            }
            return ExitStatus.success
        case "--version":
            console.print("httpdns 1.0")
            return ExitStatus.success
        default:
            console.note("httpdns: unknown command '\(command)'; run 'httpdns --help'")
            return ExitStatus.usage
        }
    }

    /// Prints a usage error the same way for every command.
    static func report(_ error: UsageError, console: Console) -> Int32 {
        let hint = error.command.map { " (see 'httpdns \($0) --help')" } ?? ""
        console.note("httpdns: \(error.message)\(hint)")
        return error.status
    }
}
