import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Starts one of the suite's Python helpers (`scripts/*.py`) as a child of the test process on a free
/// loopback port, waits for it to print `ready`, and leaves it running: the helpers exit when the test
/// process does (`--owner-pid`).
enum BackgroundScript {
    /// Runs `start` on a thread of its own the first time and hands every caller its result: the start
    /// blocks (it waits for a child process), so it must not hold a thread of the cooperative pool.
    static func once<Value: Sendable>(_ slot: borrowing Mutex<Task<Value, any Error>?>, _ start: @escaping @Sendable () throws -> Value) async throws -> Value {
        let task = slot.withLock { slot -> Task<Value, any Error> in
            if let slot { return slot }
            let task = Task<Value, any Error> {
                try await withCheckedThrowingContinuation { continuation in
                    Thread { continuation.resume(with: Result { try start() }) }.start()
                }
            }
            slot = task
            return task
        }
        return try await task.value
    }

    /// - Returns: The port it listens on.
    /// - Throws: `TestServersError.startFailed` when it does not start in three tries.
    static func start(_ name: String, in directory: URL, arguments: (Int) -> [String]) throws -> Int {
        let script = PackagePaths.scripts.appendingPathComponent(name)
        for _ in 0..<3 {
            let port = try FreePort.tcp()
            let output = directory.appendingPathComponent("\(name)-\(port).out")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            // Output to a file, never a pipe anyone waits on; not waited for.
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [script.path, "--port", String(port), "--owner-pid", String(getpid())] + arguments(port)
            process.standardInput = FileHandle.nullDevice
            let handle = try FileHandle(forWritingTo: output)
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline, process.isRunning {
                if ((try? String(contentsOf: output, encoding: .utf8)) ?? "").contains("ready") { return port }
                usleep(20_000) // waiting for a child process to listen, not for a TTL
            }
        }
        throw TestServersError.startFailed(directory: directory.path, status: -1, output: "\(name) did not start")
    }
}

/// The suite's HTTP proxy (`scripts/connect-proxy.py`): CONNECT and absolute-form GET, resolving the
/// suite's names to 127.0.0.1 itself, logging each request line.
public struct ProxyTestServer: Sendable {
    public let port: Int
    /// `http://127.0.0.1:PORT`.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    public let requestLog: URL

    /// The request lines logged so far that contain `text`.
    public func requests(containing text: String) -> [String] {
        ((try? String(contentsOf: requestLog, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init).filter { $0.contains(text) }
    }

    /// Started once per test process, off the cooperative pool (waiters suspend, never block it).
    public static func shared() async throws -> ProxyTestServer {
        try await BackgroundScript.once(state) { () throws -> ProxyTestServer in
            let servers = try TestServers.shared()
            let log = servers.directory.appendingPathComponent("proxy-requests.log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let names = ["a.test", "b.test", "www.a.test", "localhost"].flatMap { ["--map", "\($0)=127.0.0.1"] }
            let port = try BackgroundScript.start("connect-proxy.py", in: servers.directory) { _ in ["--log", log.path] + names }
            return ProxyTestServer(port: port, requestLog: log)
        }
    }

    private static let state = Mutex<Task<ProxyTestServer, any Error>?>(nil)
}
