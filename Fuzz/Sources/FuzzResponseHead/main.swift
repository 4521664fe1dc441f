// Response heads as libcurl's header callback passes them, line by line (ResponseHeadReader): status
// lines, fields, obs-fold continuations, Content-Length checks, interim responses and trailers.
// The input after the selector byte is split after each LF, as libcurl splits a head.
@testable import HTTPTransport
import FuzzSupport

runFuzzer { bytes in
    let (selector, rest) = split(bytes)
    // Two readers take the same lines; one delivers the final head at its end, once (bit 7), as a
    // streamed or redirect response does. Their fields must then be the same.
    var reader = ResponseHeadReader(reserving: Int(selector & 0x3F) * 16)
    var plain = ResponseHeadReader(reserving: 0)
    var delivered = false
    var start = 0
    for index in rest.indices where rest[index] == 0x0A || index == rest.count - 1 {
        let line = Array(rest[start...index])
        start = index + 1
        let outcome = line.withUnsafeBytes { reader.read($0) }
        guard line.withUnsafeBytes({ plain.read($0) }) == outcome else { fatalError("the readers disagree on a line") }
        if case .unframable = outcome { return }
        if outcome == .endOfHead, selector & 0x80 != 0, !delivered, reader.status >= 200 {
            _ = reader.headForDelivery()
            delivered = true
        }
    }
    guard reader.headers() == plain.headers(), reader.status == plain.status, reader.reasonPhrase == plain.reasonPhrase else {
        fatalError("delivering the head changed the response's fields")
    }
}
