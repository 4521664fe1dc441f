import Foundation
import Testing
import HTTPDNS
@testable import HTTPTransport
import TestSupport

/// Finished transfers' easy handles are reset (curl_easy_reset) and reused (`EasyHandleCache`):
/// nothing of one request may reach the next on the same handle.
@Suite("Easy handles reused from finished transfers")
struct EasyHandleReuseTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    @Test("a request on a reused handle carries nothing of the requests before it")
    func nothingCarriesOver() async throws {
        // One task, one request at a time: each takes the handle the request before it gave back
        // (the cache is a stack), unless a test running beside it took that one first.
        let (client, _) = fixture.clientOnOwnPool(inlineWait: 0.05)
        for round in 0..<25 {
            var put = fixture.loopbackRequest("/headers")
            put.method = "PUT"
            put.headers.add(name: "X-Earlier-Request", value: "\(round)")
            put.body = .data(Data("abc".utf8))
            put.timeouts = Timeouts(connect: 5, total: 30, idle: 10)
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
        #expect(EasyHandleCache.idleCount > 0, "no finished transfer's handle was kept")
    }

    @Test("a reused handle goes to the addresses of its own request")
    func routeOfItsOwnRequest() async throws {
        // The route reaches libcurl as CURLOPT_CONNECT_TO and a CURLOPT_RESOLVE entry: a list
        // left from the handle's last transfer must not send this one elsewhere.
        let (client, _) = fixture.clientOnOwnPool(inlineWait: 0.05)
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
}
