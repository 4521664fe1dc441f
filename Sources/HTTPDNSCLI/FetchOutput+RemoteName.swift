import Foundation
import HTTPDNSCore

extension FetchOutput {
    /// `-O`: the body goes to a file in the current directory named after the URL
    /// (`remoteName(of:)`), written as `-o` writes its file (replaced atomically when the transfer
    /// succeeds, never left partial).
    /// - Throws: `UsageError` with status 23, curl's, for a URL whose path names no file (it ends
    ///   in `/`, or is empty); else the refusals of `init(path:option:)` (status 2).
    init(remoteNameOf url: URL) throws(UsageError) {
        guard let name = Self.remoteName(of: url) else {
            throw UsageError(
                "-O: remote file name has no length: '\(url.redactedString)' has no file name after the last '/' of its path; name the file with -o FILE",
                command: "fetch", status: HTTPDNSTool.ExitStatus.writeFailed)
        }
        // "./": a name such as "-" is a file here, never standard output.
        try self.init(path: "./" + name, option: "-O")
    }

    /// The file name curl 7.88's `-O` takes from `url`: the last segment of its path as written,
    /// percent-encoding kept (`/a/b%20c.txt?x=1` gives `b%20c.txt`), never a directory from the
    /// URL. (A `\` typed in the URL reaches this percent-encoded, `%5C`, and stays in the name,
    /// where curl splits on it: `/a\b` writes `a%5Cb`, curl `b`.) nil when there is none: the path ends in `/`, is empty,
    /// or ends in a dot segment, which curl removes (`/a/..` is `/`, RFC 3986 §5.2.4).
    static func remoteName(of url: URL) -> String? {
        let path = url.path(percentEncoded: true)
        let segment = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        let name = segment
        guard !name.isEmpty, name != ".", name != ".." else { return nil }
        return String(name)
    }
}
