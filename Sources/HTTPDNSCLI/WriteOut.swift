import Foundation
import HTTPDNS
import HTTPDNSCore

/// curl's `-w` / `--write-out` format, written to standard output once the transfer is over
/// (also when it failed), as curl 7.88 writes it: `%{variable}` (names in any case), `%%` for
/// '%', `\n`, `\r` and `\t`; any other `%` or `\` sequence, and a `%{` without its `}`, is
/// written as it stands. An unknown variable is warned about on stderr and writes nothing.
struct WriteOut: Equatable {
    /// The format, read into what it writes.
    enum Piece: Equatable {
        case text([UInt8])
        /// A `%{name}`, its name as written.
        case variable(String)
    }

    let pieces: [Piece]

    /// The most bytes an `@FILE` format may hold.
    static let fileLimit = 1 << 20

    /// The format of `-w ARGUMENT`: the argument, or the contents of `@FILE` (`@-`: standard
    /// input) with line ends dropped, as curl reads it (each line up to its first CR or LF).
    /// - Throws: `UsageError` when the file cannot be read (curl writes nothing for it instead).
    /// - Parameter option: `-w` or `--write-out`, as the command line gave it, for messages.
    init(argument: String, option: String = "-w") throws(UsageError) {
        guard argument.hasPrefix("@") else {
            self.init(format: Array(argument.utf8))
            return
        }
        let path = String(argument.dropFirst())
        let contents: Data
        do {
            contents = try FileContents.read(pathOrStandardInput: path, limit: Self.fileLimit)
        } catch {
            throw OptionValue.refusal(error, option: option, command: "fetch")
        }
        var format: [UInt8] = []
        for line in contents.split(separator: 0x0A, omittingEmptySubsequences: false) {
            format += line.prefix { $0 != 0x0D }
        }
        self.init(format: format)
    }

    /// Reads `format` as curl 7.88's `ourWriteOut` does, byte by byte.
    init(format: [UInt8]) {
        var pieces: [Piece] = []
        var text: [UInt8] = []
        var index = 0
        while index < format.count {
            let byte = format[index]
            let next = index + 1 < format.count ? format[index + 1] : nil
            switch (byte, next) {
            case (UInt8(ascii: "%"), UInt8(ascii: "%")?):
                text.append(byte)
                index += 2
            case (UInt8(ascii: "%"), UInt8(ascii: "{")?):
                guard let end = format[(index + 2)...].firstIndex(of: UInt8(ascii: "}")) else {
                    // No '}': "%{" is written as it is, and the rest read on.
                    text += [byte, UInt8(ascii: "{")]
                    index += 2
                    continue
                }
                if !text.isEmpty { pieces.append(.text(text)) }
                text = []
                pieces.append(.variable(String(decoding: format[(index + 2)..<end], as: UTF8.self)))
                index = end + 1
            case (UInt8(ascii: "\\"), let escaped?):
                switch escaped {
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                default: text += [byte, escaped]
                }
                index += 2
            case (UInt8(ascii: "%"), let other?):
                text += [byte, other]
                index += 2
            default:
                text.append(byte)
                index += 1
            }
        }
        if !text.isEmpty { pieces.append(.text(text)) }
        self.pieces = pieces
    }

    /// What the variables stand for, gathered after the transfer.
    struct Values: Sendable {
        /// The final response's status; 0 when none came (written `000`).
        var status = 0
        var version: HTTPVersion?
        var remoteAddress = ""
        var remotePort = 0
        var bodyBytes: Int64 = 0
        /// Every response head's bytes, the redirects' included, as curl counts them.
        var headerBytes = 0
        /// Seconds from the start; each phase summed over the requests of a redirect chain, as
        /// curl sums them.
        var nameLookup: TimeInterval = 0
        var connect: TimeInterval = 0
        var tlsHandshake: TimeInterval = 0
        var firstByte: TimeInterval = 0
        var total: TimeInterval = 0
        var redirects = 0
        var url = ""
        var contentType = ""
        var exitCode: Int32 = 0
        var errorMessage = ""
        var verifyResult = 0
        /// The URL as given, and its place among the command's URLs (curl's `url`, `urlnum`).
        var requested = ""
        var urlNumber = 0

        /// Takes in one response: a followed redirect (`followed`), the one past `--max-redirs`,
        /// or the last.
        mutating func record(_ response: HTTPResponse, followed: Bool) {
            add(response.connection, headerBytes: response.headerBytesReceived)
            take(response.connection)
            if followed { redirects += 1 }
            status = response.status
            version = response.version
            bodyBytes = response.bodyBytesReceived
            url = response.url?.absoluteString ?? url
            contentType = response.headers[first: "Content-Type"] ?? ""
        }

        /// Takes in the failure of the last request. What it does not say stays as curl leaves it
        /// after a failure: no status (000), address or times; the status of a response that
        /// failed with `-f`, or of the redirect past `--max-redirs`.
        mutating func record(_ error: HTTPClientError) {
            add(error.connection, headerBytes: 0)
            take(error.connection)
            if error.status == nil {
                version = nil
                contentType = ""
            }
            // A response that failed with -f still says its version and type (`responseHead`).
            if let head = error.responseHead {
                version = head.version
                contentType = head.headers[first: "Content-Type"] ?? ""
            }
            status = error.status ?? 0
            bodyBytes = 0
            url = error.url?.absoluteString ?? url
        }

        /// Completes the values once the command's outcome is known.
        /// - Parameters:
        ///   - requested: The URL given, for `url_effective` when no request got as far as a URL.
        ///   - status: The exit status.
        ///   - message: The error message, for a non-zero `status`.
        ///   - elapsed: The time since the transfer started (`time_total`).
        mutating func finish(url requested: URL, status: Int32, message: String?, elapsed: Duration) {
            if url.isEmpty { url = requested.absoluteString }
            self.requested = requested.absoluteString
            exitCode = status
            errorMessage = status == 0 ? "" : message ?? ""
            total = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }

        /// Adds one request's phases and head bytes: a followed redirect, or the last request.
        private mutating func add(_ connection: ConnectionReport?, headerBytes: Int) {
            self.headerBytes += headerBytes
            guard let connection, let timing = connection.timing else { return }
            // A phase that did not happen (no TLS for http://) stays 0, as in curl.
            nameLookup += timing.nameLookup
            if timing.connect > 0 { connect += timing.transferStart + timing.connect }
            if timing.tlsHandshake > 0 { tlsHandshake += timing.transferStart + timing.tlsHandshake }
            if timing.firstByte > 0 { firstByte += timing.transferStart + timing.firstByte }
        }

        /// Takes the address, port and certificate verdict of the last request.
        private mutating func take(_ connection: ConnectionReport?) {
            guard let connection else { return }
            remoteAddress = connection.remoteAddress ?? ""
            remotePort = connection.remotePort ?? 0
            verifyResult = connection.certificateVerifyResult
        }

        /// The text of variable `name` (lowercased), formatted as curl formats it; nil for a name
        /// this command does not know.
        func text(of name: String) -> String? {
            switch name {
            case "http_code", "response_code": String(repeating: "0", count: max(0, 3 - String(status).count)) + String(status)
            case "http_version":
                switch version {
                case .http1_0?: "1.0"
                case .http1_1?: "1.1"
                case .http2?: "2"
                case .http3?: "3"
                case .unknown?, nil: "0"
                }
            case "remote_ip": remoteAddress
            case "remote_port": String(remotePort)
            case "size_download": String(bodyBytes)
            case "size_header": String(headerBytes)
            case "time_total": Self.seconds(total)
            case "time_connect": Self.seconds(connect)
            case "time_appconnect": Self.seconds(tlsHandshake)
            case "time_namelookup": Self.seconds(nameLookup)
            case "time_starttransfer": Self.seconds(firstByte)
            case "num_redirects": String(redirects)
            case "url_effective": url
            case "content_type": contentType
            case "exitcode": String(exitCode)
            case "errormsg": errorMessage
            case "ssl_verify_result": String(verifyResult)
            case "url": requested
            case "urlnum": String(urlNumber)
            case "json": json()
            default: nil
            }
        }

        /// Every variable as one JSON object, keys sorted, as curl's `%{json}`: codes, sizes and
        /// times as numbers, an empty content type or error message as null.
        func json() -> String {
            func string(_ text: String) -> String {
                var out = "\""
                for scalar in text.unicodeScalars {
                    switch scalar {
                    case "\"": out += "\\\""
                    case "\\": out += "\\\\"
                    case "\n": out += "\\n"
                    case "\r": out += "\\r"
                    case "\t": out += "\\t"
                    case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
                    default: out.unicodeScalars.append(scalar)
                    }
                }
                return out + "\""
            }
            func nullable(_ text: String) -> String { text.isEmpty ? "null" : string(text) }
            let fields: [(String, String)] = [
                ("content_type", nullable(contentType)),
                ("errormsg", nullable(errorMessage)),
                ("exitcode", String(exitCode)),
                ("http_code", String(status)),
                ("http_version", string(text(of: "http_version") ?? "0")),
                ("num_redirects", String(redirects)),
                ("remote_ip", string(remoteAddress)),
                ("remote_port", String(remotePort)),
                ("response_code", String(status)),
                ("size_download", String(bodyBytes)),
                ("size_header", String(headerBytes)),
                ("ssl_verify_result", String(verifyResult)),
                ("time_appconnect", Self.seconds(tlsHandshake)),
                ("time_connect", Self.seconds(connect)),
                ("time_namelookup", Self.seconds(nameLookup)),
                ("time_starttransfer", Self.seconds(firstByte)),
                ("time_total", Self.seconds(total)),
                ("url", string(requested)),
                ("url_effective", string(url)),
                ("urlnum", String(urlNumber))
            ]
            return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
        }

        /// Seconds with six decimals and a '.' whatever the locale, as curl writes its times
        /// (whole microseconds).
        static func seconds(_ value: TimeInterval) -> String {
            let micros = value.isFinite && value > 0 ? Int64(value * 1_000_000) : 0
            let fraction = String(micros % 1_000_000)
            return "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
        }
    }

    /// The bytes to write for `values`; `warn` gets curl's warning for each unknown variable.
    func render(_ values: Values, warn: (String) -> Void) -> Data {
        var output = Data()
        for piece in pieces {
            switch piece {
            case .text(let bytes):
                output.append(contentsOf: bytes)
            case .variable(let name):
                if let text = values.text(of: name.lowercased()) {
                    output.append(contentsOf: text.utf8)
                } else {
                    warn("unknown --write-out variable: '\(name)'")
                }
            }
        }
        return output
    }
}
