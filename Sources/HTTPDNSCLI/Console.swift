import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// Where a command writes: the body to `output`, messages to `error`, a body sent to standard
/// error (`fetch -o /dev/stderr`) to `errorOutput`. Injected so tests can run commands in-process.
public struct Console: Sendable {
    public var output: @Sendable (Data) -> Void
    public var error: @Sendable (String) -> Void
    /// Bytes for standard error, byte-exact.
    public var errorOutput: @Sendable (Data) -> Void

    /// - Parameter errorOutput: by default the bytes go to `error` as UTF-8 text.
    public init(
        output: @escaping @Sendable (Data) -> Void, error: @escaping @Sendable (String) -> Void,
        errorOutput: (@Sendable (Data) -> Void)? = nil
    ) {
        self.output = output
        self.error = error
        self.errorOutput = errorOutput ?? { error(String(decoding: $0, as: UTF8.self)) }
    }

    /// The process's standard output and standard error. Output that cannot be written (a closed
    /// pipe, a full disk, a stream the process was started without) ends the process with curl's
    /// status 23 ("failed writing output") instead of a crash.
    public static let standard = Console(
        output: { writeOutput($0, to: 1) },
        error: { _ = writeAll(Data($0.utf8), to: 2) },
        errorOutput: { writeOutput($0, to: 2) })

    /// Writes a body to `fd`, or ends the process with status 23.
    private static func writeOutput(_ data: Data, to fd: Int32) {
        guard writeAll(data, to: fd) else {
            // EBADF: started with the stream closed (see `occupyClosedStandardDescriptors`).
            let message =
                errno == EBADF
                ? "cannot write to standard \(fd == 1 ? "output" : "error"): it is closed (or open for reading only)"
                : "writing the output failed: \(String(cString: strerror(errno)))"
            _ = writeAll(Data("httpdns: \(message)\n".utf8), to: 2)
            exit(23)
        }
    }

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
