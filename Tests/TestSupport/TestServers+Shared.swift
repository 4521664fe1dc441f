import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

extension TestServers {
    /// Starts the servers the first time it is called in this process (`scripts/test-servers.sh
    /// start` in a fresh temporary directory) and returns the same servers on every later call,
    /// from any thread. They are stopped when the process exits; if it dies without running its
    /// exit handlers, a watchdog left by the script stops them within a second or so.
    ///
    /// Set `HTTPDNS_KEEP_TEST_SERVERS=1` to keep the directory (logs, configuration) after exit.
    /// Set `HTTPDNS_TEST_SERVERS_DIR` to a directory `scripts/test-servers.sh start DIR` prepared to
    /// use those servers instead (left running at exit): for tools that cannot start processes,
    /// such as the benchmark under valgrind.
    /// - Returns: The running servers.
    /// - Throws: `TestServersError.startFailed` with the script's message (which names the missing
    ///   Debian package or shows the failing server's log); the same error on every later call.
    public static func shared() throws -> TestServers {
        try state.withLock { (state: inout Result<TestServers, TestServersError>?) throws(TestServersError) -> TestServers in
            if let state { return try state.get() }
            if let directory = ProcessInfo.processInfo.environment["HTTPDNS_TEST_SERVERS_DIR"], !directory.isEmpty {
                let result = Result { () throws(TestServersError) -> TestServers in
                    try TestServers(directory: URL(fileURLWithPath: directory, isDirectory: true))
                }
                state = result // no exit handler: they are someone else's to stop
                return try result.get()
            }
            let result = Result { () throws(TestServersError) -> TestServers in try start() }
            state = result
            atexit { TestServers.stopShared() }
            return try result.get()
        }
    }

    /// The one start per process, or its failure.
    fileprivate static let state = Mutex<Result<TestServers, TestServersError>?>(nil)

    fileprivate static func start() throws(TestServersError) -> TestServers {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("httpdns-servers-\(getpid())-\(UInt32.random(in: 0...UInt32.max))", isDirectory: true)
        let script = PackagePaths.scripts.appendingPathComponent("test-servers.sh")
        do {
            let result = try Command.run(
                URL(fileURLWithPath: "/bin/bash"),
                [script.path, "start", directory.path],
                environment: ["TEST_SERVERS_OWNER_PID": String(getpid())],
                timeout: 120
            )
            guard result.status == 0 else {
                throw TestServersError.startFailed(directory: directory.path, status: result.status, output: result.stderrText)
            }
        } catch let error as TestServersError {
            throw error
        } catch {
            throw TestServersError.startFailed(directory: directory.path, status: -1, output: "\(error)")
        }
        return try TestServers(directory: directory)
    }

    fileprivate static func stopShared() {
        guard case .success(let servers)? = state.withLock({ $0 }) else { return }
        let script = PackagePaths.scripts.appendingPathComponent("test-servers.sh")
        _ = try? Command.run(URL(fileURLWithPath: "/bin/bash"), [script.path, "stop", servers.directory.path], timeout: 30)
        if ProcessInfo.processInfo.environment["HTTPDNS_KEEP_TEST_SERVERS"] != "1" {
            try? FileManager.default.removeItem(at: servers.directory)
        }
    }
}
