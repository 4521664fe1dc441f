// Response heads as libcurl's header callback passes them, line by line (ResponseHeadReader): status
// lines, fields, obs-fold continuations, Content-Length checks, interim responses and trailers.
// The input after the selector byte is split after each LF, as libcurl splits a head.
@testable import HTTPTransport
import FuzzSupport

runFuzzer { bytes in
    let (selector, rest) = split(bytes)
    var reader = ResponseHeadReader(reserving: Int(selector & 0x3F) * 16)
    var delivered: HTTPHeaders?
    var start = 0
    for index in rest.indices where rest[index] == 0x0A || index == rest.count - 1 {
        let line = Array(rest[start...index])
        start = index + 1
        let outcome = line.withUnsafeBytes { reader.read($0) }
        switch outcome {
        case .endOfHead:
            // Bit 7: deliver the head at its end, as a streamed or redirect response does.
            if selector & 0x80 != 0, delivered == nil, reader.status >= 200 { delivered = reader.headForDelivery() }
        case .statusLine:
            // A new head: what was delivered is no longer the response's.
            delivered = nil
        case .unframable:
            return
        case .field:
            break
        }
    }
    let headers = reader.headers()
    // The delivered head's fields come first (a fold may continue the last of them).
    if let delivered {
        guard headers.count >= delivered.count else { fatalError("the response has fewer fields than its delivered head") }
        for (index, field) in delivered.enumerated().dropLast() where headers.fields[index] != field {
            fatalError("field \(index) changed after the head was delivered")
        }
    }
}
