#if canImport(Glibc)
    import Glibc
#endif

/// A file that cannot be read or written, worded one way wherever it comes from:
/// `cannot read '/nope.pem': No such file or directory`, `cannot write 'out': Is a directory`.
/// The command line puts the option before it (`--cacert: cannot read ...`).
package struct FileFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being done with the file.
    package enum Access: String, Sendable, Hashable {
        case read, write
    }

    package let access: Access
    /// The path as given; `-` for standard input (reading) or standard output (writing).
    package let path: String
    /// Why: `strerror`'s text for a failed call (`No such file or directory`, `Is a directory`,
    /// `Permission denied`), or a phrase for what is not an errno (a pipe longer than a limit).
    package let reason: String

    package init(_ access: Access, _ path: String, reason: String) {
        self.access = access
        self.path = path
        self.reason = reason
    }

    /// The failure of a call on `path` that set `code` (an `errno` value).
    package init(_ access: Access, _ path: String, errno code: Int32) {
        self.init(access, path, reason: String(cString: strerror(code)))
    }

    /// The path in quotes, or the standard stream `-` stands for.
    package var name: String {
        path == "-" ? (access == .read ? "standard input" : "standard output") : "'\(path)'"
    }

    package var description: String { "cannot \(access.rawValue) \(name): \(reason)" }

    /// Checks, reading nothing (a pipe can be read only once), that `path` names a file this
    /// process may read: it exists, is not a directory, and access(2) allows reading it.
    /// - Throws: `FileFailure` with `strerror`'s text (`ENOENT`, `EISDIR`, `EACCES`, ...).
    package static func checkReadable(_ path: String) throws(FileFailure) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw FileFailure(.read, path, errno: errno) }
        guard info.st_mode & S_IFMT != S_IFDIR else { throw FileFailure(.read, path, errno: EISDIR) }
        guard Glibc.access(path, R_OK) == 0 else { throw FileFailure(.read, path, errno: errno) }
    }
}
