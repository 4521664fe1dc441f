import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A network namespace of a test's own (`ip netns add`, needs root), removed by `remove()` or when
/// released; one left by a test process that died is removed by the next one made (names carry the
/// creating process's pid).
///
/// `enter(_:)` runs a body on a new thread moved into the namespace with setns(2) (per thread, so
/// the test process stays where it was): sockets the body makes, and threads it starts, are in the
/// namespace.
public final class NetworkNamespace: Sendable {
    public let name: String
    private static let prefix = "httpdns-t"
    private static let serial = LockedCounter()
    private static let ip = URL(fileURLWithPath: "/usr/sbin/ip")

    /// - Throws: `NetworkNamespaceError` when `ip netns add` fails (not root, no iproute2).
    public init() throws {
        Self.removeAbandoned()
        name = "\(Self.prefix)\(getpid())-\(Self.serial.next())"
        let result = try Command.run(Self.ip, ["netns", "add", name], timeout: 30)
        guard result.status == 0 else { throw NetworkNamespaceError(command: "ip netns add \(name)", status: result.status, stderr: result.stderrText) }
        // Loopback up, as a fresh namespace has it down.
        _ = try? Command.run(Self.ip, ["-n", name, "link", "set", "lo", "up"], timeout: 30)
    }

    deinit { remove() }

    /// `ip -n NAME arguments...`, waited for without holding a cooperative thread.
    /// - Throws: `NetworkNamespaceError` with its stderr when it exits non-zero.
    @discardableResult
    public func ip(_ arguments: String...) async throws -> CommandResult {
        let result = try await Command.runDetached(Self.ip, ["-n", name] + arguments, timeout: 30)
        guard result.status == 0 else {
            throw NetworkNamespaceError(command: "ip -n \(name) \(arguments.joined(separator: " "))", status: result.status, stderr: result.stderrText)
        }
        return result
    }

    /// `ip -n NAME -batch -` with `commands` (one `ip` command each, without `ip`), in one process.
    /// - Throws: `NetworkNamespaceError` when one fails.
    public func batch(_ commands: [String]) async throws {
        let input = Data(commands.map { $0 + "\n" }.joined().utf8)
        let result = try await Command.runDetached(Self.ip, ["-n", name, "-batch", "-"], stdin: input, timeout: 30)
        guard result.status == 0 else { throw NetworkNamespaceError(command: "ip -n \(name) -batch", status: result.status, stderr: result.stderrText) }
    }

    /// Runs `body` on a new thread inside the namespace and returns what it returns.
    /// - Throws: `NetworkNamespaceError` when the namespace cannot be entered; what `body` throws.
    public func enter<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let path = "/var/run/netns/\(name)"
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                let fd = open(path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0, Self.setns(fd, Self.newNetworkNamespace) == 0 else {
                    let code = errno
                    if fd >= 0 { close(fd) }
                    continuation.resume(throwing: NetworkNamespaceError(command: "setns(\(path))", status: code, stderr: String(cString: strerror(code))))
                    return
                }
                close(fd)
                continuation.resume(with: Result { try body() })
            }
            thread.start()
        }
    }

    /// Deletes the namespace (its interfaces go with it). Idempotent.
    public func remove() {
        _ = try? Command.run(Self.ip, ["netns", "delete", name], timeout: 30)
    }

    /// Namespaces named by this type for a process that no longer runs.
    private static func removeAbandoned() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/var/run/netns") else { return }
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            _ = try? Command.run(ip, ["netns", "delete", name], timeout: 30)
            // The resolv.conf a test gave `ip netns exec` for it.
            try? FileManager.default.removeItem(atPath: "/etc/netns/\(name)")
        }
    }

    /// CLONE_NEWNET (sched.h, which Glibc's module leaves out with setns itself).
    private static let newNetworkNamespace: Int32 = 0x4000_0000
    private static let setns: @convention(c) (Int32, Int32) -> Int32 = {
        guard let symbol = dlsym(nil, "setns") else { fatalError("setns not found in libc") } // nil: RTLD_DEFAULT
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
    }()
}

/// A process-wide counter for unique names.
final class LockedCounter: @unchecked Sendable { // `value` is only touched with `lock` held
    private let lock = NSLock()
    private var value = 0

    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

/// An `ip` command, or entering the namespace, failed.
public struct NetworkNamespaceError: Error, CustomStringConvertible {
    public var command: String
    /// The exit status, or the errno for setns.
    public var status: Int32
    public var stderr: String

    public var description: String { "\(command) failed (\(status)): \(stderr)" }
}
