import Foundation
import HTTPDNS
import HTTPDNSCore

/// `fetch -b FILE` / `-c FILE`: cookies kept in curl's Netscape cookie-file format, matched to the
/// URL's host name (RFC 6265 §5.1.3 domain matching, §5.1.4 path matching), never to the address
/// the request connected to.
final class CookieFileJar: HTTPCookieJar, @unchecked Sendable { // `cookies` is guarded by `lock`
    /// One cookie, as a line of the cookie file holds it.
    struct Cookie: Equatable {
        /// The host name, lowercased, without a leading dot.
        var domain: String
        /// Whether hosts under `domain` get it too (a `Domain` attribute; a leading dot in the file).
        var includesSubdomains: Bool
        var path: String
        var secure: Bool
        var httpOnly: Bool
        /// Seconds since 1970; nil: a session cookie (0 in the file).
        var expires: Int64?
        var name: String
        var value: String
    }

    /// The first line of every cookie file curl writes.
    static let header = "# Netscape HTTP Cookie File"

    private let lock = NSLock()
    private var cookies: [Cookie]
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - cookies: The cookies to start with (`-b FILE`'s).
    ///   - now: The wall clock expiry is measured on.
    init(cookies: [Cookie] = [], now: @escaping @Sendable () -> Date = Date.init) {
        self.cookies = cookies
        self.now = now
    }

    /// The cookies held now, expired ones left out.
    var current: [Cookie] {
        let time = Int64(now().timeIntervalSince1970)
        return lock.withLock { cookies.filter { $0.expires.map { $0 > time } ?? true } }
    }

    // MARK: Reading and writing the file

    /// Reads a cookie file as curl writes it: TAB-separated lines of domain, subdomains flag,
    /// path, secure flag, expiry, name and value; `#HttpOnly_` before the domain marks an HttpOnly
    /// cookie; other lines starting with `#`, and empty lines, are comments.
    /// - Throws: `UsageError` naming the line that is not a cookie (curl skips such lines; a file
    ///   that is partly read would silently lose cookies when `-c` writes it back).
    /// - Parameter option: `-b` or `--cookie`, as the command line gave it, for messages.
    static func parse(_ text: String, source: String, option: String = "-b") throws(UsageError) -> [Cookie] {
        var result: [Cookie] = []
        for (index, rawLine) in text.textLines.enumerated() {
            var line = Substring(rawLine)
            if line.hasSuffix("\r") { line = line.dropLast() }
            var httpOnly = false
            if line.hasPrefix("#HttpOnly_") {
                httpOnly = true
                line = line.dropFirst("#HttpOnly_".count)
            } else if line.hasPrefix("#") || line.allSatisfy({ $0 == " " || $0 == "\t" }) {
                continue
            }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            // A cookie with an empty value has six fields when an editor dropped the trailing tab.
            guard fields.count == 7 || fields.count == 6 else {
                throw UsageError("\(option): \(source) line \(index + 1) is not a cookie (expected 7 TAB-separated fields: domain, subdomains, path, secure, expiry, name, value)", command: "fetch")
            }
            func flag(_ field: Substring, _ what: String) throws(UsageError) -> Bool {
                switch field.uppercased() {
                case "TRUE": return true
                case "FALSE": return false
                default: throw UsageError("\(option): \(source) line \(index + 1): the \(what) field must be TRUE or FALSE, not '\(field)'", command: "fetch")
                }
            }
            var domain = fields[0].lowercased()
            if domain.hasPrefix(".") { domain.removeFirst() }
            guard !domain.isEmpty else {
                throw UsageError("\(option): \(source) line \(index + 1) has no domain", command: "fetch")
            }
            let subdomains = try flag(fields[1], "subdomains")
            let secure = try flag(fields[3], "secure")
            guard let expires = Int64(fields[4]) else {
                throw UsageError("\(option): \(source) line \(index + 1): the expiry must be seconds since 1970, not '\(fields[4])'", command: "fetch")
            }
            result.append(
                Cookie(
                    domain: domain, includesSubdomains: subdomains || fields[0].hasPrefix("."),
                    path: fields[2].isEmpty ? "/" : String(fields[2]), secure: secure, httpOnly: httpOnly,
                    expires: expires == 0 ? nil : expires, name: String(fields[5]),
                    value: fields.count == 7 ? String(fields[6]) : ""))
        }
        return result
    }

    /// The cookie file's text, as curl writes it (its header comment, then one line per cookie).
    func fileText() -> String {
        var text = Self.header + "\n# https://curl.se/docs/http-cookies.html\n# This file was generated by httpdns. Edit at your own risk.\n\n"
        for cookie in current {
            let domain = (cookie.includesSubdomains ? "." : "") + cookie.domain
            text +=
                [
                    (cookie.httpOnly ? "#HttpOnly_" : "") + domain, cookie.includesSubdomains ? "TRUE" : "FALSE", cookie.path,
                    cookie.secure ? "TRUE" : "FALSE", String(cookie.expires ?? 0), cookie.name, cookie.value
                ].joined(separator: "\t") + "\n"
        }
        return text
    }

    // MARK: HTTPCookieJar

    func cookieHeader(for url: URL) -> String? {
        guard let host = Self.host(of: url) else { return nil }
        let path = url.path.isEmpty ? "/" : url.path
        let https = url.scheme?.lowercased() == "https"
        // Longer paths first (RFC 6265 §5.4).
        let matching =
            current
            .filter { Self.domainMatches(host, $0) && Self.pathMatches(path, $0.path) && (https || !$0.secure) }
            .sorted { $0.path.count > $1.path.count }
        guard !matching.isEmpty else { return nil }
        return matching.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    func storeCookies(_ setCookieValues: [String], from url: URL) {
        guard let host = Self.host(of: url) else { return }
        let time = Int64(now().timeIntervalSince1970)
        for text in setCookieValues {
            guard var cookie = Self.cookie(parsing: text, host: host, url: url, now: time) else { continue }
            let expired = cookie.expires.map { $0 <= time } ?? false
            if expired { cookie.value = "" }
            lock.withLock {
                cookies.removeAll { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
                if !expired { cookies.append(cookie) }
            }
        }
    }

    // MARK: Rules

    /// The name cookies are bound to: the URL's host, normalized (A-labels, lowercase).
    private static func host(of url: URL) -> String? {
        guard let host = url.host(percentEncoded: false) else { return nil }
        return HostName.normalize(host) ?? host.lowercased()
    }

    /// One `Set-Cookie` value (RFC 6265 §5.2), or nil when it is refused: no name, or a `Domain`
    /// the host is not in (§5.3 step 6).
    static func cookie(parsing text: String, host: String, url: URL, now: Int64) -> Cookie? {
        let parts = text.split(separator: ";", omittingEmptySubsequences: false)
        guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { return nil }
        let name = pair[..<equals].trimmingWhitespace()
        guard !name.isEmpty else { return nil }
        var cookie = Cookie(
            domain: host, includesSubdomains: false, path: defaultPath(url), secure: false, httpOnly: false,
            expires: nil, name: name, value: pair[pair.index(after: equals)...].trimmingWhitespace())
        var maxAge: Int64?
        for attribute in parts.dropFirst() {
            let pieces = attribute.split(separator: "=", maxSplits: 1).map { $0.trimmingWhitespace() }
            guard let key = pieces.first?.lowercased() else { continue }
            let value = pieces.count > 1 ? pieces[1] : ""
            switch key {
            case "domain":
                var domain = value.lowercased()
                if domain.hasPrefix(".") { domain.removeFirst() }
                guard !domain.isEmpty else { continue }
                guard host == domain || (host.hasSuffix("." + domain) && IPAddress(host) == nil) else { return nil }
                cookie.domain = domain
                cookie.includesSubdomains = true
            case "path":
                if value.hasPrefix("/") { cookie.path = value }
            case "secure":
                cookie.secure = true
            case "httponly":
                cookie.httpOnly = true
            case "max-age":
                if let seconds = Int64(value) { maxAge = seconds }
            case "expires":
                if let date = httpDate(value) { cookie.expires = Int64(date.timeIntervalSince1970) }
            default:
                continue
            }
        }
        // Max-Age wins over Expires (§5.3 step 3).
        if let maxAge { cookie.expires = maxAge <= 0 ? 0 : now + maxAge }
        return cookie
    }

    /// §5.1.4: the request path up to its last '/', or "/".
    private static func defaultPath(_ url: URL) -> String {
        let path = url.path
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    private static func domainMatches(_ host: String, _ cookie: Cookie) -> Bool {
        host == cookie.domain || (cookie.includesSubdomains && host.hasSuffix("." + cookie.domain) && IPAddress(host) == nil)
    }

    private static func pathMatches(_ path: String, _ cookiePath: String) -> Bool {
        guard path.hasPrefix(cookiePath) else { return false }
        return path.count == cookiePath.count || cookiePath.hasSuffix("/") || path.dropFirst(cookiePath.count).hasPrefix("/")
    }

    /// An `Expires` date in the forms servers send (RFC 1123, RFC 850, asctime).
    private static func httpDate(_ text: String) -> Date? {
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE, dd-MMM-yyyy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}

extension CookieFileJar {
    /// Writes the jar to `path` (`-c`): a temporary file beside it, renamed onto it once whole, so
    /// a reader, or a failure, never leaves a half-written jar. `-` writes to standard output.
    /// - Returns: nil on success, else why it failed.
    func write(to path: String, console: Console) -> FileFailure? {
        let bytes = Data(fileText().utf8)
        if path == "-" {
            console.output(bytes)
            return nil
        }
        guard let replacement = FileReplacement(replacing: path) else {
            return FileFailure(.write, path, errno: errno)
        }
        let failure = bytes.withUnsafeBytes { writeFully($0, to: replacement.fd) }
        close(replacement.fd)
        if let failure {
            replacement.discard()
            return FileFailure(.write, path, reason: failure)
        }
        if let failure = replacement.commit() {
            return FileFailure(.write, path, reason: failure)
        }
        return nil
    }
}
