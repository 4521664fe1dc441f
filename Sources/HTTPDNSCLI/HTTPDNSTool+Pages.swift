import Foundation
#if canImport(Glibc)
    import Glibc
#endif

extension HTTPDNSTool {
    /// Writes `httpdns.1` and one page per command into `directory` (created if missing), or the
    /// same pages as Markdown (`httpdns.md`, ...), each replaced atomically.
    /// - Returns: 0, or 23 (curl's write failure) with a message naming the path and the system's reason.
    static func generatePages(in directory: String, markdown: Bool, console: Console) -> Int32 {
        do throws(PageWriteFailure) {
            try makeDirectory(directory)
            for page in [reference] + commands {
                let name = (page.name.isEmpty ? "httpdns" : "httpdns-\(page.name)") + (markdown ? ".md" : ".1")
                try write(markdown ? page.markdownPage() : page.manPage(), to: (directory as NSString).appendingPathComponent(name))
            }
        } catch {
            console.note("httpdns: --generate-\(markdown ? "markdown" : "man"): \(error.reason)")
            return ExitStatus.writeFailed
        }
        return ExitStatus.success
    }

    /// What could not be written, and the system's reason (strerror).
    struct PageWriteFailure: Error {
        let reason: String

        init(_ what: String, path: String) {
            reason = "cannot \(what) '\(path)': \(String(cString: strerror(errno)))"
        }
    }

    /// `mkdir -p`: each missing directory of `path`, made in turn.
    private static func makeDirectory(_ path: String) throws(PageWriteFailure) {
        var made = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            made = (made as NSString).appendingPathComponent(String(component))
            var info = stat()
            if stat(made, &info) == 0 {
                guard info.st_mode & S_IFMT == S_IFDIR else {
                    errno = ENOTDIR
                    throw PageWriteFailure("create the directory", path: made)
                }
                continue
            }
            guard mkdir(made, 0o755) == 0 || errno == EEXIST else { throw PageWriteFailure("create the directory", path: made) }
        }
    }

    /// Writes `text` into a temporary file beside `path`, then renames it over `path`.
    private static func write(_ text: String, to path: String) throws(PageWriteFailure) {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw PageWriteFailure("write", path: path) }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else {
                let failure = PageWriteFailure("write", path: path)
                close(fd)
                unlink(temporary)
                throw failure
            }
            offset += written
        }
        guard close(fd) == 0, rename(temporary, path) == 0 else {
            let failure = PageWriteFailure("write", path: path)
            unlink(temporary)
            throw failure
        }
    }
}
