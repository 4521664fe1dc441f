import Foundation
#if canImport(Glibc)
    import Glibc
#endif

extension URL {
    /// The file a write to this path should replace: the final target when the path is (or passes
    /// through) a symbolic link, also a target that does not exist yet; the path itself otherwise.
    /// Writers that replace a file atomically (a temporary file, then rename) use it so that a link
    /// is followed rather than replaced by a regular file, as `open(2)` would follow it.
    public func followingSymbolicLinks() -> URL {
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return URL(fileURLWithPath: String(cString: resolved))
        }
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) {
            return URL(fileURLWithPath: target, relativeTo: deletingLastPathComponent()).standardizedFileURL
        }
        return self
    }
}
