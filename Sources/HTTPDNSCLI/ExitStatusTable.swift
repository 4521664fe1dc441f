import Foundation
import HTTPDNS

/// Every command's exit statuses, written once: each command's EXIT STATUS section (its man page and
/// `httpdns help COMMAND`) and the table in Documentation/CLI.md are made from it (a test holds that
/// file to it). The numbers are the library's (`HTTPClientError.exitStatus(for:)`), curl's where curl
/// has the same failure.
enum ExitStatusTable {
    /// What a status means for some commands.
    struct Entry {
        let status: String
        let meaning: String
        let commands: [String]
    }

    private static let all = ["resolve", "fetch", "probe", "pins"]
    private typealias Status = HTTPDNSTool.ExitStatus

    /// In status order; a status may mean different things to different commands.
    static let entries: [Entry] = [
        Entry(status: "\(Status.success)", meaning: "success", commands: all),
        Entry(status: "1", meaning: "an address is unhealthy (a trust failure included)", commands: ["probe"]),
        Entry(status: "1", meaning: "with --compare: a name disagrees", commands: ["resolve"]),
        Entry(
            status: "\(Status.usage)",
            meaning:
                "usage error or bad input, found before any traffic: an unknown option, a malformed URL, a file or value an option names that cannot be used (not --cache-file: an unusable cache file is a warning, and lookups go on without it)",
            commands: all),
        Entry(status: "\(Status.couldNotResolve)", meaning: "could not resolve host (with --dnssec require: its answer failed DNSSEC validation)", commands: ["fetch", "probe", "pins"]),
        Entry(
            status: "\(Status.couldNotResolve)",
            meaning: "a name could not be resolved (with --dnssec require: its answer failed DNSSEC validation); with --compare: one side failed for a name, and none disagreed",
            commands: ["resolve"]),
        Entry(status: "\(Status.couldNotConnect)", meaning: "could not connect", commands: ["fetch", "pins"]),
        // libcurl's own codes, which the library keeps for transfers that fail (FailureTable).
        Entry(status: "8", meaning: "a response that cannot be framed (conflicting Content-Length)", commands: ["fetch"]),
        Entry(status: "18", meaning: "the connection closed before the whole body came (no -o file is left)", commands: ["fetch"]),
        Entry(status: "\(Status.httpError)", meaning: "HTTP status 400 or more, with -f", commands: ["fetch"]),
        Entry(
            status: "\(Status.writeFailed)",
            meaning: "writing the output or the -c cookie jar failed (an -o or -O file that is a directory included); -O with a URL that names no file",
            commands: ["fetch"]),
        Entry(status: "\(Status.writeFailed)", meaning: "writing the output failed (standard output full or closed)", commands: ["resolve", "probe", "pins"]),
        Entry(status: "\(Status.timedOut)", meaning: "a time limit passed (-m, --connect-timeout), resolving the name included", commands: ["fetch"]),
        Entry(status: "\(Status.timedOut)", meaning: "-m passed", commands: ["resolve"]),
        Entry(status: "\(Status.timedOut)", meaning: "-m passed while resolving the name", commands: ["probe"]),
        Entry(status: "\(Status.timedOut)", meaning: "--connect-timeout passed, resolving the name included", commands: ["pins"]),
        Entry(status: "\(Status.tlsHandshakeFailed)", meaning: "TLS handshake failed", commands: ["fetch", "pins"]),
        Entry(status: "\(Status.tooManyRedirects)", meaning: "too many redirects (-L, --max-redirs)", commands: ["fetch"]),
        Entry(status: "52", meaning: "the server sent nothing (a non-idempotent request is never sent twice)", commands: ["fetch"]),
        Entry(status: "56", meaning: "connection broken while receiving", commands: ["fetch"]),
        Entry(
            status: "\(Status.clientCertificateProblem)", meaning: "the client certificate was rejected by the server or refused by TLS in the handshake",
            commands: ["fetch"]),
        Entry(status: "\(Status.certificateVerificationFailed)", meaning: "certificate verification failed", commands: ["fetch", "pins"]),
        Entry(status: "\(Status.pinMismatch)", meaning: "pin mismatch", commands: ["fetch"]),
        Entry(status: "\(HTTPClientError.exitStatus(for: .certificateStatusInvalid))", meaning: "no valid OCSP staple with --cert-status", commands: ["fetch"]),
        Entry(status: "\(128 + SIGINT), \(128 + SIGTERM)", meaning: "interrupted by SIGINT, SIGTERM (no partial output file is left)", commands: ["fetch"])
    ]

    /// `command`'s statuses, for its EXIT STATUS section.
    static func entries(for command: String) -> [(status: String, meaning: String)] {
        entries.filter { $0.commands.contains(command) }.map { ($0.status, $0.meaning) }
    }

    /// The table of Documentation/CLI.md: one row per entry, its commands beside it, options in code.
    static func markdown() -> String {
        var lines = ["| status | meaning | commands |", "| --- | --- | --- |"]
        for entry in entries {
            let meaning = CommandReference.code(entry.meaning)
            let commands = entry.commands == all ? "all" : entry.commands.joined(separator: ", ")
            lines.append("| \(entry.status) | \(meaning) | \(commands) |")
        }
        return lines.joined(separator: "\n")
    }
}
