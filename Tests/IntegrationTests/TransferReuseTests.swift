import Foundation
import Testing
import HTTPDNS
@testable import HTTPTransport
import TestSupport

/// What the transport keeps between requests to save work: reset libcurl easy handles, and route
/// entries in a pool's DNS cache. Neither may change what a request sends or where it connects.
@Suite("Reuse of libcurl state between requests")
struct TransferReuseTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    @Test("a reused easy handle carries nothing of the request before it: method, body, headers, HEAD")
    func reusedHandleStartsClean() async throws {
        let client = fixture.client(trust: fixture.freshTrust(), version: .http1_1)
        let url = fixture.url("a.test", "/inspect")
        var post = HTTPRequest(url: url, method: "POST", body: .data(Data("first body".utf8)))
        post.headers.add(name: "Cookie", value: "first=1")
        let posted = try await client.execute(post)
        #expect(posted.text == "method=POST\nhost=a.test:\(fixture.servers.httpsPort)\ncookie=first=1\nfirst body")
        let head = try await client.execute(HTTPRequest(url: url, method: "HEAD"))
        #expect(head.status == 200 && head.body.isEmpty)
        // One request at a time on one task: each takes the handle the one before gave back.
        for _ in 0..<3 {
            let get = try await client.execute(HTTPRequest(url: url))
            #expect(get.text == "method=GET\nhost=a.test:\(fixture.servers.httpsPort)\ncookie=\n")
        }
    }

    @Test("requests alternating the order of a host's addresses all connect, to the live one")
    func alternatingAddressOrder() async throws {
        // nginx listens on 127.0.0.1 only: 127.0.0.2 refuses. Without racing, libcurl tries them in
        // the order given, so each order must reach libcurl's DNS cache.
        var configuration = HTTPClient.Configuration(trust: fixture.freshTrust(), timeouts: Timeouts(connect: 5, total: 30), httpVersion: .http1_1)
        configuration.racesAddresses = false
        let client = HTTPClient(configuration: configuration, resolver: fixture.resolver())
        let live = IPAddress("127.0.0.1")!, refusing = IPAddress("127.0.0.2")!
        for index in 0..<6 {
            var request = HTTPRequest(url: fixture.url("a.test"))
            request.connectTo = index.isMultiple(of: 2) ? [live, refusing] : [refusing, live]
            let response = try await client.execute(request)
            #expect(response.text == "vhost=a.test\n")
            #expect(response.connection.remoteAddress == "127.0.0.1")
        }
    }

    @Test("a pool stores a route's entry once a request carrying it succeeded, and again for a new order")
    func routeEntryBookkeeping() throws {
        let descriptor = PoolDescriptor(id: -1, trust: CompiledTrust(.system), connectionsPerHost: nil)
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
