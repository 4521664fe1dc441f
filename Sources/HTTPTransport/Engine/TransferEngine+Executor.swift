/// The loop as a Swift executor: jobs queued here run on the loop thread between its turns, in
/// the order they were queued.
extension TransferEngine {
    func enqueue(_ job: consuming ExecutorJob) {
        enqueue(.job(UnownedJob(job)))
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    func checkIsolated() {
        precondition(isOnLoop, "httpdns: expected to run on the transfer loop (HTTPClient.executor)")
    }
}
