import Foundation
import HTTPDNSCore
#if canImport(Glibc)
import Glibc
#endif

/// Receives the response body from libcurl's write callback.
final class ResponseBodySink {
    private enum Storage {
        case memory(Data, limit: Int?)
        case file(fd: Int32, temporary: String, destination: String)
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
            let directory = file.deletingLastPathComponent().path
            let template = "\(directory)/.\(file.lastPathComponent).httpdns-XXXXXX"
            var buffer = Array(template.utf8CString)
            let fd = mkstemp(&buffer)
            guard fd >= 0 else {
                throw HTTPClientError(kind: .outputFailed, message: "cannot create a file in '\(directory)': \(String(cString: strerror(errno)))", url: url)
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            let temporary = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if stat(file.path, &info) == 0 {
                // The file replaced keeps its permissions (a private 0600 file stays private, as
                // curl, which truncates it in place, keeps them) and, where the process may, its owner.
                fchmod(fd, info.st_mode & 0o7777)
                _ = fchown(fd, info.st_uid, info.st_gid)
            } else {
                // mkstemp creates 0600; a new file gets the permissions a new file normally gets.
                let mask = umask(0)
                umask(mask)
                fchmod(fd, 0o666 & ~mask)
            }
            storage = .file(fd: fd, temporary: temporary, destination: file.path)
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
        case .file(let fd, let temporary, _):
            return writeAll(bytes, to: fd, path: temporary, url: url)
        case .direct(let fd, let path):
            return writeAll(bytes, to: fd, path: path, url: url)
        }
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, path: String, url: URL?) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                failure = HTTPClientError(kind: .outputFailed, message: "writing '\(path)' failed: \(String(cString: strerror(errno)))", url: url)
                return false
            }
            offset += written
        }
        return true
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
        guard case .file(let fd, let temporary, let destination) = storage else { return }
        storage = .memory(Data(), limit: 0)
        defer { close(fd) }
        // No fsync: this runs on the transfer thread, where a flush of a large file to a busy disk
        // would stall every other transfer. The rename is what keeps readers from ever seeing a
        // partial file.
        guard rename(temporary, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw HTTPClientError(kind: .outputFailed, message: "cannot write '\(destination)': \(reason)", url: url)
        }
    }

    /// Drops a partial body: a file destination's temporary file is removed.
    func discard() {
        switch storage {
        case .file(let fd, let temporary, _):
            close(fd)
            unlink(temporary)
            storage = .memory(Data(), limit: 0)
        case .direct(let fd, _):
            close(fd)
            storage = .memory(Data(), limit: 0)
        default:
            break
        }
    }
}
