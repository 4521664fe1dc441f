import Foundation
import Testing
import HTTPDNS
@testable import HTTPTransport
import TestSupport

/// Route entries kept in a pool's DNS cache between requests: a request that does not carry its
/// route's CURLOPT_RESOLVE entry must still connect where, and in the order, its addresses say.
@Suite("Route entries kept between requests")
struct RouteEntryTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    @Test("each new connection goes to the first address in the order of its own request, with the order alternating")
    func alternatingAddressOrder() async throws {
        // nginx listens on 127.0.0.1 and 127.0.0.50. Without racing, libcurl connects to the first
        // address of the route's entry in its DNS cache; `Connection: close` makes every request
        // open a new connection, so each one looks its route up there. Requests after the first
        // with an order already stored carry no entry of their own.
        var configuration = HTTPClient.Configuration(trust: fixture.freshTrust(), timeouts: .generous, httpVersion: .http1_1)
        configuration.racesAddresses = false
        let client = try HTTPClient(configuration: configuration, resolver: fixture.resolver())
        let one = IPAddress("127.0.0.1")!, fifty = IPAddress("127.0.0.50")!
        for order in [[one, fifty], [one, fifty], [fifty, one], [fifty, one], [one, fifty], [fifty, one]] {
            var request = HTTPRequest(url: fixture.url("a.test"))
            request.connectTo = order
            request.headers.add(name: "Connection", value: "close")
            let response = try await client.execute(request)
            #expect(response.text == "vhost=a.test\n")
            #expect(response.connection.reusedConnection == false)
            #expect(response.connection.remoteAddress == order[0].description, "order \(order)")
        }
    }

    @Test("a pool stores a route's entry once a request carrying it succeeded, and again for a new order")
    func routeEntryBookkeeping() throws {
        let descriptor = PoolDescriptor(id: -1, trust: CompiledTrust(.system), connectionsPerHost: nil, multiplexes: true)
        let pool = try #require(ConnectionPool(descriptor: descriptor, engine: .shared))
        defer { pool.close() }
        let first = IPAddress("192.0.2.1")!, second = IPAddress("192.0.2.2")!
        let forward = ConnectRoute(host: "a.test", addresses: [first, second], port: 443)
        let backward = ConnectRoute(host: "a.test", addresses: [second, first], port: 443)
        #expect(forward.name == backward.name)
        #expect(forward.resolveEntry != backward.resolveEntry)

        #expect(pool.needsResolveEntry(for: forward))
        #expect(pool.needsResolveEntry(for: forward), "carried until a request carrying it succeeds")
        pool.resolveEntryStored(for: forward)
        #expect(!pool.needsResolveEntry(for: forward))

        #expect(pool.needsResolveEntry(for: backward), "a new order is carried again")
        pool.resolveEntryStored(for: forward)
        #expect(pool.needsResolveEntry(for: backward), "success with the old order proves nothing of the new one")
        pool.resolveEntryStored(for: backward)
        #expect(!pool.needsResolveEntry(for: backward))
        #expect(pool.needsResolveEntry(for: forward))
    }
}
