import Foundation
import Testing
@testable import HTTPTransport

/// The response head as the header callback reads it, line by line (`ResponseHeadReader`), without
/// a server: the integration tests send the same heads through libcurl.
@Suite("Response heads read from header lines")
struct ResponseHeadReaderTests {
    /// Reads `lines` (each given its CR LF) and returns the reader and each line's outcome.
    func read(_ lines: [String], deliverAtEnd: Bool = false) -> (ResponseHeadReader, [ResponseHeadReader.Line]) {
        var reader = ResponseHeadReader(reserving: 0)
        var outcomes: [ResponseHeadReader.Line] = []
        var delivered = false
        for line in lines {
            let outcome = Array((line + "\r\n").utf8).withUnsafeBytes { reader.read($0) }
            outcomes.append(outcome)
            // Once, at the end of the final head, as `Transfer` delivers it.
            if deliverAtEnd, outcome == .endOfHead, reader.status >= 200, !delivered {
                _ = reader.headForDelivery()
                delivered = true
            }
        }
        return (reader, outcomes)
    }

    @Test("status, version and reason phrase; HTTP/2 has no reason phrase")
    func statusLine() {
        let (http1, _) = read(["HTTP/1.1 404 Not Found", ""])
        #expect(http1.status == 404)
        #expect(http1.version == .http1_1)
        #expect(http1.reasonPhrase == "Not Found")
        let (http2, _) = read(["HTTP/2 200 ", ""])
        #expect(http2.status == 200)
        #expect(http2.version == .http2)
        #expect(http2.reasonPhrase == nil)
    }

    @Test("an interim response's fields are dropped; the final head's kept in order, folds joined, lines without a colon dropped")
    func fields() {
        let (reader, outcomes) = read([
            "HTTP/1.1 103 Early Hints", "Link: </a.css>", "", "HTTP/1.1 200 OK",
            "X-Fold: a", "  b", "Odd line", "X-Next:  e \t", ""
        ])
        #expect(outcomes == [.statusLine, .field, .endOfHead, .statusLine, .field, .field, .field, .field, .endOfHead])
        #expect(reader.headers().fields == [HTTPHeaders.Field(name: "X-Fold", value: "a b"), HTTPHeaders.Field(name: "X-Next", value: "e")])
    }

    @Test("trailers after a delivered head are added to its fields, as without a delivery")
    func trailersAfterDelivery() {
        let lines = ["HTTP/2 200 ", "content-type: text/plain", "x-fold: a", "", "x-trailer: 1", "  more", "x-other: 2", ""]
        let (delivered, _) = read(lines, deliverAtEnd: true)
        let (whole, _) = read(lines)
        #expect(delivered.headers().fields.map(\.name) == ["content-type", "x-fold", "x-trailer", "x-other"])
        #expect(delivered.headers() == whole.headers())
    }

    @Test(
        "Content-Length: equal values and list members agree; conflicting or invalid ones cannot frame an HTTP/1.x response",
        arguments: [
            ("3", nil), ("3, 3", nil), (" 3 ,, 3", nil), ("3, 4", "conflicting"), ("3x", "an invalid"),
            ("99999999999999999999", "an invalid")
        ] as [(String, String?)])
    func contentLength(value: String, refusal: String?) {
        let (reader, outcomes) = read(["HTTP/1.1 200 OK", "Content-Length: 3", "content-length: \(value)"])
        if let refusal {
            #expect(outcomes.last == .unframable(reason: refusal, value: value.trimmingCharacters(in: .whitespaces)))
        } else {
            #expect(outcomes.last == .field)
            #expect(reader.headers()[all: "Content-Length"].count == 2)
        }
    }

    @Test("Content-Length: members of one field must agree; an interim head's does not count; HTTP/2 frames its own messages")
    func contentLengthScope() {
        let (_, single) = read(["HTTP/1.0 200 OK", "Content-Length: 5, 6"])
        #expect(single.last == .unframable(reason: "conflicting", value: "5, 6"))
        let (_, interim) = read(["HTTP/1.1 103 Early Hints", "Content-Length: 0", "", "HTTP/1.1 200 OK", "Content-Length: 3"])
        #expect(interim.last == .field)
        // libcurl checks the field itself over HTTP/2.
        let (_, http2) = read(["HTTP/2 200 ", "content-length: 3", "content-length: 4"])
        #expect(http2.last == .field)
    }
}
