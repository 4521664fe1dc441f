import Foundation
import HTTPDNSCore
#if canImport(Glibc)
    import Glibc
#endif

/// How a request's body is delimited on the wire (RFC 9112 §6), decided from the body and the
/// caller's `Content-Length` and `Transfer-Encoding` fields before anything is sent.
///
/// The transport frames bodies itself, so the caller's fields are checked, never passed on: a
/// body goes with `Content-Length` when its length is known, else chunked over HTTP/1.1 (DATA
/// frames over HTTP/2, which has no `Transfer-Encoding`, RFC 9113 §8.2.2). `Transfer-Encoding:
/// chunked` asks for chunked even with a known length on an HTTP/1.1 request (one that may use
/// HTTP/2 keeps the length); no other transfer coding can be sent, and a
/// request never carries both fields (RFC 9112 §6.3: the server could pick either framing, the way
/// requests are smuggled past a proxy).
struct RequestFraming {
    /// Whether the caller asked for the body chunked (`Transfer-Encoding: chunked`): over HTTP/1.1
    /// libcurl is given no length. The body's own length, when known, is still enforced.
    let chunked: Bool

    /// Checks what needs no body source, so that a request that cannot be sent fails before its
    /// host is resolved (bad input before any traffic): the method and field names are RFC 9110
    /// §5.6.2 tokens, no field value holds CR, LF or NUL, a HEAD request has no body, and the
    /// `Transfer-Encoding` and `Content-Length` fields can frame the body (`chunked` alone, only
    /// with a body, never beside `Content-Length`; a non-zero length only with a body). The
    /// lengths are checked against the body when the transfer is built (`init`).
    /// - Throws: `HTTPClientError(.invalidRequest)` naming what is wrong.
    static func checkFields(of request: HTTPRequest) throws(HTTPClientError) {
        let url = request.url
        let hasBody = request.body != nil
        guard isToken(request.method) else {
            throw HTTPClientError(kind: .invalidRequest, message: "invalid HTTP method '\(request.method)'", url: url)
        }
        for field in request.headers {
            guard isToken(field.name) else {
                throw HTTPClientError(kind: .invalidRequest, message: "invalid header name '\(field.name)'", url: url)
            }
            guard !field.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw HTTPClientError(kind: .invalidRequest, message: "header '\(field.name)' has a line break or a NUL in its value", url: url)
            }
        }
        for name in request.omittedHeaders where !request.headers.contains(name: name) {
            guard isToken(name) else {
                throw HTTPClientError(kind: .invalidRequest, message: "invalid header name '\(name)' in omittedHeaders", url: url)
            }
            guard name.lowercased() != "host" else {
                throw HTTPClientError(kind: .invalidRequest, message: "the Host header cannot be left out: it names the host the request is for", url: url)
            }
            // Without them a body has no framing: over HTTP/1.1 keep-alive the server would read it
            // as the next request.
            guard !hasBody || !["content-length", "transfer-encoding"].contains(name.lowercased()) else {
                throw HTTPClientError(kind: .invalidRequest, message: "the \(name) header cannot be left out of a request with a body: it frames the body", url: url)
            }
        }
        switch request.body {
        case .stream(_, let length?) where length < 0:
            throw HTTPClientError(kind: .invalidRequest, message: "a body stream's length must be 0 or more, or nil when it is unknown; got \(length)", url: url)
        case .file(let file):
            // Opened only when the transfer is built; a missing file, a directory or another file
            // that is not regular is known now.
            var info = stat()
            guard stat(file.path, &info) == 0 else {
                throw HTTPClientError(kind: .invalidRequest, message: "cannot read body file '\(file.path)': \(String(cString: strerror(errno)))", url: url)
            }
            guard (info.st_mode & S_IFMT) != S_IFDIR else {
                throw HTTPClientError(kind: .invalidRequest, message: "body file '\(file.path)' is a directory", url: url)
            }
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                throw HTTPClientError(kind: .invalidRequest, message: RequestBodySource.notRegular(file.path), url: url)
            }
        default:
            break
        }
        if hasBody, request.method == "HEAD" {
            // The response to HEAD has no body however the request is framed; a server that reads
            // the request's body answers as to HEAD, while libcurl, sending a body, waits for one.
            throw HTTPClientError(
                kind: .invalidRequest,
                message: "a HEAD request cannot carry a body (RFC 9110 §9.3.2: its response never has one); send it without a body, or use another method",
                url: url)
        }
        let codings = request.headers[all: "Transfer-Encoding"]
        let contentLengths = request.headers[all: "Content-Length"]
        if !codings.isEmpty {
            let value = codings.joined(separator: ", ")
            guard hasBody else {
                throw HTTPClientError(
                    kind: .invalidRequest,
                    message:
                        "Transfer-Encoding header '\(value)' on \(request.method) \(url.redactedString), which has no body: the server would wait for a chunked body that never comes (RFC 9112 §6.1); leave the header out",
                    url: url)
            }
            // Transfer codings are a list, case-insensitive (RFC 9110 §5.6.1, RFC 9112 §7).
            let list = codings.flatMap { $0.split(separator: ",") }.map { $0.trimmingWhitespace().lowercased() }.filter { !$0.isEmpty }
            guard list == ["chunked"] else {
                throw HTTPClientError(
                    kind: .invalidRequest,
                    message:
                        "Transfer-Encoding header '\(value)' cannot be sent: the only transfer coding the client applies is chunked, alone (RFC 9112 §6.1); the body would go out uncoded and the server would misread it. Compress the body yourself and label it with Content-Encoding, or leave the header out",
                    url: url)
            }
            guard contentLengths.isEmpty else {
                throw HTTPClientError(
                    kind: .invalidRequest,
                    message:
                        "Content-Length and Transfer-Encoding headers together on \(request.method) \(url.redactedString): a request carries one or the other (RFC 9112 §6.3; with both, a server or proxy may read either framing). Leave out Content-Length to send the body chunked",
                    url: url)
            }
        }
        for declared in contentLengths {
            if !hasBody, declared.trimmingWhitespace() != "0" {
                throw HTTPClientError(kind: .invalidRequest, message: "Content-Length header '\(declared)' on a request without a body", url: url)
            }
            // A body in memory has its length at hand (files and streams are checked when opened).
            if case .data(let data) = request.body {
                try RequestBodySource.check(contentLength: declared, against: Int64(data.count), url: url)
            }
        }
    }

    /// Checks the `Content-Length` fields against `body` (the request passed `checkFields`),
    /// giving a stream of unknown length the value, and checks that a source declared empty is
    /// (`RequestBodySource.checkDeclaredEmpty`).
    /// - Throws: `HTTPClientError(.invalidRequest)` for a `Content-Length` that is no length or
    ///   differs from the body's; `.bodyReadFailed` for a source declared empty that holds bytes.
    init(request: HTTPRequest, body: RequestBodySource?) throws {
        let url = request.url
        // Each of them: two that differ would let the server pick either framing.
        if let body {
            for declared in request.headers[all: "Content-Length"] { try body.declare(contentLength: declared, url: url) }
        }
        try body?.checkDeclaredEmpty(url: url)
        chunked = request.headers.contains(name: "Transfer-Encoding")
    }

    /// Whether `text` is a non-empty RFC 9110 §5.6.2 token (a method or a field name).
    private static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { isTokenCharacter($0) }
    }

    /// RFC 9110 §5.6.2 `tchar`.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
