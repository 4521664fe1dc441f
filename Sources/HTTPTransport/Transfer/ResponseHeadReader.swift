/// Reads a response head from the lines libcurl's header callback passes (CURLOPT_HEADERFUNCTION),
/// as bytes: this runs for every header line of every response, on the thread every transfer in the
/// process passes through.
///
/// A status line starts a head and drops the fields before it (an interim 1xx response's). Field
/// lines are kept as bytes (each without its CR LF, after its length in 4 bytes) and made into
/// `HTTPHeaders` only when asked for (`headers`), so a response returned whole has them made by its
/// caller, after the transfer, off that thread. The `Content-Length` of an HTTP/1.x response is
/// checked as each field arrives (RFC 9112 §6.3).
struct ResponseHeadReader {
    /// The status code of the last status line; 0 before one.
    private(set) var status = 0
    private(set) var version = HTTPVersion.unknown
    /// The HTTP/1.x status line's reason phrase; nil for HTTP/2 and HTTP/3.
    private(set) var reasonPhrase: String?
    /// The HTTP/1.x response's `Content-Length` so far (every field and list member must agree).
    private var contentLength: UInt64?
    private var fieldLines: [UInt8] = []
    /// The fields `headForDelivery` made, and where their lines end in `fieldLines`.
    private var deliveredFields: (headers: HTTPHeaders, end: Int)?

    /// What a line was.
    enum Line: Equatable {
        case statusLine
        /// The blank line that ends a head (an interim one's too).
        case endOfHead
        /// A field line, or any other line, kept for `headers`.
        case field
        /// A `Content-Length` that cannot frame the response: `reason` is "an invalid" or
        /// "conflicting", `value` the field's value as text.
        case unframable(reason: String, value: String)
    }

    /// - Parameter capacity: bytes reserved for the field lines (on the calling thread).
    init(reserving capacity: Int) {
        fieldLines.reserveCapacity(capacity)
    }

    /// Takes one line as the header callback passed it (with its CR LF or LF).
    mutating func read(_ bytes: UnsafeRawBufferPointer) -> Line {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        if end >= 5, bytes[0] == 0x48, bytes[1] == 0x54, bytes[2] == 0x54, bytes[3] == 0x50, bytes[4] == 0x2F { // "HTTP/"
            readStatusLine(UnsafeRawBufferPointer(rebasing: bytes[0..<end]))
            return .statusLine
        }
        if end == 0 { return .endOfHead }
        let line = UnsafeRawBufferPointer(rebasing: bytes[0..<end])
        // Only a colon at 14 can end "Content-Length": one byte to look at, not a search per line.
        if line.count > 14, line[14] == 0x3A, line[0] != 0x20, line[0] != 0x09,
            version == .http1_1 || version == .http1_0,
            Self.isContentLength(UnsafeRawBufferPointer(rebasing: line[0..<14]))
        {
            let (valueStart, valueEnd) = Self.valueBounds(in: line, colon: 14)
            if let refusal = checkLength(UnsafeRawBufferPointer(rebasing: line[valueStart..<valueEnd])) { return refusal }
        }
        withUnsafeBytes(of: UInt32(line.count).littleEndian) { fieldLines.append(contentsOf: $0) }
        fieldLines.append(contentsOf: line)
        return .field
    }

    /// RFC 9112 §4: HTTP-version SP status-code SP [ reason-phrase ]. HTTP/2 and HTTP/3 have none
    /// (libcurl writes them a status line that ends in the space).
    private mutating func readStatusLine(_ line: UnsafeRawBufferPointer) {
        fieldLines.removeAll(keepingCapacity: true)
        deliveredFields = nil
        contentLength = nil
        var index = 0
        while index < line.count, line[index] != 0x20 { index += 1 }
        version = HTTPVersion(statusLine: UnsafeRawBufferPointer(rebasing: line[0..<index]))
        while index < line.count, line[index] == 0x20 { index += 1 }
        var code = 0
        while index < line.count, line[index] >= 0x30, line[index] <= 0x39, code < 1000 {
            code = code * 10 + Int(line[index] - 0x30)
            index += 1
        }
        status = code
        if version == .http1_1 || version == .http1_0 {
            if index < line.count, line[index] == 0x20 { index += 1 }
            reasonPhrase = HTTPResponseHead.fieldText(decoding: UnsafeRawBufferPointer(rebasing: line[index...]))
        } else {
            reasonPhrase = nil
        }
    }

    /// The head's fields, made once (for a streamed or redirect head, where it is delivered); the
    /// fields that come later (trailers) are added to them by `headers`.
    mutating func headForDelivery() -> HTTPHeaders {
        var fields = HTTPHeaders()
        appendFields(from: 0, to: &fields)
        deliveredFields = (fields, fieldLines.count)
        return fields
    }

    /// Every field since the last status line, trailers included, without making again those
    /// `headForDelivery` made.
    func headers() -> HTTPHeaders {
        var headers = deliveredFields?.headers ?? HTTPHeaders()
        appendFields(from: deliveredFields?.end ?? 0, to: &headers)
        return headers
    }

    /// Appends the fields of `fieldLines` from byte `offset` to `headers`: a line that starts with
    /// white space continues the previous field's value (obs-fold, RFC 9112 §5.2), read as one
    /// space (it was dropped, or taken for a field); a line with no colon is dropped. Names are
    /// kept as received; values without their surrounding white space, as
    /// `HTTPResponseHead.fieldText` reads them.
    private func appendFields(from offset: Int, to headers: inout HTTPHeaders) {
        fieldLines.withUnsafeBytes { all in
            var lines = 0, position = offset
            while position + 4 <= all.count {
                position += 4 + Int(UInt32(littleEndian: all.loadUnaligned(fromByteOffset: position, as: UInt32.self)))
                lines += 1
            }
            headers.reserveCapacity(headers.count + lines)
            position = offset
            while position + 4 <= all.count {
                let length = Int(UInt32(littleEndian: all.loadUnaligned(fromByteOffset: position, as: UInt32.self)))
                let line = UnsafeRawBufferPointer(rebasing: all[(position + 4)..<(position + 4 + length)])
                position += 4 + length
                if line[0] == 0x20 || line[0] == 0x09 {
                    var start = 0
                    while start < line.count, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
                    if start < line.count {
                        headers.continueLastValue(with: HTTPResponseHead.fieldText(decoding: UnsafeRawBufferPointer(rebasing: line[start...])))
                    }
                    continue
                }
                guard let colon = line.firstIndex(of: 0x3A) else { continue }
                let (valueStart, valueEnd) = Self.valueBounds(in: line, colon: colon)
                headers.add(
                    name: String(decoding: UnsafeRawBufferPointer(rebasing: line[0..<colon]), as: UTF8.self),
                    value: HTTPResponseHead.fieldText(decoding: UnsafeRawBufferPointer(rebasing: line[valueStart..<valueEnd])))
            }
        }
    }

    /// Where the value of the field `line` starts and ends: after the colon at `colon`, without the
    /// white space around it (RFC 9110 §5.5).
    private static func valueBounds(in line: UnsafeRawBufferPointer, colon: Int) -> (Int, Int) {
        var valueStart = colon + 1
        while valueStart < line.count, line[valueStart] == 0x20 || line[valueStart] == 0x09 { valueStart += 1 }
        var valueEnd = line.count
        while valueEnd > valueStart, line[valueEnd - 1] == 0x20 || line[valueEnd - 1] == 0x09 { valueEnd -= 1 }
        return (valueStart, valueEnd)
    }

    /// Whether `name` is `Content-Length`, in any case.
    private static func isContentLength(_ name: UnsafeRawBufferPointer) -> Bool {
        let expected: StaticString = "content-length"
        guard name.count == expected.utf8CodeUnitCount else { return false }
        for index in 0..<name.count {
            let byte = name[index]
            if (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != expected.utf8Start[index] { return false }
        }
        return true
    }

    /// RFC 9112 §6.3 and RFC 9110 §8.6: every `Content-Length` of an HTTP/1.x response, and every
    /// member of a list in one, must be the same decimal number; otherwise the response cannot be
    /// framed, an unrecoverable error (curl's 8, "weird server reply"). libcurl 7.88 would take the
    /// last value and keep the connection for the next request, which would then read the rest of
    /// this response. Read from the field's bytes (as text only for a refusal): every HTTP/1.1
    /// response has one. - Returns: the refusal, or nil.
    private mutating func checkLength(_ value: UnsafeRawBufferPointer) -> Line? {
        let refusal = { (reason: String) in Line.unframable(reason: reason, value: HTTPResponseHead.fieldText(decoding: value)) }
        var conflicting = false
        var index = 0
        repeat {
            // One member: OWS 1*DIGIT OWS, then a comma or the end.
            while index < value.count, value[index] == 0x20 || value[index] == 0x09 { index += 1 }
            var number: UInt64 = 0
            var digits = 0
            while index < value.count, value[index] >= 0x30, value[index] <= 0x39 {
                let (times, overflowTimes) = number.multipliedReportingOverflow(by: 10)
                let (sum, overflowSum) = times.addingReportingOverflow(UInt64(value[index] - 0x30))
                guard !overflowTimes, !overflowSum else { return refusal("an invalid") }
                number = sum
                digits += 1
                index += 1
            }
            while index < value.count, value[index] == 0x20 || value[index] == 0x09 { index += 1 }
            guard index == value.count || value[index] == 0x2C else { return refusal("an invalid") }
            // An empty list element is skipped (RFC 9110 §5.6.1); libcurl refuses a field with none.
            if digits > 0 {
                if let known = contentLength, known != number { conflicting = true }
                contentLength = number
            }
            index += 1
        } while index <= value.count
        return conflicting ? refusal("conflicting") : nil
    }
}
