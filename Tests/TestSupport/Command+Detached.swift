import Foundation

extension Command {
    /// `run` for async tests: waits for the program on a thread of its own. Waiting on a
    /// cooperative (or Dispatch worker) thread would hold one of the few that every async test in
    /// the process shares (two on a two-core machine), stalling tests that time themselves.
    /// - Returns: As `run`.
    /// - Throws: As `run`.
    public static func runDetached(
        _ executable: URL,
        _ arguments: [String],
        environment: [String: String]? = nil,
        stdin: Data? = nil,
        timeout: TimeInterval = 60
    ) async throws -> CommandResult {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    try run(executable, arguments, environment: environment, stdin: stdin, timeout: timeout)
                })
            }.start()
        }
    }
}
