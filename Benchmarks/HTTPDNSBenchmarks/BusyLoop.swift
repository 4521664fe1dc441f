// --busy-core: a process spinning on one core beside a workload, as another program on a shared
// machine would be. It is this binary re-executed with `--busy-loop-child`, started before a
// workload and stopped after it.
//
// Its CPU time is kept out of the workload's figures: `Rounds` counts this process and the children
// it has reaped (RUSAGE_CHILDREN, for the curl tool), and the spinner is reaped only once the
// workload's last round is over, so its time lands in RUSAGE_CHILDREN between two measurements.
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

struct BusyLoop: Sendable {
    static let childFlag = "--busy-loop-child"

    /// The CPU the spinner is pinned to (`taskset -c`), or nil to let the scheduler move it.
    let cpu: Int?

    /// A one-line description for the output.
    var description: String { cpu.map { "a spinning process pinned to CPU \($0)" } ?? "a spinning process, not pinned" }

    /// Runs `body` with the spinner running; stops and reaps it afterwards, also when `body` throws.
    /// - Throws: `BenchmarkFailure` when the spinner cannot be started; whatever `body` throws.
    func around<Value>(_ body: () async throws -> Value) async throws -> Value {
        let pid = try start()
        defer {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }
        return try await body()
    }

    private func start() throws -> pid_t {
        let binary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        // taskset execs the spinner in its own process, so the pid is still the spinner's.
        let arguments = (cpu.map { [Self.taskset, "-c", String($0)] } ?? []) + [binary, Self.childFlag, String(getpid())]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
        guard spawned == 0 else { throw BenchmarkFailure("cannot start the busy loop: \(String(cString: strerror(spawned)))") }
        return pid
    }

    static let taskset = "/usr/bin/taskset"

    /// The spinner: `--busy-loop-child PARENT`. Spins until killed, or until PARENT is no longer its
    /// parent, so a benchmark that crashes does not leave a core busy.
    static func runChild(_ arguments: [String]) -> Never {
        guard let index = arguments.firstIndex(of: childFlag), index + 1 < arguments.count, let parent = pid_t(arguments[index + 1]) else { exit(2) }
        // Nothing of the parent's: a socket held here would outlive its transfer. Nothing of this
        // process runs after this but the loop.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            if let fd = Int32(name), fd > 2 { close(fd) }
        }
        // An atomic the optimizer must keep (an empty loop may be folded away); getppid once in a
        // while (about every millisecond) is the only system call.
        let counter = Atomic<UInt64>(0)
        while true {
            for _ in 0..<1_000_000 { counter.add(1, ordering: .relaxed) }
            if getppid() != parent { exit(0) }
        }
    }
}
