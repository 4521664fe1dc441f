import Foundation

/// Why `Command.run` produced no `CommandResult`.
public enum CommandError: Error, Sendable, CustomStringConvertible {
    /// The executable could not be started (missing, not executable, ...).
    case launchFailed(executable: String, reason: String)
    /// The process ran longer than the timeout and was killed; what it wrote until then is kept.
    /// `leftDescendants`: it had in fact exited, but a process it left running kept the descriptors
    /// it inherited (a daemon must close them, as `scripts/test-servers.sh` does).
    case timedOut(executable: String, arguments: [String], seconds: TimeInterval, partial: CommandResult, leftDescendants: Bool)
    /// A temporary file for the process's input or output could not be made.
    case temporaryFile(path: String, reason: String)

    public var description: String {
        switch self {
        case .launchFailed(let executable, let reason):
            "could not start \(executable): \(reason)"
        case .timedOut(let executable, let arguments, let seconds, let partial, let leftDescendants):
            "\(executable) \(arguments.joined(separator: " ")) did not finish within \(seconds) s and was killed"
                + (leftDescendants ? " (it had exited, but a process it started still holds its inherited descriptors)" : "")
                + "; stderr so far: \(partial.stderrText.suffix(2000))"
        case .temporaryFile(let path, let reason):
            "could not create temporary file \(path): \(reason)"
        }
    }
}
