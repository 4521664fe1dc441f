import Foundation

/// Runs an operation `count` times, `width` at a time (each lane takes every `width`-th turn).
enum Lanes {
    /// - Returns: Operations per second over the whole run.
    static func perSecond(count: Int, width: Int, _ operation: @escaping @Sendable () async throws -> Void) async throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<width {
                group.addTask {
                    var index = lane
                    while index < count {
                        try await operation()
                        index += width
                    }
                }
            }
            try await group.waitForAll()
        }
        return Double(count) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
}
