import Foundation
import HTTPDNS
import HTTPDNSCore

#if canImport(Glibc)
    import Glibc
#endif

/// Where a vendor provider's secret (Alibaba signing secret, Tencent DES/AES key or HTTPS token)
/// comes from: `--secret SECRET`, `--secret-file FILE` or the `HTTPDNS_SECRET` variable, in that
/// order. A command line is readable by every local user (`/proc/PID/cmdline`) and kept in shell
/// history; a file or the environment is not. The secret itself never reaches a message.
struct SecretOption: Equatable {
    static let environmentVariable = "HTTPDNS_SECRET"
    /// The largest secret file read, in bytes: a secret is a line, not a document.
    static let fileLimit = 4_096

    /// The secret, without the file's trailing line break.
    var value: String
    /// Where it came from, for messages: `--secret`, `--secret-file PATH` or `HTTPDNS_SECRET`.
    var origin: String
    /// Set when the file can be read by other users: say so, naming the file and its mode.
    var warning: String?

    /// The secret the options or the environment give, or nil when none does.
    /// - Throws: `UsageError` for `--secret` with `--secret-file`, an empty secret, or a file that
    ///   cannot be read, is empty or holds more than one line (the message names the file, never
    ///   what it holds).
    static func read(_ parsed: ArgumentParser.Parsed, environment: Environment, command: String) throws(UsageError) -> SecretOption? {
        let given = parsed.value("secret")
        let path = parsed.value("secret-file")
        if given != nil, path != nil {
            throw UsageError("--secret and --secret-file both give the secret; use one (--secret-file keeps it off the command line)", command: command)
        }
        if let given {
            guard !given.isEmpty else { throw UsageError("--secret is empty", command: command) }
            return SecretOption(value: given, origin: "--secret")
        }
        if let path { return try file(path, command: command) }
        if let value = environment[environmentVariable], !value.isEmpty {
            return SecretOption(value: value, origin: environmentVariable)
        }
        return nil
    }

    /// The secret in the file at `path` (`-`: standard input, as curl's `@-`): its one line, a
    /// final LF or CRLF dropped.
    static func file(_ path: String, command: String) throws(UsageError) -> SecretOption {
        guard !path.isEmpty else { throw UsageError("--secret-file needs a path", command: command) }
        let origin = "--secret-file \(path)"
        let data: Data
        do {
            data = try FileContents.read(pathOrStandardInput: path, limit: fileLimit)
        } catch {
            throw OptionValue.refusal(error, option: "--secret-file", command: command)
        }
        guard data.count <= fileLimit else { throw UsageError("\(origin): holds more than \(fileLimit) bytes; it should hold the secret alone", command: command) }
        guard var text = String(data: data, encoding: .utf8) else { throw UsageError("\(origin): is not UTF-8 text", command: command) }
        if text.hasSuffix("\n") || text.hasSuffix("\r\n") { text.removeLast() } // CRLF is one Character
        if text.hasSuffix("\r") { text.removeLast() }
        guard !text.isEmpty else { throw UsageError("\(origin): is empty", command: command) }
        guard !text.contains(where: \.isNewline) else {
            throw UsageError("\(origin): holds more than one line; it should hold the secret alone", command: command)
        }
        return SecretOption(value: text, origin: origin, warning: path == "-" ? nil : permissionWarning(path))
    }

    /// A warning when the file's mode lets its group or other users read it, as ssh warns of a key.
    static func permissionWarning(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let mode = info.st_mode & 0o777
        guard mode & 0o044 != 0 else { return nil }
        return "--secret-file \(path) can be read by other users (mode 0\(String(mode, radix: 8))); make it private: chmod 600 \(path)"
    }
}
