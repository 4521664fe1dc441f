import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// A temporary file beside a destination, to be renamed onto it once complete, so that readers
/// never see a partial file: the `-o` output and the resolver's cache file.
///
/// It is created close-on-exec, with the permissions (and, where the process may set it, the
/// owner) of the file it will replace, or those a new file gets (0666 less the umask): a private
/// 0600 file stays private, as when curl truncates it in place.
package struct FileReplacement: Sendable {
    /// Open for writing; the owner closes it.
    package let fd: Int32
    package let temporaryPath: String
    package let destinationPath: String

    /// Creates the temporary file in `destinationPath`'s directory.
    /// - Returns: nil with `errno` set when the file cannot be created.
    package init?(replacing destinationPath: String) {
        let directory = (destinationPath as NSString).deletingLastPathComponent
        // Created 0666 less the umask by the kernel: reading the umask (umask(0), then back) would
        // change it for every thread of the process meanwhile, and another thread's new file could
        // get 0666.
        guard let (fd, path) = Self.createTemporaryFile(for: destinationPath, in: directory, mode: 0o666) else { return nil }
        var existing = stat()
        if stat(destinationPath, &existing) == 0 {
            _ = fchmod(fd, existing.st_mode & 0o7777)
            _ = fchown(fd, existing.st_uid, existing.st_gid)
        }
        self.fd = fd
        self.temporaryPath = path
        self.destinationPath = destinationPath
    }

    /// Creates a new file `.NAME.httpdns-RANDOM` in `directory` (NAME: `destinationPath`'s last
    /// component), open for reading and writing, close-on-exec, with `mode` less the umask.
    /// O_EXCL with a random name, as mkstemp, which has no mode and no O_CLOEXEC.
    /// - Returns: the descriptor and the path; nil with `errno` set when no file can be created.
    package static func createTemporaryFile(for destinationPath: String, in directory: String, mode: mode_t) -> (fd: Int32, path: String)? {
        let name = (destinationPath as NSString).lastPathComponent
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        for _ in 0..<100 {
            let suffix = String((0..<12).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] })
            let path = "\(directory.isEmpty ? "." : directory)/.\(name).httpdns-\(suffix)"
            let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode)
            if fd >= 0 { return (fd, path) }
            if errno != EEXIST { return nil }
        }
        return nil
    }

    /// Renames the temporary file onto the destination; on failure removes it.
    /// - Returns: nil on success, else the reason (`strerror`).
    package func commit() -> String? {
        guard rename(temporaryPath, destinationPath) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            return reason
        }
        return nil
    }

    /// Removes the temporary file (the destination is left as it was).
    package func discard() {
        unlink(temporaryPath)
    }
}

/// Writes all of `bytes` to `fd`, retrying short writes and EINTR.
/// - Returns: nil on success, else the reason (`strerror`).
package func writeFully(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> String? {
    var offset = 0
    while offset < bytes.count {
        let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if written < 0 {
            if errno == EINTR { continue }
            return String(cString: strerror(errno))
        }
        offset += written
    }
    return nil
}
