import Foundation
import Dispatch
#if canImport(Glibc)
    import Glibc
#endif

/// Turns SIGINT and SIGTERM into cancellation of one task while it runs, so a transfer stops
/// cleanly (its temporary output file removed) instead of the process dying mid-write.
final class SignalInterruption: @unchecked Sendable { // `received` is guarded by `lock`; sources are touched only in init/stop
    private var sources: [DispatchSourceSignal] = []
    private let lock = NSLock()
    private var received: Int32?

    init<Success, Failure>(cancelling task: Task<Success, Failure>) {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [weak self] in
                self?.lock.withLock { self?.received = self?.received ?? signalNumber }
                task.cancel()
            }
            source.resume()
            sources.append(source)
        }
    }

    /// 128 + the signal that interrupted the task, or nil when none did.
    var exitStatus: Int32? { lock.withLock { received.map { 128 + $0 } } }

    /// Restores the default signal handling.
    func stop() {
        for source in sources { source.cancel() }
        sources.removeAll()
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
