import DNSResolver
import Foundation
import HTTPDNSCore
import HTTPTransport

/// Follows the host's network: when an address or a route changes (rtnetlink, Linux; see
/// `NetworkMonitor`), the resolver probes its address families again and applies its
/// `Configuration.networkChangePolicy` (flush or re-resolve its cache), and each client closes
/// its pool's idle connections and forgets its address ranking (`HTTPClient.networkChanged()`).
///
/// ```swift
/// let watcher = try NetworkChangeWatcher(resolver: resolver, clients: [client])
/// // ... keep it while the process runs; releasing it stops the watch.
/// ```
///
/// The families are probed once when the watcher starts and after each change, on the watcher's
/// thread: a watcher made on a thread in another network namespace (setns(2)) watches and probes
/// that namespace.
public final class NetworkChangeWatcher: Sendable {
    private let monitor: NetworkMonitor

    /// Starts watching.
    /// - Parameters:
    ///   - resolver: Told of each change (`HostResolver.networkChanged(_:)`).
    ///   - clients: Told of each change after the resolver (`HTTPClient.networkChanged()`, in a task
    ///     of its own: it waits for the transfer thread).
    ///   - quietPeriod: Seconds without a new message before a burst of them counts as one change
    ///     (default 0.5; see `NetworkMonitor`).
    ///   - maximumDelay: Seconds after a burst's first message by which it is handled at the latest
    ///     (default 3).
    ///   - onChange: Called with each change once the resolver and the clients have handled it
    ///     (the resolver's re-resolution may still run), from a task: for logging, and for tests.
    /// - Throws: `NetworkMonitorError` when the rtnetlink socket cannot be opened (not Linux, or no
    ///   netlink in a sandbox).
    public init(
        resolver: HostResolver, clients: [HTTPClient] = [], quietPeriod: TimeInterval = 0.5, maximumDelay: TimeInterval = 3,
        onChange: (@Sendable (NetworkChange) -> Void)? = nil
    ) throws(NetworkMonitorError) {
        resolver.reprobeFamilies()
        monitor = try NetworkMonitor(quietPeriod: quietPeriod, maximumDelay: maximumDelay) { change in
            resolver.networkChanged(change)
            guard !clients.isEmpty || onChange != nil else { return }
            Task {
                for client in clients { await client.networkChanged() }
                onChange?(change)
            }
        }
    }

    /// Stops watching (releasing the watcher does too). Idempotent.
    public func stop() { monitor.stop() }
}
