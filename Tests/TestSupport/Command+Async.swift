import Foundation

extension Command {
    /// `run` on a thread of its own, awaited: the child's whole lifetime is spent waiting, and blocking a
    /// thread of Swift's cooperative pool (two on a two-core machine) for it stalls every other test,
    /// which timing tests then measure.
    public static func runDetached(
        _ executable: URL,
        _ arguments: [String],
        environment: [String: String]? = nil,
        stdin: Data? = nil,
        timeout: TimeInterval = 60
    ) async throws -> CommandResult {
        try await withCheckedThrowingContinuation { continuation in
            // A thread of its own: Dispatch's global queues have one thread per core and may be busy.
            Thread {
                continuation.resume(with: Result { try run(executable, arguments, environment: environment, stdin: stdin, timeout: timeout) })
            }.start()
        }
    }
}
