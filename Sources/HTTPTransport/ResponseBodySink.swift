import Foundation
import HTTPDNSCore
#if canImport(Glibc)
import Glibc
#endif

/// Receives the response body from libcurl's write callback.
final class ResponseBodySink {
    private enum Storage {
        case memory(Data, limit: Int?)
        case file(FileReplacement)
        /// Written in place: the destination is a device, FIFO or socket (`/dev/null`, say), which
        /// a rename would replace with a regular file.
        case direct(fd: Int32, path: String)
        case handler(@Sendable (Data) -> Void)
        case streaming(head: @Sendable (HTTPResponseHead) -> Void, chunk: @Sendable (Data) -> Void)
        /// Takes and drops everything (the body of a redirect that will be followed).
        case discarding
    }

    private var storage: Storage
    /// Why the last `write` refused the data.
    private(set) var failure: HTTPClientError?

    /// - Throws: `HTTPClientError(.outputFailed)` when the temporary file cannot be created.
    init(_ destination: ResponseBodyDestination, url: URL) throws {
        switch destination {
        case .memory(let limit):
            storage = .memory(Data(), limit: limit)
        case .handler(let handler):
            storage = .handler(handler)
        case .streaming(let head, let chunk):
            storage = .streaming(head: head, chunk: chunk)
        case .file(let requested):
            // A symbolic link is followed: its target is what gets written (or replaced, or
            // created), never the link itself.
            let file = requested.followingSymbolicLinks()
            var info = stat()
            if stat(file.path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
                guard (info.st_mode & S_IFMT) != S_IFDIR else {
                    throw HTTPClientError(kind: .outputFailed, message: "cannot write '\(requested.path)': it is a directory", url: url)
                }
                let fd = open(file.path, O_WRONLY | O_CLOEXEC)
                guard fd >= 0 else {
                    throw HTTPClientError(kind: .outputFailed, message: "cannot open '\(requested.path)': \(String(cString: strerror(errno)))", url: url)
                }
                storage = .direct(fd: fd, path: file.path)
                return
            }
            // Keeps the permissions of a file it replaces (see FileReplacement).
            guard let replacement = FileReplacement(replacing: file.path) else {
                throw HTTPClientError(kind: .outputFailed, message: "cannot create a file in '\(file.deletingLastPathComponent().path)': \(String(cString: strerror(errno)))", url: url)
            }
            storage = .file(replacement)
        }
    }

    deinit { discard() }

    /// Drops any partial output and every later chunk.
    func switchToDiscarding() {
        discard()
        storage = .discarding
    }

    /// Whether `receiveHead` passes the head on (only `.streaming` does).
    var wantsHead: Bool {
        if case .streaming = storage { true } else { false }
    }

    /// The response head, once complete; only `.streaming` passes it on.
    func receiveHead(_ head: HTTPResponseHead) {
        if case .streaming(let handler, _) = storage { handler(head) }
    }

    /// Takes a chunk. Returns false (and sets `failure`) to make libcurl abort the transfer.
    func write(_ bytes: UnsafeRawBufferPointer, url: URL?) -> Bool {
        switch storage {
        case .memory(var data, let limit):
            if let limit, data.count + bytes.count > limit {
                failure = HTTPClientError(kind: .responseTooLarge, message: "the response body exceeds the limit of \(limit) bytes", url: url)
                return false
            }
            storage = .memory(Data(), limit: limit)  // keep `data` uniquely referenced while appending
            data.append(bytes.bindMemory(to: UInt8.self))
            storage = .memory(data, limit: limit)
            return true
        case .handler(let handler):
            handler(Data(bytes))
            return true
        case .streaming(_, let chunk):
            chunk(Data(bytes))
            return true
        case .discarding:
            return true
        case .file(let replacement):
            return writeAll(bytes, to: replacement.fd, path: replacement.temporaryPath, url: url)
        case .direct(let fd, let path):
            return writeAll(bytes, to: fd, path: path, url: url)
        }
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, path: String, url: URL?) -> Bool {
        guard let reason = writeFully(bytes, to: fd) else { return true }
        failure = HTTPClientError(kind: .outputFailed, message: "writing '\(path)' failed: \(reason)", url: url)
        return false
    }

    /// The collected body (memory destination), else empty.
    func takeBody() -> Data {
        if case .memory(let data, let limit) = storage {
            storage = .memory(Data(), limit: limit)
            return data
        }
        return Data()
    }

    /// For a file destination, moves the complete body into place.
    /// - Throws: `HTTPClientError(.outputFailed)`.
    func commit(url: URL?) throws {
        if case .direct(let fd, _) = storage {
            close(fd)
            storage = .memory(Data(), limit: 0)
            return
        }
        guard case .file(let replacement) = storage else { return }
        storage = .memory(Data(), limit: 0)
        defer { close(replacement.fd) }
        // No fsync: this runs on the transfer thread, where a flush of a large file to a busy disk
        // would stall every other transfer. The rename is what keeps readers from ever seeing a
        // partial file.
        if let reason = replacement.commit() {
            throw HTTPClientError(kind: .outputFailed, message: "cannot write '\(replacement.destinationPath)': \(reason)", url: url)
        }
    }

    /// Drops a partial body: a file destination's temporary file is removed.
    func discard() {
        switch storage {
        case .file(let replacement):
            close(replacement.fd)
            replacement.discard()
            storage = .memory(Data(), limit: 0)
        case .direct(let fd, _):
            close(fd)
            storage = .memory(Data(), limit: 0)
        default:
            break
        }
    }
}
