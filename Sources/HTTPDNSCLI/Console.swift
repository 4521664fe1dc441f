import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where a command writes: the body to `output`, messages to `error`. Injected so tests can run
/// commands in-process.
public struct Console: Sendable {
    public var output: @Sendable (Data) -> Void
    public var error: @Sendable (String) -> Void

    public init(output: @escaping @Sendable (Data) -> Void, error: @escaping @Sendable (String) -> Void) {
        self.output = output
        self.error = error
    }

    /// The process's standard output and standard error. Output that cannot be written (a closed
    /// pipe, a full disk) ends the process with curl's status 23 ("failed writing output") instead
    /// of a crash.
    public static let standard = Console(
        output: { data in
            guard writeAll(data, to: 1) else {
                let reason = String(cString: strerror(errno))
                _ = writeAll(Data("httpdns: writing the output failed: \(reason)\n".utf8), to: 2)
                exit(23)
            }
        },
        error: { _ = writeAll(Data($0.utf8), to: 2) })

    /// write(2) until done; false on an error other than EINTR.
    private static func writeAll(_ data: Data, to fd: Int32) -> Bool {
        data.withUnsafeBytes { raw -> Bool in
            guard let base = raw.baseAddress else { return true }
            var offset = 0
            while offset < raw.count {
                let written = write(fd, base + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }

    func print(_ line: String) { output(Data((line + "\n").utf8)) }
    func note(_ line: String) { error(line + "\n") }
}
