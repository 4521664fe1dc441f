import Foundation
import HTTPDNS
import HTTPDNSCore

extension FetchCommand {
    /// The most bytes of a body read into memory from standard input or a file that is not
    /// regular (a pipe: `@-`, `@/dev/stdin`, `@<(command)`, a FIFO), which has no length before it
    /// is read. A regular file is streamed (`--data-binary @FILE`) or read whole (`-d @FILE`).
    static let pipedBodyLimit = 1 << 30

    /// The body of `-d` / `--data-binary`, as curl builds it: every piece of either option, in
    /// command-line order, joined with '&'. As curl, either option sends the form Content-Type
    /// (application/x-www-form-urlencoded) unless `headers` has one or `omitted` leaves it out
    /// (`-H 'Content-Type:'`).
    ///
    /// One `--data-binary @FILE` alone, naming a regular file, streams it from disk; any other file
    /// (a pipe, `/dev/stdin`, a FIFO, which can be read only once) is read whole now, so the body
    /// has a length and goes out with Content-Length.
    /// - Throws: `UsageError` for a file that cannot be read (missing, a directory, not readable, a
    ///   pipe holding more than `pipedBodyLimit`).
    ///
    /// Data given inline is sent as the command line's bytes (`parsed.allBytes`), which need not
    /// be UTF-8, as curl sends it.
    static func requestBody(_ parsed: ArgumentParser.Parsed, headers: inout HTTPHeaders, omitted: Set<String>) throws(UsageError) -> HTTPRequestBody? {
        let form = Array(zip(parsed.allBytes("data"), parsed.spellings["data"] ?? []))
        let binary = Array(zip(parsed.allBytes("data-binary"), parsed.spellings["data-binary"] ?? []))
        // The pieces in the order given: `order` lists every option, each key's values are in order.
        var pieces: [Piece] = []
        var next = (form: 0, binary: 0)
        for key in parsed.order {
            if key == "data", next.form < form.count {
                pieces.append(Piece(binary: false, bytes: form[next.form].0, option: form[next.form].1))
                next.form += 1
            } else if key == "data-binary", next.binary < binary.count {
                pieces.append(Piece(binary: true, bytes: binary[next.binary].0, option: binary[next.binary].1))
                next.binary += 1
            }
        }
        guard !pieces.isEmpty else { return nil }
        if !headers.contains(name: "Content-Type"), !omitted.contains(where: { $0.lowercased() == "content-type" }) {
            headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        }
        if pieces.count == 1, pieces[0].binary, pieces[0].bytes.first == UInt8(ascii: "@"), pieces[0].bytes != Array("@-".utf8) {
            let path = try path(pieces[0].bytes, option: pieces[0].option)
            // One regular file alone is streamed from disk.
            let contents = try read(path, option: pieces[0].option, streamsRegularFile: true)
            return contents.map(HTTPRequestBody.data) ?? .file(URL(fileURLWithPath: path))
        }
        return .data(
            try joined(
                pieces.map { piece throws(UsageError) in
                    piece.binary ? try binaryData(piece) : try formData(piece)
                }))
    }

    /// One `-d` or `--data-binary` value.
    private struct Piece {
        let binary: Bool
        let bytes: [UInt8]
        /// The option as given (`-d`, `--data`, `--data-binary`), for messages.
        let option: String
    }

    /// curl's `--data-binary`: literal bytes, or `@FILE`'s bytes as they are.
    private static func binaryData(_ piece: Piece) throws(UsageError) -> Data {
        guard piece.bytes.first == UInt8(ascii: "@") else { return Data(piece.bytes) }
        return try contents(of: path(piece.bytes, option: piece.option), option: piece.option)
    }

    /// curl's `-d`: literal bytes, or `@FILE` with carriage returns and newlines removed.
    private static func formData(_ piece: Piece) throws(UsageError) -> Data {
        guard piece.bytes.first == UInt8(ascii: "@") else { return Data(piece.bytes) }
        return Data(try contents(of: path(piece.bytes, option: piece.option), option: piece.option).filter { $0 != 0x0A && $0 != 0x0D })
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
            return streamsRegularFile
                ? try FileContents.readUnlessRegular(path, limit: pipedBodyLimit)
                : try FileContents.read(path, limit: pipedBodyLimit)
        } catch {
            throw OptionValue.refusal(error, option: option, command: "fetch")
        }
    }

    /// `pieces` joined with '&' (curl's rule for repeated -d and --data-binary options).
    private static func joined(_ pieces: [Data]) -> Data {
        var body = Data()
        for (index, piece) in pieces.enumerated() {
            if index > 0 { body.append(0x26) }
            body.append(piece)
        }
        return body
    }
}
