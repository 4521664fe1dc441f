import Foundation
import Testing
import TestSupport

/// The suite's process runner (`Command`): a command that leaves a process behind (which keeps
/// Foundation's exit-watching socket open) is still seen to exit, with its status.
@Suite("Command runner")
struct CommandRunnerTests {
    @Test("a shell that exits 3 with a background child still running returns 3 at once, not after the time-out")
    func exitWithDescendant() throws {
        let start = ContinuousClock.now
        let result = try Command.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "sleep 20 & echo started; exit 3"], timeout: 15)
        #expect(result.status == 3)
        #expect(result.stdoutText == "started\n")
        #expect(ContinuousClock.now - start < .seconds(10), "took \(ContinuousClock.now - start)")
    }

    @Test("a signal's number is the status, as Process.terminationStatus gives it")
    func killedBySignal() throws {
        let result = try Command.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "sleep 20 & kill -KILL $$"], timeout: 15)
        #expect(result.status == 9)
    }
}
