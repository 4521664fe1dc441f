import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// A download's destination (`-o FILE`, `ResponseBodyDestination.file`), written so that a failed
/// transfer never leaves it partial or changed. What is at the path decides how:
///
/// - Nothing: a temporary file beside it (`FileReplacement`), renamed onto it once complete, so
///   readers never see a partial file. The directory must be writable.
/// - A regular file of this process's owner and group (any, as root), its only hard link, in a
///   writable directory: replaced the same way, atomically, with its permissions kept.
/// - A device, FIFO or socket (`/dev/null`, a terminal): written in place, as curl writes it,
///   since a rename would put a regular file in its stead.
/// - Any other regular file, one a rename would fail on or change for others: its directory is
///   not writable, another hard link would keep the old body, or the new file would not get its
///   owner (and a sticky directory such as /tmp refuses to replace another user's file). The body
///   goes to a private temporary file first (beside it when the directory is writable, else in
///   the temporary directory: `TMPDIR`, or /tmp when that is unset or not writable); once complete
///   it is copied into the file's own inode through a descriptor opened without O_CREAT: written
///   over from its start, then cut to the new length, which keeps the inode, every hard link, the
///   mode and the owner, as curl's in-place write keeps them.
///
///   - Warning: That last copy is not atomic: only a rename swaps in whole content at once, and a
///     rename is what this case cannot use. A reader during the copy sees the new body's start
///     over the old body's rest. A copy that fails (the disk full, the file size limit) leaves the
///     file holding the new body's first bytes, up to where the write stopped, then any of the old
///     body beyond them; the temporary file is then kept, the one complete copy, and the error
///     names it. The transfer before the copy never touches the file.
///
/// An existing file this process may not write (access(2) W_OK with the effective ids: read-only
/// to it, a read-only file system, immutable) is refused and left alone, as curl refuses it
/// (CURLE_WRITE_ERROR), even when its directory would allow a rename over it. A symbolic link is
/// followed: its target is what gets written (or replaced, or created), never the link itself.
/// Each link on the way is first held to the kernel's fs.protected_symlinks rule, whatever that
/// setting: one in a sticky, world-writable directory (/tmp) is followed only when it belongs to
/// this process's effective user or to the directory's owner. The path is resolved here, not by
/// the kernel, so without this another user's /tmp/link could send root's write anywhere.
/// The owner writes to `fd` and then calls `commit` or `discard` once.
package struct OutputFile: Sendable {
    /// Why the destination cannot be written; `description` names the path as given.
    package enum OpenFailure: Error, Sendable, CustomStringConvertible {
        case isDirectory(path: String)
        /// An existing file this process may not write (`reason`: `strerror`).
        case notWritable(path: String, reason: String)
        /// The temporary file could not be created: beside the destination (`directory` nil: its
        /// directory is missing or not writable), or in the temporary directory named.
        case cannotCreate(path: String, directory: String?, reason: String)
        /// `link`, a symbolic link on the way to `path`, is one the kernel's protected_symlinks
        /// rule refuses to follow: in a sticky, world-writable directory, and owned by neither
        /// this process's effective user nor the directory's owner.
        case protectedSymlink(path: String, link: String)

        package var description: String { fileFailure.description }

        /// The failure in the shape of every file failure: `cannot write 'PATH': REASON`.
        package var fileFailure: FileFailure {
            switch self {
            case .isDirectory(let path): FileFailure(.write, path, errno: EISDIR)
            case .notWritable(let path, let reason): FileFailure(.write, path, reason: reason)
            case .cannotCreate(let path, nil, let reason): FileFailure(.write, path, reason: reason)
            case .cannotCreate(let path, let directory?, let reason): FileFailure(.write, path, reason: "cannot create a file in '\(directory)': \(reason)")
            case .protectedSymlink(let path, let link):
                FileFailure(
                    .write, path,
                    reason: "refusing to follow the symbolic link '\(link)': it is in a sticky, world-writable directory "
                        + "and owned by neither uid \(geteuid()) nor the directory's owner, as the kernel's protected_symlinks does")
            }
        }
    }

    /// How the destination is written, decided from what is at its path.
    private enum Method {
        case replace
        case inPlace
        case copyAfterwards(stagingDirectory: String)
    }

    private enum Target: Sendable {
        case replacement(FileReplacement)
        case inPlace(fd: Int32, path: String)
        /// `destination` was opened write-only without O_CREAT or O_TRUNC: untouched until commit.
        case copyAfterwards(staging: Int32, stagingPath: String, destination: Int32, path: String)
    }

    private let target: Target

    /// Opens `path` for writing (see the type's description).
    /// - Throws: `OpenFailure`.
    package init(path requested: String) throws(OpenFailure) {
        let file = try Self.resolve(requested)
        // O_NOFOLLOW: a link put in place since `resolve` was not checked.
        switch try Self.method(for: file, requested: requested) {
        case .inPlace:
            let fd = open(file, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW)
            guard fd >= 0 else { throw .notWritable(path: requested, reason: Self.errnoText) }
            target = .inPlace(fd: fd, path: file)
        case .replace:
            // Keeps the permissions of a file it replaces (see FileReplacement).
            guard let replacement = FileReplacement(replacing: file) else {
                throw .cannotCreate(path: requested, directory: nil, reason: Self.errnoText)
            }
            target = .replacement(replacement)
        case .copyAfterwards(let stagingDirectory):
            let destination = open(file, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW)
            guard destination >= 0 else { throw .notWritable(path: requested, reason: Self.errnoText) }
            // 0600: the body may be private, and the temporary directory is shared.
            guard let (staging, stagingPath) = FileReplacement.createTemporaryFile(for: file, in: stagingDirectory, mode: 0o600) else {
                let reason = Self.errnoText
                close(destination)
                let beside = stagingDirectory == (file as NSString).deletingLastPathComponent
                throw .cannotCreate(path: requested, directory: beside ? nil : stagingDirectory, reason: reason)
            }
            target = .copyAfterwards(staging: staging, stagingPath: stagingPath, destination: destination, path: file)
        }
    }

    /// Checks, opening and creating nothing, that `init(path:)` would accept `path` as things
    /// stand: for a caller that refuses an output it cannot write before any traffic.
    /// - Throws: `OpenFailure`.
    package static func check(path requested: String) throws(OpenFailure) {
        _ = try method(for: resolve(requested), requested: requested)
    }

    /// `requested` made absolute with every symbolic link followed, component by component as the
    /// kernel walks it, each link first held to protected_symlinks' rule (see the type). A missing
    /// component ends the walk: the rest is kept as written, for `method` to report.
    /// - Throws: `OpenFailure.protectedSymlink`; `.notWritable` (ELOOP) after 40 links.
    private static func resolve(_ requested: String) throws(OpenFailure) -> String {
        var pending = requested.hasPrefix("/") ? requested : FileManager.default.currentDirectoryPath + "/" + requested
        var resolved: [String] = []
        var followed = 0
        var remaining = pending.split(separator: "/", omittingEmptySubsequences: true).map(String.init)[...]
        func path(_ components: some Collection<String>) -> String { "/" + components.joined(separator: "/") }
        while let component = remaining.popFirst() {
            if component == "." { continue }
            if component == ".." { _ = resolved.popLast(); continue }
            let candidate = path(resolved + [component])
            var link = stat()
            guard lstat(candidate, &link) == 0 else {
                resolved.append(component)
                resolved.append(contentsOf: remaining)
                break
            }
            guard (link.st_mode & S_IFMT) == S_IFLNK else {
                resolved.append(component)
                continue
            }
            followed += 1
            guard followed <= 40 else { throw .notWritable(path: requested, reason: String(cString: strerror(ELOOP))) }
            var directory = stat()
            if lstat(path(resolved), &directory) == 0, directory.st_mode & S_ISVTX != 0, directory.st_mode & S_IWOTH != 0,
                link.st_uid != geteuid(), link.st_uid != directory.st_uid
            {
                throw .protectedSymlink(path: requested, link: candidate)
            }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(candidate, &buffer, Int(PATH_MAX))
            guard count >= 0 else { throw .notWritable(path: requested, reason: errnoText) }
            pending = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if pending.hasPrefix("/") { resolved.removeAll() }
            remaining = (pending.split(separator: "/", omittingEmptySubsequences: true).map(String.init) + remaining)[...]
        }
        return path(resolved)
    }

    /// How `file` (symbolic links already followed) is to be written, after the permission checks.
    private static func method(for file: String, requested: String) throws(OpenFailure) -> Method {
        let directory = (file as NSString).deletingLastPathComponent
        var info = stat()
        guard stat(file, &info) == 0 else {
            guard mayCreateFiles(in: directory) else { throw .cannotCreate(path: requested, directory: nil, reason: errnoText) }
            return .replace
        }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw .isDirectory(path: requested) }
        guard faccessat(AT_FDCWD, file, W_OK, AT_EACCESS) == 0 else { throw .notWritable(path: requested, reason: errnoText) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .inPlace }
        let directoryWritable = mayCreateFiles(in: directory)
        if directoryWritable, info.st_nlink == 1, replacementKeepsOwner(of: info) { return .replace }
        return .copyAfterwards(stagingDirectory: directoryWritable ? directory : try temporaryDirectory(for: requested))
    }

    /// Where a temporary file goes when it cannot go beside the destination: `TMPDIR`, or /tmp when
    /// `TMPDIR` is unset, empty or not a directory this process may create files in.
    /// - Throws: `OpenFailure.cannotCreate` for /tmp when neither will do, naming `requested`.
    private static func temporaryDirectory(for requested: String) throws(OpenFailure) -> String {
        if let variable = ProcessInfo.processInfo.environment["TMPDIR"], !variable.isEmpty, mayCreateFiles(in: variable) {
            return variable
        }
        guard mayCreateFiles(in: "/tmp") else { throw .cannotCreate(path: requested, directory: "/tmp", reason: errnoText) }
        return "/tmp"
    }

    /// Whether this process may create (and rename) files in `directory`; when not, `errno` says why.
    private static func mayCreateFiles(in directory: String) -> Bool {
        faccessat(AT_FDCWD, directory, W_OK | X_OK, AT_EACCESS) == 0
    }

    /// Whether a new file this process creates can be given `info`'s owner and group (fchown(2):
    /// root may give any; another process only its own user and one of its groups).
    private static func replacementKeepsOwner(of info: stat) -> Bool {
        let user = geteuid()
        if user == 0 { return true }
        guard info.st_uid == user else { return false }
        if info.st_gid == getegid() { return true }
        let count = getgroups(0, nil)
        guard count > 0 else { return false }
        var groups = [gid_t](repeating: 0, count: Int(count))
        let filled = getgroups(count, &groups)
        return filled > 0 && groups.prefix(Int(filled)).contains(info.st_gid)
    }

    private static var errnoText: String { String(cString: strerror(errno)) }

    /// The descriptor to write to, open until `commit` or `discard`.
    package var fd: Int32 {
        switch target {
        case .replacement(let replacement): replacement.fd
        case .inPlace(let fd, _): fd
        case .copyAfterwards(let staging, _, _, _): staging
        }
    }

    /// The path being written, for messages: the temporary file's, or the device's.
    package var writtenPath: String {
        switch target {
        case .replacement(let replacement): replacement.temporaryPath
        case .inPlace(_, let path): path
        case .copyAfterwards(_, let stagingPath, _, _): stagingPath
        }
    }

    /// Closes the descriptors and puts the body in place: renames a replacement, or copies the
    /// temporary file into the destination. No fsync: the rename is what keeps readers from ever
    /// seeing a partial file, and a flush of a large file to a busy disk would stall the caller
    /// (the transfer thread, for the library).
    /// - Returns: nil on success, else why not ("cannot write 'PATH': REASON"). A copy that fails
    ///   keeps its temporary file, and the message ends "; the complete body is in 'TEMPORARY'".
    package func commit() -> String? {
        switch target {
        case .inPlace(let fd, _):
            close(fd)
            return nil
        case .replacement(let replacement):
            close(replacement.fd)
            guard let reason = replacement.commit() else { return nil }
            return "cannot write '\(replacement.destinationPath)': \(reason)"
        case .copyAfterwards(let staging, let stagingPath, let destination, let path):
            defer {
                close(staging)
                close(destination)
            }
            // Written over, then cut: truncating first would free the old body's blocks before
            // the new one is in, and leave nothing of either when the copy stops.
            if let reason = Self.copy(staging, over: destination) {
                // The temporary file is now the only complete copy of the body: never removed here.
                return "cannot write '\(path)': \(reason); it holds the new body's start, and the complete body is in '\(stagingPath)'"
            }
            unlink(stagingPath)
            return nil
        }
    }

    /// Writes all of `source` over `destination` from offset 0 (pread/pwrite: neither offset
    /// moves), then cuts `destination` to that length.
    /// - Returns: nil on success, else the reason (`strerror`).
    private static func copy(_ source: Int32, over destination: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var offset: off_t = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(source, $0.baseAddress, $0.count, offset) }
            if count < 0 {
                if errno == EINTR { continue }
                return errnoText
            }
            if count == 0 { break }
            var written = 0
            while written < count {
                let result = buffer.withUnsafeBytes { pwrite(destination, $0.baseAddress! + written, count - written, offset + off_t(written)) }
                if result < 0 {
                    if errno == EINTR { continue }
                    return errnoText
                }
                written += result
            }
            offset += off_t(count)
        }
        while ftruncate(destination, offset) != 0 {
            if errno != EINTR { return errnoText }
        }
        return nil
    }

    /// Closes the descriptors and removes any temporary file: the destination is left as it was
    /// (a device keeps what was written to it).
    package func discard() {
        switch target {
        case .inPlace(let fd, _):
            close(fd)
        case .replacement(let replacement):
            close(replacement.fd)
            replacement.discard()
        case .copyAfterwards(let staging, let stagingPath, let destination, _):
            close(staging)
            close(destination)
            unlink(stagingPath)
        }
    }
}
