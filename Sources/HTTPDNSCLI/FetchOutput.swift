import Foundation
import HTTPDNSCore
#if canImport(Glibc)
    import Glibc
#endif

/// Where `fetch` writes the body: `-o FILE`, checked before any traffic.
enum FetchOutput: Equatable {
    /// Standard output: no `-o`, `-o -`, or an `-o` naming the file standard output already is.
    case standardOutput
    /// Standard error, written through its descriptor: an `-o` naming the file it already is.
    case standardError
    /// A file, written as the library's file destination writes it (`OutputFile`): replaced
    /// atomically when the transfer succeeds, written in place for a device, or, for a file a
    /// rename would fail on or change (other hard links, a directory not writable, another owner), copied
    /// into once the transfer succeeded.
    case file(URL)

    /// Names that are the process's own descriptors 1 and 2, whatever they are open on.
    private static let descriptorNames: [String: Int32] = [
        "/dev/stdout": 1, "/dev/fd/1": 1, "/proc/self/fd/1": 1,
        "/dev/stderr": 2, "/dev/fd/2": 2, "/proc/self/fd/2": 2
    ]

    /// The output for `-o path`; nil or "-" is standard output, as in curl.
    ///
    /// A path that is the file standard output or standard error is open on (by name, as
    /// `/dev/stdout`, or by device and inode, as the file `>` redirected it to) is written through
    /// that descriptor. Replacing it instead would follow `/proc/self/fd/1` to the file and rename
    /// a new one over it, cutting off the shell's own writes around the command, which go on to the
    /// unlinked old file.
    ///
    /// Whether the file can be written is not checked here but by `checkWritable()`: a file that
    /// cannot is a write failure (curl's 23), not bad input.
    /// - Parameter option: The option that named the file, for messages (`-o`, or `-O`).
    /// - Throws: `UsageError` for an empty name (exit 2) or a directory (exit 23, as curl's).
    init(path: String?, option: String = "-o") throws(UsageError) {
        guard let path, path != "-" else {
            self = .standardOutput
            return
        }
        guard !path.isEmpty else { throw UsageError("\(option) needs a file name", command: "fetch") }
        switch Self.descriptorNames[path] ?? Self.standardDescriptor(sameFileAs: path) {
        case 1:
            self = .standardOutput
            return
        case 2:
            self = .standardError
            return
        default:
            break
        }
        let file = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), isDirectory.boolValue {
            // curl's 23: a file that cannot be written, whatever the reason.
            throw OptionValue.refusal(FileFailure(.write, path, errno: EISDIR), option: option, command: "fetch", status: HTTPDNSTool.ExitStatus.writeFailed)
        }
        self = .file(file)
    }

    /// Why the output file cannot be written, found before any traffic (`OutputFile.check`): an
    /// existing file this user may not write, a new one in a directory that is missing or not
    /// writable, a symbolic link protected_symlinks' rule refuses, no usable temporary directory.
    /// nil when it can be, and for standard output and standard error.
    func checkWritable() -> FileFailure? {
        guard case .file(let file) = self else { return nil }
        do {
            try OutputFile.check(path: file.path)
            return nil
        } catch {
            return error.fileFailure
        }
    }

    /// 1 or 2 when `path` is the file (same device and inode) standard output or standard error is
    /// open on, standard output first; nil otherwise or when `path` does not exist.
    private static func standardDescriptor(sameFileAs path: String) -> Int32? {
        var target = stat()
        guard stat(path, &target) == 0 else { return nil }
        return [Int32(1), 2].first { fd in
            var open = stat()
            return fstat(fd, &open) == 0 && open.st_dev == target.st_dev && open.st_ino == target.st_ino
        }
    }
}

/// `-i -o FILE` (or `-v -o FILE`): the response head (with `-i`), then the body, written into FILE,
/// as curl writes them, by the streaming destination's callbacks, so that `-v` can describe the
/// response as its head arrives. It is written as a plain `-o` file is, through the library's file
/// destination, `OutputFile`: a failed transfer leaves FILE as it was (a device is written in place).
///
/// Written by the streaming destination's callbacks (one at a time, on the thread driving the
/// transfer); read by the command once the transfer is over.
final class HeadAndBodyFile: @unchecked Sendable { // the callbacks run one at a time and the command acts after the transfer ended; `state` holds the lock for every access
    private let file: OutputFile
    private struct State {
        var failure: String?
        var done = false
        var onFailure: (@Sendable () -> Void)?
    }
    private let state = LockedValue(State())
    let destinationPath: String

    /// - Throws: `OutputFile.OpenFailure` when the file cannot be created or opened.
    init(replacing path: String) throws(OutputFile.OpenFailure) {
        file = try OutputFile(path: path)
        destinationPath = path
    }

    /// Why a write failed, if one did.
    var failure: String? { state.withLock { $0.failure } }

    /// Has `action` called when a write fails (at once if one has), to stop the transfer.
    func stopOnFailure(_ action: @escaping @Sendable () -> Void) {
        let failed = state.withLock { state -> Bool in
            state.onFailure = action
            return state.failure != nil
        }
        if failed { action() }
    }

    func write(_ data: Data) {
        let stop = state.withLock { state -> (@Sendable () -> Void)? in
            guard state.failure == nil, !state.done else { return nil }
            state.failure = data.withUnsafeBytes { writeFully($0, to: file.fd) }
            return state.failure != nil ? state.onFailure : nil
        }
        stop?()
    }

    /// Puts the file in place. - Returns: nil on success, else why not ("cannot write 'FILE': REASON").
    func commit() -> String? {
        state.withLock { state -> String? in
            guard !state.done else { return nil }
            state.done = true
            return file.commit()
        }
    }

    /// Removes the temporary file unless it was put in place.
    func discard() {
        state.withLock { state in
            guard !state.done else { return }
            state.done = true
            file.discard()
        }
    }
}
