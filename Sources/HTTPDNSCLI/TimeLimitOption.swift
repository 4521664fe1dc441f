import Foundation
import HTTPDNS

/// `-m/--max-time` and `--connect-timeout` values, read as curl reads them, and the name resolution
/// `-m` bounds.
enum TimeLimitOption {
    /// A time limit in seconds; 0 is no limit (for `--connect-timeout`, libcurl's default of 300 s),
    /// as curl.
    /// - Throws: `UsageError` (`OptionValue`'s) for anything but a finite number from 0 to
    ///   `Timeouts.maximum`.
    static func seconds(_ text: String, option: String, command: String) throws(UsageError) -> Double? {
        // The refusal says what 0 does for this option, as its help does.
        let zero = option == "--connect-timeout" ? "0: libcurl's 300 s" : "0: no limit"
        let value = try OptionValue.seconds(text, option: option, bounds: .from(0, to: Timeouts.maximum, note: zero), command: command)
        return value == 0 ? nil : value
    }

    /// `-m` passed before `host` was resolved: curl's 28.
    struct Exceeded: Error, CustomStringConvertible {
        var host: String
        var seconds: TimeInterval
        var description: String { "resolving '\(host)' timed out: -m \(String(format: "%g", seconds)) s passed" }
    }

    /// `resolver.resolve(hosts:port:)` (the names batched where the provider has a batch API), given
    /// up at `deadline`.
    /// - Returns: One result per host, in order; nil when `deadline` came first.
    static func resolve(
        _ hosts: [String], port: Int, with resolver: HostResolver, before deadline: ContinuousClock.Instant?
    ) async -> [Result<HostResolution, any Error>]? {
        guard let deadline else { return await resolver.resolve(hosts: hosts, port: port) }
        return await withTaskGroup(of: [Result<HostResolution, any Error>]?.self) { group in
            group.addTask { await resolver.resolve(hosts: hosts, port: port) }
            group.addTask {
                try? await Task.sleep(until: deadline)
                return nil
            }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
    }

    /// `resolver.resolve(host:port:)`, given up at `deadline`, the end of `-m`'s `maxTime` seconds
    /// (the lookup itself then goes on, for the cache).
    /// - Throws: `Exceeded` at the deadline, else what the resolver throws.
    static func resolve(
        _ host: String, port: Int, with resolver: HostResolver, before deadline: ContinuousClock.Instant?,
        maxTime: TimeInterval?
    ) async throws -> HostResolution {
        try await limited(host, before: deadline, maxTime: maxTime) { try await resolver.resolve(host: host, port: port) }
    }

    /// `body` for `host`, given up at `deadline`, the end of `-m`'s `maxTime` seconds (`body` is
    /// cancelled then); without a deadline, `body` as it is.
    /// - Throws: `Exceeded` at the deadline, else what `body` throws.
    static func limited<Value: Sendable>(
        _ host: String, before deadline: ContinuousClock.Instant?, maxTime: TimeInterval?, _ body: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        guard let deadline, let maxTime else { return try await body() }
        return try await withThrowingTaskGroup(of: Value.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(until: deadline)
                throw Exceeded(host: host, seconds: maxTime)
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }
}
