import Foundation
import HTTPDNS
import HTTPDNSCore

/// `fetch -v`'s request and response head lines, as curl prints them: `> ` before each line of a
/// request head libcurl sent, `< ` before each line of a response head it received (every 1xx and
/// redirect response included), the empty line that ends a head as `> ` or `< ` alone. Collected
/// from `HTTPRequest.headTrace` on the transfer thread and printed with the response's `*` lines,
/// after where the request went and before its body, in the order they crossed the wire.
final class HeadTraceLines: Sendable {
    private let pending = LockedValue<[String]>([])

    /// The handler for `HTTPRequest.headTrace`.
    var handler: @Sendable (HTTPHeadTrace) -> Void {
        { [self] event in
            switch event {
            case .sent(let bytes): add(Self.lines(bytes, prefix: ">").map(Self.redacted))
            case .received(let bytes): received(Self.lines(bytes, prefix: "<"))
            }
        }
    }

    private func add(_ lines: [String]) { pending.withLock { $0 += lines } }

    /// libcurl 7.88 reports a response head's lines but not the empty line that ends it (it hands
    /// that to the header callback only; Documentation/LibcurlNotes.md #14), so the empty line is written here: before the next head's
    /// status line (after a 1xx) and at `take()`. One it does report is dropped, so that a libcurl
    /// that reports it prints it once.
    private func received(_ lines: [String]) {
        pending.withLock { pending in
            for line in lines where line != Self.endOfResponseHead {
                if line.hasPrefix("< HTTP/") { Self.endResponseHead(&pending) }
                pending.append(line)
            }
        }
    }

    private static let endOfResponseHead = "< "

    private static func endResponseHead(_ lines: inout [String]) {
        if let last = lines.last, last.hasPrefix("<"), last != endOfResponseHead { lines.append(endOfResponseHead) }
    }

    /// The lines collected since the last call, the last response head ended, and none kept.
    func take() -> [String] {
        pending.withLock { lines in
            Self.endResponseHead(&lines)
            defer { lines = [] }
            return lines
        }
    }

    /// `line` with the credentials of a Basic `Authorization` or `Proxy-Authorization` field (the
    /// password, base64-coded) shown as `Basic ***`, as a URL's password is (`URL.redactedString`):
    /// `-v` output ends up in logs and bug reports. Any other value is shown as sent, as curl shows it.
    static func redacted(_ line: String) -> String {
        guard let colon = line.firstIndex(of: ":") else { return line }
        let name = line[line.index(line.startIndex, offsetBy: 2)..<colon].lowercased()
        guard name == "authorization" || name == "proxy-authorization" else { return line }
        let value = line[line.index(after: colon)...].trimmingWhitespace()
        guard value.lowercased().hasPrefix("basic ") else { return line }
        return "\(line[..<colon]): \(value.prefix(5)) ***"
    }

    /// `bytes`' lines (CRLF or LF ended; a last line without one is still a line), each after
    /// `prefix` and a space, read as UTF-8 or else Latin-1 (`HTTPResponseHead.fieldText`). Trailing white space is dropped (libcurl renders HTTP/2's status as
    /// `HTTP/2 200 `), and control characters but tab are shown as `?`: a server's bytes must not
    /// drive the terminal.
    static func lines(_ bytes: Data, prefix: String) -> [String] {
        var pieces = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        if pieces.last?.isEmpty == true { pieces.removeLast() }
        return pieces.map { piece in
            // As the response head reads them: UTF-8, or else Latin-1, never U+FFFD.
            var text = Data(piece).withUnsafeBytes { HTTPResponseHead.fieldText(decoding: $0) }
            while let last = text.unicodeScalars.last, last == "\r" || last == " " || last == "\t" { text.unicodeScalars.removeLast() }
            let shown = String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F ? "?" : $0 }))
            return "\(prefix) \(shown)"
        }
    }
}
