import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Testing
import HTTPDNS
import TestSupport

/// A caller's `Transfer-Encoding` field against nginx: the client frames bodies itself, so the
/// field may only ask for chunked, on a request with a body and without `Content-Length`
/// (RFC 9112 §6.1, §6.3), and never reaches HTTP/2 (RFC 9113 §8.2.2).
@Suite("Transfer-Encoding from the caller")
struct TransferEncodingTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    func post(_ path: String, coding: String, body: HTTPRequestBody = .data(Data("hello".utf8))) -> HTTPRequest {
        HTTPRequest(url: fixture.url("a.test", path), method: "POST", headers: ["Transfer-Encoding": coding], body: body)
    }

    @Test(
        "a transfer coding other than chunked alone is refused before sending, naming the field",
        arguments: ["gzip", "gzip, chunked", "identity", "chunked, chunked"])
    func unframeableCodingsAreRefused(coding: String) async throws {
        // Sent, it went out beside Content-Length (nginx answered 501; a server reading the coding
        // and a proxy reading the length would disagree on where the request ends).
        let error = await #expect(throws: HTTPClientError.self) {
            try await fixture.client(version: .http1_1).execute(post("/echo", coding: coding))
        }
        #expect(error?.kind == .invalidRequest)
        #expect(error?.message.contains("Transfer-Encoding header '\(coding)' cannot be sent") == true, "\(String(describing: error))")
    }

    @Test("Transfer-Encoding on a request without a body is refused at once instead of leaving the server waiting for one")
    func codingWithoutBodyIsRefused() async throws {
        var request = HTTPRequest(url: fixture.url("a.test", "/echo"), headers: ["Transfer-Encoding": "chunked"])
        // Straight to the server, so that the time below is the request's alone (no DoH lookup,
        // which takes seconds under the sanitizers): refused, it touches no network at all.
        request.connectTo = [IPAddress("127.0.0.1")!]
        request.timeouts = Timeouts(connect: TestTimeScale.scaled(5), total: TestTimeScale.scaled(10))
        let client = try fixture.client(version: .http1_1)
        let begin = ContinuousClock.now
        let error = await #expect(throws: HTTPClientError.self) { try await client.execute(request) }
        // Sent, nginx waited for the chunked body until the total limit (scaled alike).
        #expect(ContinuousClock.now - begin < .seconds(TestTimeScale.scaled(3)))
        #expect(error?.kind == .invalidRequest)
        #expect(error?.message.contains("has no body") == true, "\(String(describing: error))")
    }

    @Test("Transfer-Encoding with Content-Length is refused: a request carries one or the other")
    func codingWithContentLengthIsRefused() async throws {
        var request = post("/echo", coding: "chunked")
        request.headers.add(name: "Content-Length", value: "5")
        let error = await #expect(throws: HTTPClientError.self) { try await fixture.client(version: .http1_1).execute(request) }
        #expect(error?.kind == .invalidRequest)
        #expect(error?.message.contains("Content-Length and Transfer-Encoding headers together") == true, "\(String(describing: error))")
    }

    @Test("chunked is sent chunked on a cleartext request from a client that prefers HTTP/2 (cleartext is HTTP/1.1)")
    func chunkedOverCleartext() async throws {
        // A pool of its own: /headers does not read the body, so nginx closes the connection after.
        let client = try fixture.client(trust: fixture.freshTrust(), version: .http2)
        var request = post("/headers", coding: "chunked")
        request.url = fixture.servers.httpURL("a.test", path: "/headers")
        let head = try await client.execute(request).text
        #expect(head.components(separatedBy: "\r\nTransfer-Encoding: chunked\r\n").count == 2, "\(head)")
        #expect(!head.lowercased().contains("content-length"), "\(head)")
    }

    @Test("a HEAD request with a body is refused before sending: its response never has one", arguments: [HTTPVersionPreference.http1_1, .http2])
    func headWithBodyIsRefused(version: HTTPVersionPreference) async throws {
        var request = HTTPRequest(url: fixture.url("a.test", "/"), method: "HEAD", body: .data(Data("x".utf8)))
        request.connectTo = [IPAddress("127.0.0.1")!]
        request.timeouts = Timeouts(connect: 5, total: 10)
        let error = await #expect(throws: HTTPClientError.self) { try await fixture.client(version: version).execute(request) }
        #expect(error?.kind == .invalidRequest)
        #expect(error?.message.contains("HEAD request cannot carry a body") == true, "\(String(describing: error))")
    }

    @Test("chunked (any case) sends the body chunked over HTTP/1.1, with the field once and no Content-Length")
    func chunkedIsSentChunked() async throws {
        // A pool of its own: /headers does not read the body, so nginx closes the connection after.
        let client = try fixture.client(trust: fixture.freshTrust(), version: .http1_1)
        let echoed = try await client.execute(post("/echo", coding: "chunked", body: .data(Data(repeating: 7, count: 100_000))))
        #expect(echoed.body == Data(repeating: 7, count: 100_000))
        // A known length is still the length: a stream holding more fails unsent.
        let long = await #expect(throws: HTTPClientError.self) {
            try await client.execute(post("/echo", coding: "chunked", body: .stream(InputStream(data: Data(repeating: 1, count: 50)), length: 20)))
        }
        #expect(long?.kind == .bodyReadFailed)
        let head = try await client.execute(post("/headers", coding: "Chunked")).text
        #expect(head.components(separatedBy: "\r\nTransfer-Encoding: chunked\r\n").count == 2, "\(head)")
        #expect(!head.lowercased().contains("content-length"), "\(head)")
    }

    @Test("chunked on a request that may use HTTP/2 sends the body with its length and without the field, which nginx would reset the stream for")
    func chunkedOverHTTP2() async throws {
        let response = try await fixture.client(version: .http2).execute(post("/echo", coding: "chunked"))
        #expect(response.version == .http2)
        #expect(response.text == "hello")
    }

    @Test("a URLSession request's Transfer-Encoding gets the same checks")
    func urlSessionChecksTheField() async throws {
        var refused = URLRequest(url: fixture.url("a.test", "/echo"))
        refused.httpMethod = "POST"
        refused.httpBody = Data("hello".utf8)
        refused.setValue("gzip", forHTTPHeaderField: "Transfer-Encoding")
        let error = await #expect(throws: URLError.self) { try await fixture.urlSession().data(for: refused) }
        let underlying = error?.userInfo[NSUnderlyingErrorKey] as? HTTPClientError
        #expect(underlying?.kind == .invalidRequest, "\(String(describing: error))")

        var bodiless = URLRequest(url: fixture.url("a.test", "/echo"))
        bodiless.setValue("chunked", forHTTPHeaderField: "Transfer-Encoding")
        let bodilessError = await #expect(throws: URLError.self) { try await fixture.urlSession().data(for: bodiless) }
        #expect((bodilessError?.userInfo[NSUnderlyingErrorKey] as? HTTPClientError)?.kind == .invalidRequest)

        var chunked = refused
        chunked.setValue("chunked", forHTTPHeaderField: "Transfer-Encoding")
        let (data, _) = try await fixture.urlSession().data(for: chunked)
        #expect(String(decoding: data, as: UTF8.self) == "hello")
    }
}
