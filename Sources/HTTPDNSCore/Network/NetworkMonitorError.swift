#if canImport(Glibc)
    import Glibc
#endif

/// A `NetworkMonitor` could not start: the rtnetlink socket (rtnetlink(7)) or its wake-up
/// descriptor could not be made. Outside Linux, or in a sandbox without netlink, `socket` fails.
public struct NetworkMonitorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The call that failed, as `socket(AF_NETLINK, NETLINK_ROUTE)`.
    public var operation: String
    /// Its errno.
    public var code: Int32

    public init(operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    public var description: String { "cannot watch the network: \(operation): \(String(cString: strerror(code)))" }
}
