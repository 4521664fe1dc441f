import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A download's destination (`-o FILE`, `ResponseBodyDestination.file`): a regular file, or a new
/// one, is replaced atomically through a `FileReplacement`, so that readers never see a partial
/// file; a device, FIFO or socket (`/dev/null`, a terminal) is written in place, since a rename
/// would replace it with a regular file. A symbolic link is followed: its target is what gets
/// written (or replaced, or created), never the link itself. The owner writes to `fd` and then
/// calls `commit` or `discard` once.
package struct OutputFile: Sendable {
    /// Why the destination cannot be written; `description` names the path as given.
    package enum OpenFailure: Error, Sendable, CustomStringConvertible {
        case isDirectory(path: String)
        /// A device or other non-regular file that `open(2)` refused (`reason`: `strerror`).
        case cannotOpen(path: String, reason: String)
        /// The temporary file beside the destination could not be created.
        case cannotCreate(directory: String, reason: String)

        package var description: String {
            switch self {
            case .isDirectory(let path): "cannot write '\(path)': it is a directory"
            case .cannotOpen(let path, let reason): "cannot open '\(path)': \(reason)"
            case .cannotCreate(let directory, let reason): "cannot create a file in '\(directory)': \(reason)"
            }
        }
    }

    private enum Target: Sendable {
        case replacement(FileReplacement)
        case inPlace(fd: Int32, path: String)
    }

    private let target: Target

    /// Opens `path` for writing (see the type's description).
    /// - Throws: `OpenFailure`.
    package init(path requested: String) throws(OpenFailure) {
        let file = URL(fileURLWithPath: requested).followingSymbolicLinks()
        var info = stat()
        if stat(file.path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
            guard (info.st_mode & S_IFMT) != S_IFDIR else { throw .isDirectory(path: requested) }
            let fd = open(file.path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw .cannotOpen(path: requested, reason: String(cString: strerror(errno))) }
            target = .inPlace(fd: fd, path: file.path)
            return
        }
        // Keeps the permissions of a file it replaces (see FileReplacement).
        guard let replacement = FileReplacement(replacing: file.path) else {
            throw .cannotCreate(directory: file.deletingLastPathComponent().path, reason: String(cString: strerror(errno)))
        }
        target = .replacement(replacement)
    }

    /// The descriptor to write to, open until `commit` or `discard`.
    package var fd: Int32 {
        switch target {
        case .replacement(let replacement): replacement.fd
        case .inPlace(let fd, _): fd
        }
    }

    /// The path being written, for messages: the temporary file's, or the device's.
    package var writtenPath: String {
        switch target {
        case .replacement(let replacement): replacement.temporaryPath
        case .inPlace(_, let path): path
        }
    }

    /// Closes the descriptor and puts a replacement in place. No fsync: the rename is what keeps
    /// readers from ever seeing a partial file, and a flush of a large file to a busy disk would
    /// stall the caller (the transfer thread, for the library).
    /// - Returns: nil on success, else why not ("cannot write 'PATH': REASON").
    package func commit() -> String? {
        close(fd)
        guard case .replacement(let replacement) = target, let reason = replacement.commit() else { return nil }
        return "cannot write '\(replacement.destinationPath)': \(reason)"
    }

    /// Closes the descriptor and removes a replacement's temporary file: the destination is left
    /// as it was (a device keeps what was written to it).
    package func discard() {
        close(fd)
        if case .replacement(let replacement) = target { replacement.discard() }
    }
}
