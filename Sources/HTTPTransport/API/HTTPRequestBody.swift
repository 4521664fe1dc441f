import Foundation

/// A request body, sent byte-exact. With a known length the request carries `Content-Length`;
/// without one, HTTP/1.1 uses chunked transfer coding and HTTP/2 DATA frames. A `Content-Length`
/// header in `HTTPRequest.headers` must equal a known length (else `.invalidRequest`), and gives a
/// stream of unknown length its length.
///
/// Exactly the known length is sent: a file or stream that ends before it, or holds more, fails
/// the request with `.bodyReadFailed` (curl 26) and the connection is not reused, since either
/// would break the message framing (a server waiting for the rest for ever; over HTTP/1.1
/// keep-alive, the excess read as the next request). A file or stream of length 0 is read one
/// byte ahead before the request is sent, since libcurl reads nothing of it: one holding a byte
/// fails with `.bodyReadFailed` and nothing is sent.
///
/// When the request must go out again (a 307/308 redirect, or libcurl's resend after a reused
/// connection closed before any response), `.data` and `.file` are sent again from the start; a
/// `.stream` only while nothing has been read from it, else the request fails with
/// `.bodyReadFailed`.
public enum HTTPRequestBody: Sendable {
    /// Bytes in memory.
    case data(Data)
    /// The contents of a regular file, read as it is sent (never loaded whole). The file is opened
    /// before the request starts, and its size then is the body's length; a file that is missing,
    /// unreadable or not regular (a directory, FIFO, device or socket: send those as `.stream`)
    /// fails the request with `.invalidRequest` before its host is resolved.
    case file(URL)
    /// Bytes pulled from `stream` as they are sent; `length` in bytes if known (the stream must
    /// then hold exactly that many; a negative one fails the request with `.invalidRequest`).
    /// - Warning: The stream is read by the thread driving libcurl (the transfer thread, or the
    ///   thread starting a request) while it holds the transfer loop; a stream that blocks for long
    ///   stalls other transfers. Streams from memory or files are fine.
    case stream(InputStreamBox, length: Int64?)

    /// Wraps a Foundation `InputStream` for `.stream`.
    public static func stream(_ stream: InputStream, length: Int64?) -> HTTPRequestBody {
        .stream(InputStreamBox(stream), length: length)
    }
}

/// Hands an `InputStream` to the transfer loop, which becomes its only user.
public final class InputStreamBox: @unchecked Sendable { // the stream is used by one thread at a time: the caller until the request starts, then whichever thread holds the transfer loop's lock
    let stream: InputStream
    public init(_ stream: InputStream) { self.stream = stream }
}
