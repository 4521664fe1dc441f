import Foundation
import HTTPDNSCore

extension FileContents {
    /// The most bytes read from a certificate, key or pin file that is not a regular file (a
    /// pipe, as `--cacert <(command)`): far more than any real bundle (Mozilla's is about 220 KB).
    static let trustFileLimit = 16 << 20

    /// The bytes of a certificate, key or identity file: a regular file, or a FIFO, `/dev/fd/N` or
    /// `/dev/stdin`, read once (curl reads those too).
    /// - Throws: `TrustError.unreadableFile` naming the path and why ("no such file", "is a
    ///   directory", "permission denied", longer than `trustFileLimit`).
    static func trustFile(_ path: String) throws(TrustError) -> Data {
        do {
            return try read(path, limit: trustFileLimit)
        } catch {
            throw TrustError.unreadableFile(path: path, reason: error.reason)
        }
    }
}
