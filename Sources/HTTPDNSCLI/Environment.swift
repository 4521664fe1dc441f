import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// The environment variables a command reads. Injected so tests can run commands in-process with
/// variables of their own.
public struct Environment: Sendable {
    private let lookup: @Sendable (String) -> String?

    /// These variables instead of the process's.
    public init(_ variables: [String: String]) {
        lookup = { variables[$0] }
    }

    /// The process's variables, each read with `getenv` when asked for: building
    /// `ProcessInfo.processInfo.environment` (every variable, as a dictionary) cost about 1 ms of
    /// every start-up, for the handful a command reads.
    public static let process = Environment(lookup: { name in getenv(name).map { String(cString: $0) } })

    private init(lookup: @escaping @Sendable (String) -> String?) {
        self.lookup = lookup
    }

    /// The variable's value, or nil when it is not set.
    public subscript(name: String) -> String? { lookup(name) }

    /// The variables of `names` that are set, by name.
    func variables(named names: [String]) -> [String: String] {
        var variables: [String: String] = [:]
        for name in names {
            if let value = self[name] { variables[name] = value }
        }
        return variables
    }
}
