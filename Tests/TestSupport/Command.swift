import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a child process to completion and collects its output.
public enum Command {
    /// Runs `executable` with `arguments` and waits for it to exit.
    ///
    /// Standard input, output and error go through temporary files rather than pipes: output of any
    /// size cannot fill a pipe and deadlock, and nothing waits for an end of file on them.
    ///
    /// A command that exits while a process it started (or one another test spawned meanwhile)
    /// still holds Foundation's exit-watching socket is seen to exit all the same: its status is
    /// read from `/proc` while it waits to be reaped.
    ///
    /// - Parameters:
    ///   - executable: Absolute path of the program (no `PATH` search).
    ///   - arguments: Arguments after the program name.
    ///   - environment: Variables set on top of this process's environment; `nil` inherits it unchanged.
    ///   - stdin: Bytes the process reads on standard input; `nil` gives it an empty input.
    ///   - timeout: Seconds to wait before the process is sent SIGTERM, then SIGKILL 2 s later.
    /// - Returns: The exit status and everything written to standard output and error. A non-zero
    ///   status is not an error: check `status`.
    /// - Throws: `CommandError.launchFailed` when the program cannot be started,
    ///   `CommandError.timedOut` (with the output so far) when it outlives `timeout`, and
    ///   `CommandError.temporaryFile` when the I/O files cannot be made.
    public static func run(
        _ executable: URL,
        _ arguments: [String],
        environment: [String: String]? = nil,
        stdin: Data? = nil,
        timeout: TimeInterval = 60
    ) throws -> CommandResult {
        let files = try IOFiles(stdin: stdin ?? Data())
        defer { files.remove() }

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.standardInput = files.input
        process.standardOutput = files.output
        process.standardError = files.error

        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do {
            try process.run()
        } catch {
            throw CommandError.launchFailed(executable: executable.path, reason: "\(error)")
        }

        // Foundation sees an exit only when a socket it passed to the child reaches end of file; a
        // process another thread of this test process spawned meanwhile can inherit that socket and
        // keep it open for its whole life. So the child is also watched for having exited (a zombie,
        // not reaped: Foundation reaps it), and its status read from /proc.
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if exited.wait(timeout: .now() + 0.25) == .success {
                return CommandResult(status: process.terminationStatus, stdout: files.readOutput(), stderr: files.readError())
            }
            if let status = Self.exitStatusOfZombie(process.processIdentifier) {
                return CommandResult(status: status, stdout: files.readOutput(), stderr: files.readError())
            }
        }

        // Foundation notices an exit when a socket it passed to the child reaches end of file, so a
        // child that exited while something it started still holds that socket looks alive.
        let exitedAlready = Self.isZombie(process.processIdentifier)
        process.terminate()
        if exited.wait(timeout: .now() + 2) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            _ = exited.wait(timeout: .now() + 5) // bounded: the socket may still be held elsewhere
        }
        let partial = CommandResult(status: -1, stdout: files.readOutput(), stderr: files.readError())
        throw CommandError.timedOut(
            executable: executable.path, arguments: arguments, seconds: timeout, partial: partial,
            leftDescendants: exitedAlready
        )
    }

    /// The exit status of `pid` when it has exited but not been reaped (state `Z`): `/proc/PID/stat`'s
    /// field 52, `exit_code`, in waitpid(2)'s form, as `Process.terminationStatus` gives it (the exit
    /// code, or the signal number); nil while it runs.
    private static func exitStatusOfZombie(_ pid: Int32) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // Field 3 (state) is the first after the name; field 52 (exit_code) is the 50th after it.
        guard fields.first == "Z", fields.count >= 50, let code = Int32(fields[49].trimmingCharacters(in: .whitespacesAndNewlines)) else { return nil }
        return code & 0x7F == 0 ? (code >> 8) & 0xFF : code & 0x7F
    }

    /// Whether `pid` has exited but not been reaped (state `Z` in `/proc/PID/stat`).
    private static func isZombie(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }
}

/// The three temporary files that stand in for a child's standard streams.
private struct IOFiles {
    let directory: URL
    let input: FileHandle
    let output: FileHandle
    let error: FileHandle

    init(stdin: Data) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("httpdns-command-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try stdin.write(to: directory.appendingPathComponent("stdin"))
            try Data().write(to: directory.appendingPathComponent("stdout"))
            try Data().write(to: directory.appendingPathComponent("stderr"))
            input = try FileHandle(forReadingFrom: directory.appendingPathComponent("stdin"))
            output = try FileHandle(forWritingTo: directory.appendingPathComponent("stdout"))
            error = try FileHandle(forWritingTo: directory.appendingPathComponent("stderr"))
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw CommandError.temporaryFile(path: directory.path, reason: "\(error)")
        }
    }

    func readOutput() -> Data { (try? Data(contentsOf: directory.appendingPathComponent("stdout"))) ?? Data() }
    func readError() -> Data { (try? Data(contentsOf: directory.appendingPathComponent("stderr"))) ?? Data() }

    func remove() {
        try? input.close()
        try? output.close()
        try? error.close()
        try? FileManager.default.removeItem(at: directory)
    }
}
