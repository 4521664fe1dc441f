import Foundation

/// Runs `count` operations `width` at a time: `width` tasks, each taking every `width`-th turn.
enum Lanes {
    static func run(count: Int, width: Int, _ operation: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<width {
                group.addTask {
                    var turn = lane
                    while turn < count {
                        try await operation()
                        turn += width
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// `run`, timed.
    /// - Returns: Operations per second over the whole run.
    static func perSecond(count: Int, width: Int, _ operation: @escaping @Sendable () async throws -> Void) async throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try await run(count: count, width: width, operation)
        return Double(count) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
}
