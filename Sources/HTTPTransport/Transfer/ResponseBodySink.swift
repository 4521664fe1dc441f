import Foundation
import HTTPDNSCore
#if canImport(Glibc)
    import Glibc
#endif

/// Receives the response body from libcurl's write callback.
final class ResponseBodySink {
    private enum Storage {
        case memory(Data, limit: Int?)
        case file(OutputFile)
        case handler(@Sendable (Data) -> Void)
        case streaming(head: @Sendable (HTTPResponseHead) -> Void, chunk: @Sendable (Data) -> Void)
        /// Takes and drops everything (the body of a redirect that will be followed).
        case discarding
    }

    private var storage: Storage
    /// Why the last `write` refused the data.
    private(set) var failure: HTTPClientError?

    /// - Throws: `HTTPClientError(.outputFailed)` when the file destination cannot be written
    ///   (`OutputFile.OpenFailure`: not writable, a directory, no temporary file, a link the
    ///   kernel's protected_symlinks rule would not follow).
    init(_ destination: ResponseBodyDestination, url: URL) throws {
        switch destination {
        case .memory(let limit):
            storage = .memory(Data(), limit: limit)
        case .handler(let handler):
            storage = .handler(handler)
        case .streaming(let head, let chunk):
            storage = .streaming(head: head, chunk: chunk)
        case .file(let requested):
            do {
                storage = .file(try OutputFile(path: requested.path))
            } catch {
                throw HTTPClientError(kind: .outputFailed, message: error.description, url: url)
            }
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
            storage = .memory(Data(), limit: limit) // keep `data` uniquely referenced while appending
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
        case .file(let output):
            return writeAll(bytes, to: output.fd, path: output.writtenPath, url: url)
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
        guard case .file(let output) = storage else { return }
        storage = .memory(Data(), limit: 0)
        if let failure = output.commit() {
            throw HTTPClientError(kind: .outputFailed, message: failure, url: url)
        }
    }

    /// Drops a partial body: a file destination's temporary file is removed.
    func discard() {
        switch storage {
        case .file(let output):
            output.discard()
            storage = .memory(Data(), limit: 0)
        default:
            break
        }
    }
}
