import Foundation

extension Command {
    /// `run` on a Dispatch thread, awaited: the child's whole lifetime is spent waiting, and blocking a
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
            DispatchQueue.global().async {
                continuation.resume(with: Result { try run(executable, arguments, environment: environment, stdin: stdin, timeout: timeout) })
            }
        }
    }
}
