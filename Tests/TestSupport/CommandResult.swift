import Foundation

/// What a finished child process left behind.
public struct CommandResult: Sendable {
    /// The exit status, or the signal number when the process was killed by a signal (see
    /// `Process.terminationReason`).
    public let status: Int32
    /// Everything the process wrote to standard output.
    public let stdout: Data
    /// Everything the process wrote to standard error.
    public let stderr: Data

    public init(status: Int32, stdout: Data, stderr: Data) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }

    /// `stdout` decoded as UTF-8 (invalid sequences repaired).
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    /// `stderr` decoded as UTF-8 (invalid sequences repaired).
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}
