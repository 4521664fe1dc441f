import Foundation
import HTTPDNSCore

extension HTTPClient {
    /// Resolves `host` with `resolver` and TCP-connect probes each of its addresses on `port` at once
    /// (`ConnectProbe`), reporting the outcomes to `configuration.addressRanking`, so the next
    /// requests to `host` try the fastest first: call it at start-up, after pre-resolving, for the
    /// hosts that matter (the vendors' IP ranking; `Configuration.probedPorts` does it in the
    /// background after each resolution instead).
    /// - Parameters:
    ///   - host: A host name or IP literal.
    ///   - port: The port the requests will use (443 for https).
    ///   - timeout: Seconds each connect may take. Default: 5.
    /// - Returns: One result per address; with no `addressRanking`, the results alone.
    /// - Throws: `ResolutionError` when `host` cannot be resolved.
    public func probeConnections(host: String, port: Int, timeout: TimeInterval = ConnectProbe.longestTimeout) async throws -> [ConnectProbe.Result] {
        let addresses: [IPAddress]
        if let literal = IPAddress(host) {
            addresses = [literal]
        } else {
            addresses = try await resolver.resolve(host: host, port: port).addresses
        }
        return await ConnectProbe.probe(addresses, port: port, timeout: timeout, reportingTo: configuration.addressRanking)
    }
}
