import Foundation
import HTTPDNS
import HTTPDNSCore

extension FetchCommand {
    /// The most bytes of a body read into memory from standard input or a file that is not
    /// regular (a pipe: `@-`, `@/dev/stdin`, `@<(command)`, a FIFO), which has no length before it
    /// is read. A regular file is streamed (`--data-binary @FILE`) or read whole (`-d @FILE`).
    static let pipedBodyLimit = 1 << 30

    /// The body of `-d` / `--data-binary`, as curl builds it; sets the form Content-Type for `-d`
    /// unless `headers` has one.
    ///
    /// One `--data-binary @FILE` naming a regular file streams it from disk; any other file (a
    /// pipe, `/dev/stdin`, a FIFO, which can be read only once) is read whole now, so the body has
    /// a length and goes out with Content-Length.
    /// - Throws: `UsageError` for both options at once, or a file that cannot be read (missing, a
    ///   directory, not readable, a pipe holding more than `pipedBodyLimit`).
    ///
    /// Data given inline is sent as the command line's bytes (`parsed.allBytes`), which need not
    /// be UTF-8, as curl sends it.
    static func requestBody(_ parsed: ArgumentParser.Parsed, headers: inout HTTPHeaders) throws(UsageError) -> HTTPRequestBody? {
        let formPieces = parsed.allBytes("data"), binaryPieces = parsed.allBytes("data-binary")
        if !formPieces.isEmpty, !binaryPieces.isEmpty {
            throw UsageError("use either -d or --data-binary, not both", command: "fetch")
        }
        if !formPieces.isEmpty {
            if !headers.contains(name: "Content-Type") {
                headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            }
            // Repeated, the pieces are joined with '&', as curl does.
            return .data(try joined(formPieces.map { piece throws(UsageError) in try formData(piece) }))
        }
        if binaryPieces.count == 1, let piece = binaryPieces.first, piece.first == UInt8(ascii: "@"), piece != Array("@-".utf8) {
            let path = try path(piece, option: "--data-binary")
            // One regular file alone is streamed from disk.
            let contents = try read(path, option: "--data-binary", streamsRegularFile: true)
            return contents.map(HTTPRequestBody.data) ?? .file(URL(fileURLWithPath: path))
        }
        if binaryPieces.isEmpty { return nil }
        return .data(try joined(binaryPieces.map { piece throws(UsageError) in
            piece.first == UInt8(ascii: "@") ? try contents(of: path(piece, option: "--data-binary"), option: "--data-binary") : Data(piece)
        }))
    }

    /// curl's `-d`: literal bytes, or `@FILE` with carriage returns and newlines removed.
    private static func formData(_ piece: [UInt8]) throws(UsageError) -> Data {
        guard piece.first == UInt8(ascii: "@") else { return Data(piece) }
        return Data(try contents(of: path(piece, option: "-d"), option: "-d").filter { $0 != 0x0A && $0 != 0x0D })
    }

    /// The path of an `@FILE` value. - Throws: `UsageError` when it is not valid UTF-8 (as for
    /// every path option: read as text, it would name another file).
    private static func path(_ piece: [UInt8], option: String) throws(UsageError) -> String {
        guard let path = String(validating: piece.dropFirst(), as: UTF8.self) else {
            throw UsageError("\(option): the file name after '@' is not valid UTF-8: give it as UTF-8 text", command: "fetch")
        }
        return path
    }

    /// The bytes of `path`, or of standard input for "-", as curl's `@-`.
    private static func contents(of path: String, option: String) throws(UsageError) -> Data {
        // Never nil when regular files are read too.
        try read(path, option: option, streamsRegularFile: false) ?? Data()
    }

    /// The bytes of `path` ("-": standard input); nil for a regular file when `streamsRegularFile`
    /// (it exists and is readable).
    private static func read(_ path: String, option: String, streamsRegularFile: Bool) throws(UsageError) -> Data? {
        do {
            if path == "-" { return try FileContents.read(descriptor: 0, limit: pipedBodyLimit) }
            return streamsRegularFile ? try FileContents.readUnlessRegular(path, limit: pipedBodyLimit)
                                      : try FileContents.read(path, limit: pipedBodyLimit)
        } catch {
            let name = path == "-" ? "standard input" : "'\(path)'"
            throw UsageError("\(option): cannot read \(name): \(error.reason)", command: "fetch")
        }
    }

    /// `pieces` joined with '&' (curl's rule for a repeated -d or --data-binary).
    private static func joined(_ pieces: [Data]) -> Data {
        var body = Data()
        for (index, piece) in pieces.enumerated() {
            if index > 0 { body.append(0x26) }
            body.append(piece)
        }
        return body
    }
}
