/// Runs `count` operations `width` at a time: `width` tasks, each running its share one after another.
enum Lanes {
    static func run(count: Int, width: Int, _ operation: @escaping @Sendable () async throws -> Void) async throws {
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
    }
}
