import Foundation
import HTTPDNS
import HTTPDNSCore

/// `fetch`'s `-b/--cookie` and `-c/--cookie-jar`, read before any traffic.
struct CookieOptions {
    /// Cookies read from `-b FILE`s.
    var loaded: [CookieFileJar.Cookie] = []
    /// `-b 'NAME=VALUE; ...'` strings, sent as given to every URL.
    var literal: [String] = []
    /// `-c FILE`.
    var jarPath: String?
    /// `-c` or `--cookie-jar`, as the command line gave it, for messages.
    var jarSpelling = "-c"
    /// Whether cookies are kept at all: a `-b FILE` or `-c` turns curl's cookie engine on.
    var enabled = false

    /// The most bytes a cookie file may hold.
    static let fileLimit = 16 << 20

    init() {}

    /// - Throws: `UsageError` for a cookie file that cannot be read or is not in curl's format,
    ///   an empty `-c`, or a `-c` file that cannot be written (status 23, as `-o`'s).
    init(_ parsed: ArgumentParser.Parsed) throws(UsageError) {
        for (argument, option) in parsed.allSpelled("cookie") {
            // curl's rule: an argument with '=' is cookie data, anything else a file name.
            if argument.contains("=") {
                literal.append(argument)
                continue
            }
            enabled = true
            // A file that does not exist starts an empty jar, as in curl (`-b new.txt -c new.txt`).
            guard argument != "-" ? FileManager.default.fileExists(atPath: argument) : true else { continue }
            let contents: Data
            do {
                contents = try FileContents.read(pathOrStandardInput: argument, limit: Self.fileLimit)
            } catch {
                throw OptionValue.refusal(error, option: option, command: "fetch")
            }
            guard let text = String(data: contents, encoding: .utf8) else {
                throw UsageError("\(option): '\(argument)' is not a cookie file (not UTF-8 text)", command: "fetch")
            }
            loaded += try CookieFileJar.parse(text, source: "'\(argument)'", option: option)
        }
        if let path = parsed.value("cookie-jar") {
            jarSpelling = parsed.spelling("cookie-jar")
            guard !path.isEmpty else { throw UsageError("\(jarSpelling) needs a file name", command: "fetch") }
            if path != "-" {
                do {
                    try OutputFile.check(path: path)
                } catch {
                    throw OptionValue.refusal(error.fileFailure, option: jarSpelling, command: "fetch", status: HTTPDNSTool.ExitStatus.writeFailed)
                }
            }
            jarPath = path
            enabled = true
        }
    }

    /// The jar the transfers share, or nil when cookies are not kept.
    func makeJar() -> CookieFileJar? {
        enabled ? CookieFileJar(cookies: loaded) : nil
    }

    /// The `Cookie` field value of the `-b NAME=VALUE` strings, or nil.
    var literalHeader: String? {
        let parts = literal.map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}
