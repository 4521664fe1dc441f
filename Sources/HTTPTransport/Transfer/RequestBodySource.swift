import Foundation
import HTTPDNSCore
#if canImport(Glibc)
    import Glibc
#endif

/// Feeds a request body to libcurl's read callback (CURLOPT_READFUNCTION), and rewinds it when
/// libcurl must send it again (CURLOPT_SEEKFUNCTION).
final class RequestBodySource {
    private enum Storage {
        case data(Data, offset: Int)
        case file(fd: Int32, path: String)
        case stream(InputStream, opened: Bool)
    }

    private var storage: Storage
    /// Bytes, when known up front: the body's `Content-Length`. Exactly this many are sent (see `read`).
    private(set) var length: Int64?
    /// Bytes handed to libcurl since the start (or the offset rewound to).
    private var sent: Int64 = 0
    /// Bytes taken from a stream so far: while none are, the stream is still at its start.
    private(set) var streamBytesTaken: Int64 = 0
    /// Set when reading failed; the transfer reports it.
    private(set) var failure: String?

    /// - Throws: `HTTPClientError(.invalidRequest)` when a body file cannot be opened.
    init(_ body: HTTPRequestBody, url: URL) throws {
        switch body {
        case .data(let data):
            storage = .data(data, offset: 0)
            length = Int64(data.count)
        case .file(let file):
            // O_NONBLOCK: opening a FIFO without a writer would block the calling thread until one
            // came (a FIFO is refused below). A regular file under another process's write lease
            // refuses a non-blocking open (EWOULDBLOCK): it is opened again, waiting as before.
            var fd = open(file.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            if fd < 0, errno == EWOULDBLOCK { fd = open(file.path, O_RDONLY | O_CLOEXEC) }
            guard fd >= 0 else {
                throw HTTPClientError(kind: .invalidRequest, message: "cannot read body file '\(file.path)': \(String(cString: strerror(errno)))", url: url)
            }
            var info = stat()
            guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                close(fd)
                throw HTTPClientError(kind: .invalidRequest, message: Self.notRegular(file.path), url: url)
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
            storage = .file(fd: fd, path: file.path)
            length = Int64(info.st_size)
        case .stream(let box, let length):
            // A negative length never gets here (`RequestFraming.checkFields`).
            storage = .stream(box.stream, opened: false)
            self.length = length
        }
    }

    /// The refusal of a body file that is not a regular file.
    static func notRegular(_ path: String) -> String {
        "body file '\(path)' is not a regular file: a FIFO, device or socket has no length before it is read, and can be read only once; send it as a .stream"
    }

    deinit {
        switch storage {
        case .file(let fd, _): close(fd)
        case .stream(let stream, let opened): if opened { stream.close() }
        case .data: break
        }
    }

    /// Takes a `Content-Length` header given with the body as its length: a stream of unknown
    /// length then has one; any other body must already have that length.
    /// - Throws: `HTTPClientError(.invalidRequest)` when the value is no length, or differs from
    ///   the body's.
    func declare(contentLength value: String, url: URL) throws {
        length = try Self.check(contentLength: value, against: length, url: url)
    }

    /// The length a `Content-Length` value declares, checked against a body's known `length`.
    /// - Throws: `HTTPClientError(.invalidRequest)` for a value that is no length in bytes, or
    ///   another length than `length`.
    @discardableResult
    static func check(contentLength value: String, against length: Int64?, url: URL) throws(HTTPClientError) -> Int64 {
        guard let declared = Int64(value.trimmingWhitespace()), declared >= 0 else {
            throw HTTPClientError(kind: .invalidRequest, message: "Content-Length header '\(value)' is not a length in bytes", url: url)
        }
        if let length, length != declared {
            throw HTTPClientError(
                kind: .invalidRequest,
                message: "Content-Length header \(declared) does not match the body's \(length) bytes (the difference would be read as part of the next request on the connection)", url: url)
        }
        return declared
    }

    /// Checks that a stream or file declared empty (length 0) is: libcurl reads nothing from a body
    /// of length 0, so bytes in it would be dropped without a word. Reads one byte ahead, before
    /// anything is sent (on the calling thread).
    /// - Throws: `HTTPClientError(.bodyReadFailed)` when the source holds a byte or cannot be read.
    func checkDeclaredEmpty(url: URL) throws {
        guard length == 0 else { return }
        var byte: UInt8 = 0
        let count: Int?
        switch storage {
        case .data:
            return
        case .file(let fd, let path):
            // A file the kernel generates (under /proc or /sys) has a size of 0 and contents.
            let read = pread(fd, &byte, 1, 0)
            if read < 0 { failure = "reading body file '\(path)' failed: \(String(cString: strerror(errno)))" }
            count = read < 0 ? nil : read
        case .stream:
            count = withUnsafeMutableBytes(of: &byte) { readSource(into: $0) }
        }
        guard let count else {
            throw HTTPClientError(kind: .bodyReadFailed, message: failure ?? "\(sourceName) could not be read", url: url)
        }
        if count > 0 {
            let fix = if case .file = storage { "send its contents as .data" } else { "give the stream's real length, or nil when it is unknown" }
            let message = "\(sourceName) holds bytes though its length is 0; nothing was sent (\(fix))"
            failure = message
            throw HTTPClientError(kind: .bodyReadFailed, message: message, url: url)
        }
    }

    /// Copies up to `buffer.count` bytes; 0 at the end. Returns nil on a read error.
    ///
    /// A body of known length sends exactly that many bytes. A source that ends early, or turns
    /// out to hold more, fails the request (`failure`) instead: short, the server would wait for
    /// the rest for ever; long, the excess would be taken as the start of the next request on the
    /// connection. Excess is seen when the last read of the declared bytes brings more (it asks
    /// for one byte past them, which costs no wait: the read was needed anyway); it is never sent.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        guard let length else { return readSource(into: buffer) }
        let remaining = length - sent
        // libcurl stops asking once the declared length is sent.
        guard remaining > 0 else { return 0 }
        // A read that would end the body exactly at a full buffer leaves no room for the extra
        // byte: it takes one byte less, so that the last read has room.
        let asked =
            remaining < Int64(buffer.count)
            ? Int(remaining) + 1
            : remaining == Int64(buffer.count) && buffer.count > 1 ? buffer.count - 1 : buffer.count
        guard let count = readSource(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<asked])) else { return nil }
        if count == 0 {
            failure = "\(sourceName) ended after \(sent) of its \(length) bytes"
            return nil
        }
        if Int64(count) > remaining {
            failure = "\(sourceName) holds more than its \(length) bytes; none of the excess was sent"
            return nil
        }
        sent += Int64(count)
        return count
    }

    /// The source, for messages.
    private var sourceName: String {
        switch storage {
        case .data: "the body"
        case .file(_, let path): "body file '\(path)'"
        case .stream: "the body stream"
        }
    }

    private func readSource(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        switch storage {
        case .data(let data, let offset):
            let count = min(buffer.count, data.count - offset)
            guard count > 0 else { return 0 }
            let start = data.startIndex + offset
            data.copyBytes(to: buffer.bindMemory(to: UInt8.self), from: start..<(start + count))
            storage = .data(data, offset: offset + count)
            return count
        case .file(let fd, let path):
            while true {
                let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
                if count >= 0 { return count }
                if errno == EINTR { continue }
                failure = "reading body file '\(path)' failed: \(String(cString: strerror(errno)))"
                return nil
            }
        case .stream(let stream, let opened):
            if !opened {
                stream.open()
                storage = .stream(stream, opened: true)
            }
            let count = stream.read(buffer.bindMemory(to: UInt8.self).baseAddress!, maxLength: buffer.count)
            if count < 0 {
                failure = "reading the body stream failed: \(stream.streamError.map { "\($0)" } ?? "unknown error")"
                return nil
            }
            streamBytesTaken += Int64(count)
            return count
        }
    }

    /// Moves back to `offset` from the start. False when the body cannot be re-read: a stream
    /// once a byte has been taken from it (one still at its start, or empty, starts again as is).
    func rewind(to offset: Int64) -> Bool {
        switch storage {
        case .data(let data, _):
            guard offset >= 0, offset <= Int64(data.count) else { return false }
            storage = .data(data, offset: Int(offset))
            sent = offset
            return true
        case .file(let fd, _):
            guard lseek(fd, off_t(offset), SEEK_SET) == off_t(offset) else { return false }
            sent = offset
            return true
        case .stream:
            guard offset == 0, streamBytesTaken == 0 else { return false }
            sent = 0
            return true
        }
    }
}
