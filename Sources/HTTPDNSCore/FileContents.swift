import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// Reads a whole file into memory, whatever kind of file it is: a regular file, or one that has no
/// size to read up to and can be read only once, as a FIFO, the pipe a shell's process
/// substitution names (`<(command)`, seen as `/dev/fd/63`), `/dev/stdin` or a terminal, all of
/// which curl reads too. Callers read such a file once, here, and keep the bytes.
package enum FileContents {
    /// The bytes of the file at `path`.
    /// - Parameters:
    ///   - path: Any readable file but a directory; symbolic links are followed.
    ///   - limit: The most bytes read from a file that is not regular (a pipe has no size to check
    ///     first, and may never end); more is a `FileFailure`. A regular file is read whole.
    /// - Throws: `FileFailure` (reading `path`) when the file is missing, a directory, not
    ///   readable, too long or fails to read: `strerror`'s text, or why else.
    package static func read(_ path: String, limit: Int) throws(FileFailure) -> Data {
        // Never nil when regular files are read too.
        try read(path, limit: limit, readsRegularFile: true) ?? Data()
    }

    /// The bytes of the file an `@FILE`-style argument names, `-` being standard input, as curl
    /// reads `-w @-` and `-b -`.
    /// - Throws: `FileFailure` as `read(_:limit:)`, for `path` (`-` when standard input).
    package static func read(pathOrStandardInput path: String, limit: Int) throws(FileFailure) -> Data {
        path == "-" ? try read(descriptor: 0, limit: limit) : try read(path, limit: limit)
    }

    /// The bytes of the file at `path` when it is not a regular file (a pipe, which can be read only
    /// once and has no length before it is read) or is a regular file of size 0 (the kernel's files
    /// under /proc and /sys, whose size says nothing of their contents); nil for any other regular
    /// file, which was opened, so it exists and is readable, and can be read again or streamed
    /// from its path.
    /// - Parameter limit: The most bytes read from a file that is not regular; more is a `FileFailure`.
    /// - Throws: `FileFailure` as `read(_:limit:)`.
    package static func readUnlessRegular(_ path: String, limit: Int) throws(FileFailure) -> Data? {
        try read(path, limit: limit, readsRegularFile: false)
    }

    /// Records that standard descriptor `fd` (0, 1 or 2) was closed when the process started and
    /// now holds the placeholder pipe end `Console.occupyClosedStandardDescriptors` put there, so
    /// that a path to it (`/dev/stdin`, `/dev/fd/0`, `/proc/self/fd/1`) is refused rather than read.
    /// Reading the placeholder never ends: opening it by path reaches the pipe whose other end the
    /// process itself holds (for 0, the write end: the read waits for ever; for 1 and 2, the
    /// write end is gone: the open waits for a writer for ever).
    package static func noteClosedStandardDescriptor(_ fd: Int32) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return }
        let name = fd == 0 ? "standard input" : fd == 1 ? "standard output" : "standard error"
        closedStandardStreams.withLock { $0.append(ClosedStream(device: info.st_dev, inode: info.st_ino, name: name)) }
    }

    /// A placeholder on a standard descriptor the process was started without.
    private struct ClosedStream {
        let device: dev_t
        let inode: ino_t
        let name: String
    }

    private static let closedStandardStreams = LockedValue<[ClosedStream]>([])

    /// The name of the closed standard stream whose placeholder `info` describes, if it is one.
    private static func closedStandardStream(_ info: stat) -> String? {
        closedStandardStreams.withLock { streams in
            streams.first { $0.device == info.st_dev && $0.inode == info.st_ino }?.name
        }
    }

    private static func read(_ path: String, limit: Int, readsRegularFile: Bool) throws(FileFailure) -> Data? {
        // Before opening: opening the placeholder of a closed standard output waits for ever.
        var target = stat()
        if stat(path, &target) == 0, let stream = closedStandardStream(target) {
            throw FileFailure(.read, path, reason: "it is \(stream), which is closed")
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileFailure(.read, path, errno: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileFailure(.read, path, errno: errno) }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            throw FileFailure(.read, path, errno: EISDIR)
        case S_IFREG where info.st_size == 0:
            return try read(descriptor: fd, path: path, limit: limit, expected: 0)
        case S_IFREG:
            return readsRegularFile ? try read(descriptor: fd, path: path, limit: Int.max, expected: Int(info.st_size)) : nil
        default:
            return try read(descriptor: fd, path: path, limit: limit, expected: 0)
        }
    }

    /// Everything left to read from `fd` (standard input, say), which stays open.
    /// - Parameters:
    ///   - path: What the failure names: `-` (standard input) unless told.
    ///   - limit: The most bytes read; more is a `FileFailure`.
    /// - Throws: `FileFailure` when reading fails or the input holds more than `limit` bytes.
    package static func read(descriptor fd: Int32, path: String = "-", limit: Int) throws(FileFailure) -> Data {
        try read(descriptor: fd, path: path, limit: limit, expected: 0)
    }

    private static func read(descriptor fd: Int32, path: String, limit: Int, expected: Int) throws(FileFailure) -> Data {
        var data = Data()
        if expected > 0 { data.reserveCapacity(expected) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count == 0 { return data }
            if count < 0 {
                if errno == EINTR { continue }
                // Standard input the process was started without (`<&-`), or a write-only descriptor.
                if errno == EBADF { throw FileFailure(.read, path, reason: "it is closed (or open for writing only)") }
                throw FileFailure(.read, path, errno: errno)
            }
            guard data.count + count <= limit else {
                throw FileFailure(.read, path, reason: "it holds more than \(describe(bytes: limit)), the most read from a pipe or other file that is not a regular one")
            }
            data.append(buffer, count: count)
        }
    }

    /// `16 MiB`, `1 GiB`, or a count of bytes.
    private static func describe(bytes: Int) -> String {
        if bytes >= 1 << 30, bytes % (1 << 30) == 0 { return "\(bytes >> 30) GiB" }
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }
}
