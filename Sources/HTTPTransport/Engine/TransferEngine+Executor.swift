/// The loop as a Swift task executor: jobs of tasks that prefer it (`withTaskExecutorPreference`)
/// run on the loop thread between its turns, in the order they were queued. They run as
/// nonisolated code on it, so a request's nonisolated async calls stay on the loop without a new
/// job per call (run isolated to a serial executor, each such call would queue one).
extension TransferEngine {
    func enqueue(_ job: consuming ExecutorJob) {
        enqueue(.job(UnownedJob(job)))
    }

    func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }
}

/// The loop as a serial executor, for actors that should share its thread
/// (`HTTPClient.serialExecutor`): their jobs run on the loop thread, isolated to this executor,
/// with the loop as their task executor.
final class LoopSerialExecutor: SerialExecutor {
    /// The one loop of the process (`TransferEngine.shared`, whose executor this is).
    private var loop: TransferEngine { .shared }

    func enqueue(_ job: consuming ExecutorJob) {
        loop.enqueue(.isolatedJob(UnownedJob(job)))
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func checkIsolated() {
        precondition(loop.isOnLoop, "httpdns: expected to run on the transfer loop (HTTPClient.serialExecutor)")
    }
}
