import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The file a download task's body goes to, as Foundation's own stack keeps one for the task.
///
/// Created on the first write (`O_EXCL`, mode 0600: another user can neither read the body nor
/// plant a file or link at the name), written on a serial queue of its own so that the transfer
/// thread never waits for the disk, and removed by `discard()` unless it was handed on. `progress`
/// runs on that queue after each write, with the bytes just written, the total so far and the
/// expected total (`NSURLSessionTransferSizeUnknown` when unknown).
final class DownloadFile: @unchecked Sendable { // `fd`, `created`, `written`, `expected`, `failure` and `discarded` are used only on `queue`
    let url: URL
    private let queue = DispatchQueue(label: "httpdns.URLProtocol.download")
    private let progress: @Sendable (Int64, Int64, Int64) -> Void
    private var fd: Int32 = -1
    private var created = false
    private var written: Int64 = 0
    private var expected = NSURLSessionTransferSizeUnknown
    private var failure: HTTPDNSURLProtocolError?
    private var discarded = false

    /// - Parameters:
    ///   - directory: Where the file is created (`httpdns-download-UUID.tmp`).
    ///   - progress: Told of each write, on the file's queue.
    init(directory: URL, progress: @escaping @Sendable (_ bytes: Int64, _ total: Int64, _ expected: Int64) -> Void) {
        url = directory.appendingPathComponent("httpdns-download-\(UUID().uuidString).tmp")
        self.progress = progress
    }

    /// The body's length, from the response head, for progress: nil when unknown.
    func expect(_ length: Int64?) {
        queue.async { self.expected = length ?? NSURLSessionTransferSizeUnknown }
    }

    func write(_ data: Data) {
        queue.async {
            guard !self.discarded, self.failure == nil, self.open() else { return }
            if let reason = Self.write(data, to: self.fd) {
                self.failure = .downloadFileFailed(self.url, reason: reason)
                return
            }
            self.written += Int64(data.count)
            self.progress(Int64(data.count), self.written, self.expected)
        }
    }

    /// Waits for the writes, then closes the complete file, which stays at `url`.
    /// - Throws: `HTTPDNSURLProtocolError.downloadFileFailed` when it could not be created or
    ///   written (the file is then removed); `CancellationError` after `discard()`.
    func finish() async throws {
        let failure: (any Error)? = await withCheckedContinuation { continuation in
            queue.async {
                guard !self.discarded else { return continuation.resume(returning: CancellationError()) }
                if self.failure == nil { _ = self.open() }
                if let failure = self.failure {
                    self.remove()
                    return continuation.resume(returning: failure)
                }
                close(self.fd)
                self.fd = -1
                continuation.resume(returning: nil)
            }
        }
        if let failure { throw failure }
    }

    /// Removes the file (after the writes already queued) and drops later ones.
    func discard() {
        queue.async {
            self.discarded = true
            self.remove()
        }
    }

    /// Creates the file once; false when that failed.
    private func open() -> Bool {
        if fd >= 0 { return true }
        if failure != nil { return false }
        fd = Glibc.open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            failure = .downloadFileFailed(url, reason: String(cString: strerror(errno)))
            return false
        }
        created = true
        return true
    }

    private func remove() {
        if fd >= 0 {
            close(fd)
            fd = -1
        }
        // Only a file this created: never one someone else put at the name.
        if created { unlink(url.path) }
        created = false
    }

    /// - Returns: nil on success, else the reason (`strerror`).
    private static func write(_ data: Data, to fd: Int32) -> String? {
        data.withUnsafeBytes { buffer -> String? in
            var offset = 0
            while offset < buffer.count {
                let result = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if result < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                offset += result
            }
            return nil
        }
    }
}
