import Foundation
import Testing
import HTTPDNS
import HTTPDNSCore
@testable import HTTPTransport
import TestSupport

/// Finished transfers' easy handles are reused (`EasyHandleCache`), reset (curl_easy_reset) or
/// keeping their options for a request that sets the same ones: nothing of one request may reach
/// the next on the same handle.
@Suite("Easy handles reused from finished transfers")
struct EasyHandleReuseTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    @Test("a request on a reused handle carries nothing of the requests before it")
    func nothingCarriesOver() async throws {
        // One task, one request at a time: each takes the handle the request before it gave back
        // (the cache is a stack), unless a test running beside it took that one first.
        let (client, pool) = try fixture.clientOnOwnPool()
        for round in 0..<25 {
            var put = fixture.loopbackRequest("/headers")
            put.method = "PUT"
            put.headers.add(name: "X-Earlier-Request", value: "\(round)")
            put.body = .data(Data("abc".utf8))
            put.timeouts = Timeouts(connect: TestTimeScale.scaled(5), total: TestTimeScale.scaled(30), idle: 10)
            let first = try await client.execute(put)
            #expect(first.text.hasPrefix("PUT /headers HTTP/1.1\r\n"))
            #expect(first.text.contains("X-Earlier-Request: \(round)\r\n"))

            var head = fixture.loopbackRequest("/")
            head.method = "HEAD"
            let headResponse = try await client.execute(head)
            #expect(headResponse.status == 200)
            #expect(headResponse.body.isEmpty)

            let get = try await client.execute(fixture.loopbackRequest("/headers"))
            // Not a PUT, not a HEAD (which would have no body), no field or body framing of the PUT.
            #expect(get.text.hasPrefix("GET /headers HTTP/1.1\r\n"), "\(get.text)")
            #expect(!get.text.contains("X-Earlier-Request"))
            #expect(!get.text.lowercased().contains("content-length:"))
            #expect(!get.text.lowercased().contains("content-type:"))
        }
        // One at a time, under the pool's limit: every handle may be reused but the PUTs', which
        // keep libcurl's upload buffer.
        #expect(pool.reusableHandles.load(ordering: .relaxed) == 50)
    }

    @Test("a reused handle goes to the addresses of its own request")
    func routeOfItsOwnRequest() async throws {
        // The route reaches libcurl as CURLOPT_CONNECT_TO and a CURLOPT_RESOLVE entry: a list
        // left from the handle's last transfer must not send this one elsewhere.
        let (client, _) = try fixture.clientOnOwnPool()
        for _ in 0..<10 {
            let viaV4 = try await client.execute(fixture.loopbackRequest())
            #expect(viaV4.connection.remoteAddress == "127.0.0.1")
            var viaV6 = HTTPRequest(url: fixture.url("a.test"))
            viaV6.connectTo = [IPAddress("::1")!]
            let response = try await client.execute(viaV6)
            #expect(response.connection.remoteAddress == "::1")
            #expect(response.text == "vhost=a.test\n")
        }
    }

    // Handles kept without a reset (`EasyHandleCache`): the next request sets its options over the
    // last one's, or, when they are not the same options, has the handle reset first.

    @Test("requests that set the same options reuse handles without a reset, and get their own answers")
    func sameOptionsSkipTheReset() async throws {
        let (client, pool) = try fixture.clientOnOwnPool()
        for round in 0..<20 {
            var request = fixture.loopbackRequest("/headers")
            request.headers.add(name: "X-Round", value: "\(round)")
            let response = try await client.execute(request)
            #expect(response.text.hasPrefix("GET /headers HTTP/1.1\r\n"))
            #expect(response.text.contains("X-Round: \(round)\r\n"))
            #expect(!response.text.contains("X-Round: \(round - 1)\r\n"))
        }
        // The cache is shared with the tests running beside this one, so not every request gets a
        // handle of this shape; without the rule none would.
        #expect(pool.handlesReusedWithOptions.load(ordering: .relaxed) > 0)
    }

    @Test("a head trace sees its own request's heads only, on handles reused with and without it, and an untraced request is traced by none")
    func headTraceStaysWithItsRequest() async throws {
        let (client, pool) = try fixture.clientOnOwnPool()
        for round in 0..<20 {
            let events = LockedValue<[HTTPHeadTrace]>([])
            var traced = fixture.loopbackRequest("/headers")
            traced.headers.add(name: "X-Round", value: "\(round)")
            traced.headTrace = { event in events.withLock { $0.append(event) } }
            let response = try await client.execute(traced)
            #expect(response.status == 200)
            // The second traced request on a handle that kept its options, then one without a trace.
            _ = try await client.execute(traced)
            _ = try await client.execute(fixture.loopbackRequest("/headers"))
            let seen = events.withLock { $0 }
            let sent = seen.compactMap { if case .sent(let bytes) = $0 { String(decoding: bytes, as: UTF8.self) } else { nil } }
            let received = seen.compactMap { if case .received(let bytes) = $0 { String(decoding: bytes, as: UTF8.self) } else { nil } }
            #expect(sent.count == 2 && sent.allSatisfy { $0.hasPrefix("GET /headers HTTP/1.1\r\n") && $0.contains("X-Round: \(round)\r\n") && $0.hasSuffix("\r\n\r\n") }, "\(sent)")
            #expect(received.filter { $0.hasPrefix("HTTP/1.1 200") }.count == 2, "\(received)")
        }
        #expect(pool.handlesReusedWithOptions.load(ordering: .relaxed) > 0)
    }

    @Test("options a reused handle held do not outlive their request: HEAD, a method")
    func heldOptionsDoNotCarryOver() async throws {
        let (client, _) = try fixture.clientOnOwnPool()
        for _ in 0..<10 {
            // CURLOPT_NOBODY, then a GET, which must get its body.
            var head = fixture.loopbackRequest("/")
            head.method = "HEAD"
            #expect(try await client.execute(head).body.isEmpty)
            #expect(try await client.execute(fixture.loopbackRequest("/")).text == "vhost=a.test\n")
            // CURLOPT_CUSTOMREQUEST, then the same option with another method, then a GET.
            for method in ["DELETE", "PATCH", "DELETE"] {
                var request = fixture.loopbackRequest("/headers")
                request.method = method
                #expect(try await client.execute(request).text.hasPrefix("\(method) /headers HTTP/1.1\r\n"))
            }
            #expect(try await client.execute(fixture.loopbackRequest("/headers")).text.hasPrefix("GET /headers HTTP/1.1\r\n"))
        }
    }

    @Test("a response offering authentication (401) leaves its handle reset, not holding its options")
    func authenticationChallengeResets() async throws {
        // libcurl keeps a 401's offered schemes (state.authhost.avail) until a reset, and a later
        // request with credentials in its URL would act on them.
        let (client, pool) = try fixture.clientOnOwnPool()
        #expect(try await client.execute(fixture.loopbackRequest("/")).status == 200) // opens the connection
        #expect(try await client.execute(fixture.loopbackRequest("/")).status == 200)
        let kept = pool.handlesKeptWithOptions.load(ordering: .relaxed)
        #expect(kept >= 1)
        let challenge = try await client.execute(fixture.loopbackRequest("/challenge"))
        #expect(challenge.status == 401)
        #expect(challenge.headers[first: "WWW-Authenticate"] == "Basic realm=\"httpdns\"")
        #expect(challenge.connection.reusedConnection)
        #expect(pool.handlesKeptWithOptions.load(ordering: .relaxed) == kept)
        #expect(try await client.execute(fixture.loopbackRequest("/")).status == 200)
        #expect(pool.handlesKeptWithOptions.load(ordering: .relaxed) == kept + 1)
    }

    @Test("a request libcurl sent again on another pooled connection leaves its handle reset")
    func resentRequestResets() async throws {
        // libcurl counts its resends per handle (state.retrycount) until a reset; at 5 a resend fails.
        let server = try await ProviderTestServer.shared()
        let trust = fixture.freshTrust()
        let client = try fixture.client(trust: trust, resolver: MutableResolver(addresses: [IPAddress("127.0.0.1")!]), version: .http1_1)
        let pool = TransferEngine.shared.pool(
            for: trust, version: .http1_1,
            connectionsPerHost: HTTPClient.Configuration(trust: .system).maximumConnectionsPerHost)
        // Two connections in the pool: two requests at once, each answered over 50 ms.
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<2 { group.addTask { try await client.execute(HTTPRequest(url: server.url("/fault/400pieces"))).status } }
            for try await status in group { #expect(status == 400) }
        }
        let kept = pool.handlesKeptWithOptions.load(ordering: .relaxed)
        let path = "/fault/dropfirst?\(UUID().uuidString)"
        let response = try await client.execute(HTTPRequest(url: server.url(path)))
        #expect(response.status == 200)
        #expect(server.requests(containing: path).count == 2)
        // Sent again on the other pooled connection: no connection was opened, so only the count
        // of sends tells that libcurl retried.
        try #require(response.connection.reusedConnection)
        #expect(pool.handlesKeptWithOptions.load(ordering: .relaxed) == kept)
    }

    @Test("a handle that held an insecure request's options verifies the next request's server")
    func verificationIsNotLeftOff() async throws {
        var insecureConfiguration = HTTPClient.Configuration(trust: .insecureSkippingAllVerification, timeouts: .generous, httpVersion: .http1_1)
        insecureConfiguration.trustEventHandler = { _ in } // the warning each insecure connection gets
        let insecure = try HTTPClient(configuration: insecureConfiguration, resolver: fixture.resolver())
        let (verifying, verifyingPool) = try fixture.clientOnOwnPool()
        for _ in 0..<10 {
            // The same options (verification off is a value, not another option), so the handle
            // may go from one to the other without a reset.
            #expect(try await insecure.execute(HTTPRequest(url: fixture.url("self-signed.test"))).text == "vhost=self-signed.test\n")
            let error = try await #require(throws: HTTPClientError.self) {
                try await verifying.execute(HTTPRequest(url: fixture.url("self-signed.test")))
            }
            #expect(error.kind == .certificateVerificationFailed)
            #expect(try await verifying.execute(HTTPRequest(url: fixture.url("a.test"))).text == "vhost=a.test\n")
        }
        // The handles went from one client to the other without a reset at least once (the cache
        // is shared with the tests beside this one; without the rule they never would).
        #expect(verifyingPool.handlesReusedWithOptions.load(ordering: .relaxed) > 0)
    }

}

/// When a finished transfer's handle may be reused: never when libcurl may have queued it
/// (`EasyHandleCache`), whose state a reset does not clear.
@Suite("Which finished transfers' handles are reused")
struct EasyHandleReuseRuleTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    func burst(_ client: HTTPClient, count: Int, path: String = "/") async throws {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<count { group.addTask { try await client.execute(fixture.loopbackRequest(path)).status } }
            for try await status in group { #expect(status == 200) }
        }
    }

    @Test("under a connection limit, transfers that outnumbered it give no handle back; alone they do")
    func connectionLimit() async throws {
        let (client, pool) = try fixture.clientOnOwnPool(connectionsPerHost: 2)
        // Eight at once on two allowed connections, each answer taking 0.3 s (so that they overlap
        // however the suite loads the machine): six wait in libcurl's queue.
        try await burst(client, count: 8, path: "/delay")
        let afterBurst = pool.reusableHandles.load(ordering: .relaxed)
        #expect(afterBurst < 8, "all eight handles were taken for reuse, though libcurl queued some")
        for _ in 0..<5 { _ = try await client.execute(fixture.loopbackRequest()) }
        #expect(pool.reusableHandles.load(ordering: .relaxed) == afterBurst + 5)
    }

    @Test("HTTP/2 transfers that waited for the first connection give no handle back; later ones do")
    func multiplexWaiters() async throws {
        let (client, pool) = try fixture.clientOnOwnPool(version: .http2, connectionsPerHost: nil)
        // A cold pool: one request opens the connection, the others wait to multiplex on it
        // (answers taking 0.3 s, so that none starts after the first has ended).
        try await burst(client, count: 8, path: "/delay")
        #expect(pool.reusableHandles.load(ordering: .relaxed) == 0)
        for _ in 0..<5 {
            let response = try await client.execute(fixture.loopbackRequest())
            #expect(response.connection.reusedConnection)
        }
        #expect(pool.reusableHandles.load(ordering: .relaxed) == 5)
    }

    @Test("HTTP/2 transfers queued behind a connection still resolving its proxy give no handle back")
    func waitersBehindAResolvingConnection() async throws {
        // libcurl files the proxy connection in its cache before resolving the proxy's name, so the
        // other transfers wait to multiplex on it before any socket is opened; here the name never
        // resolves and no socket ever opens.
        let (client, pool) = try fixture.clientOnOwnPool(
            proxy: .fixed(URL(string: "http://no-such-proxy.invalid:3128")!, bypass: []),
            version: .http2, connectionsPerHost: nil)
        let failures = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<6 { group.addTask { (try? await client.execute(HTTPRequest(url: fixture.url("a.test")))) == nil } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(failures == 6)
        #expect(pool.reusableHandles.load(ordering: .relaxed) == 0)
    }

    @Test("a reused HTTP/2 handle carries nothing of the request before it")
    func nothingCarriesOverOnHTTP2() async throws {
        let (client, pool) = try fixture.clientOnOwnPool(version: .http2, connectionsPerHost: 16)
        _ = try await client.execute(fixture.loopbackRequest())
        for round in 0..<20 {
            var put = fixture.loopbackRequest("/inspect")
            put.method = "PUT"
            put.headers.add(name: "Cookie", value: "round=\(round)")
            put.body = .data(Data("abc".utf8))
            let first = try await client.execute(put)
            #expect(first.text.hasPrefix("method=PUT\n"))
            #expect(first.text.contains("cookie=round=\(round)\n"))
            #expect(first.text.hasSuffix("abc"))
            let get = try await client.execute(fixture.loopbackRequest("/inspect"))
            #expect(get.text == "method=GET\nhost=a.test:\(fixture.servers.httpsPort)\ncookie=\n", "\(get.text)")
            #expect(get.version == .http2)
        }
        #expect(pool.reusableHandles.load(ordering: .relaxed) >= 20)
    }
}
