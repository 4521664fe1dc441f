import Foundation

/// Why the real test servers are not available.
public enum TestServersError: Error, Sendable, CustomStringConvertible {
    /// `scripts/test-servers.sh start` failed; `output` is its standard error (it names the missing
    /// Debian package, or shows the tail of the server's log).
    case startFailed(directory: String, status: Int32, output: String)
    /// `servers.env` lacks a key or has a value of the wrong shape.
    case badEnvironment(file: String, key: String, value: String?)

    public var description: String {
        switch self {
        case .startFailed(let directory, let status, let output):
            "scripts/test-servers.sh start \(directory) failed with status \(status)"
                + " (scripts/install-deps.sh installs what the servers need):\n\(output)"
        case .badEnvironment(let file, let key, let value):
            "\(file): \(key) is \(value.map { "'\($0)', not a valid value" } ?? "missing")"
        }
    }
}
