import Foundation

/// A timeout given to `HostResolver.resolveBlocking(host:port:families:timeout:)` that is not a number
/// of seconds, 0 or more (`.infinity`: no limit): negative, or NaN. Nothing was looked up.
public struct InvalidTimeoutError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The timeout given, in seconds.
    public var timeout: TimeInterval

    public init(timeout: TimeInterval) {
        self.timeout = timeout
    }

    public var description: String {
        "resolveBlocking(timeout:) needs a number of seconds, 0 or more (.infinity: no limit), not \(timeout)"
    }
}
