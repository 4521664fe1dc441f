import Foundation
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
    /// Bytes, when known up front.
    let length: Int64?
    /// Set when reading failed; the transfer reports it.
    private(set) var failure: String?

    /// - Throws: `HTTPClientError(.invalidRequest)` when a body file cannot be opened.
    init(_ body: HTTPRequestBody, url: URL) throws {
        switch body {
        case .data(let data):
            storage = .data(data, offset: 0)
            length = Int64(data.count)
        case .file(let file):
            let fd = open(file.path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw HTTPClientError(kind: .invalidRequest, message: "cannot read body file '\(file.path)': \(String(cString: strerror(errno)))", url: url)
            }
            var info = stat()
            guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                close(fd)
                throw HTTPClientError(kind: .invalidRequest, message: "body file '\(file.path)' is not a regular file", url: url)
            }
            storage = .file(fd: fd, path: file.path)
            length = Int64(info.st_size)
        case .stream(let box, let length):
            storage = .stream(box.stream, opened: false)
            self.length = length
        }
    }

    deinit {
        switch storage {
        case .file(let fd, _): close(fd)
        case .stream(let stream, let opened): if opened { stream.close() }
        case .data: break
        }
    }

    /// Copies up to `buffer.count` bytes; 0 at the end. Returns nil on a read error.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
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
            return count
        }
    }

    /// Moves back to `offset` from the start. False when the body cannot be re-read (streams).
    func rewind(to offset: Int64) -> Bool {
        switch storage {
        case .data(let data, _):
            guard offset >= 0, offset <= Int64(data.count) else { return false }
            storage = .data(data, offset: Int(offset))
            return true
        case .file(let fd, _):
            return lseek(fd, off_t(offset), SEEK_SET) == off_t(offset)
        case .stream:
            return false
        }
    }
}
