import Foundation
import HTTPDNS
@testable import HTTPTransport

extension Fixture {
    /// A client (HTTP/1.1 unless `version` says otherwise) on a connection pool of its own (a fresh
    /// trust policy, so the pool's sockets and counters are this client's alone), connecting
    /// without a Happy Eyeballs race, and that pool.
    func clientOnOwnPool(
        proxy: ProxyPolicy = .none, version: HTTPVersionPreference = .http1_1,
        connectionsPerHost: Int? = HTTPClient.Configuration(trust: .system).maximumConnectionsPerHost
    )
        throws -> (HTTPClient, PoolDescriptor)
    {
        let trust = freshTrust()
        var configuration = HTTPClient.Configuration(trust: trust, timeouts: .generous, httpVersion: version)
        configuration.racesAddresses = false
        configuration.proxy = proxy
        configuration.maximumConnectionsPerHost = connectionsPerHost
        let client = try HTTPClient(configuration: configuration, resolver: resolver())
        let pool = TransferEngine.shared.pool(for: trust, version: version, connectionsPerHost: configuration.maximumConnectionsPerHost)
        return (client, pool)
    }

    /// A request for a.test's `path` on 127.0.0.1 only (one socket per connection).
    func loopbackRequest(_ path: String = "/") -> HTTPRequest {
        var request = HTTPRequest(url: url("a.test", path))
        request.connectTo = [IPAddress("127.0.0.1")!]
        return request
    }
}
