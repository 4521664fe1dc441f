import Foundation
import Testing
import HTTPDNS
import TestSupport

/// A body of known length is sent with exactly that many bytes: over a keep-alive HTTP/1.1
/// connection, excess bytes would be read as the start of the next request (request smuggling),
/// and a body that ends early would leave the server waiting for the rest.
@Suite("Request body length")
struct RequestBodyLengthTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    func post(_ body: HTTPRequestBody, headers: HTTPHeaders = HTTPHeaders()) -> HTTPRequest {
        var request = fixture.loopbackRequest("/echo")
        request.method = "POST"
        request.body = body
        request.headers = headers
        return request
    }

    func bytes(_ count: Int, _ value: UInt8 = 65) -> Data { Data(repeating: value, count: count) }

    @Test("a stream longer than its declared length fails, and the next request on the connection is unharmed")
    func longStreamFails() async throws {
        let (client, _) = try fixture.clientOnOwnPool()
        _ = try await client.execute(fixture.loopbackRequest()) // a pooled connection to reuse
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.execute(post(.stream(InputStream(data: bytes(300)), length: 200)))
        }
        #expect(error?.kind == .bodyReadFailed)
        #expect(error?.message.contains("the body stream holds more than its 200 bytes") == true, "\(String(describing: error))")
        // Sent whole, the extra 100 bytes were the start of this request: nginx answered 400.
        let next = try await client.execute(fixture.loopbackRequest())
        #expect(next.status == 200)
        #expect(next.text == "vhost=a.test\n")
        #expect(next.connection.reusedConnection == false, "the connection of the failed request was reused")
    }

    @Test("a stream shorter than its declared length fails at once instead of waiting for ever")
    func shortStreamFails() async throws {
        let (client, _) = try fixture.clientOnOwnPool()
        let begin = ContinuousClock.now
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.execute(post(.stream(InputStream(data: bytes(100)), length: 200)))
        }
        // Before, it waited for the client's total limit (30 s, scaled alike); a sanitized build under
        // load takes about 10 s.
        #expect(ContinuousClock.now - begin < .seconds(TestTimeScale.scaled(20)))
        #expect(error?.kind == .bodyReadFailed)
        #expect(error?.message.contains("the body stream ended after 100 of its 200 bytes") == true, "\(String(describing: error))")
        let next = try await client.execute(fixture.loopbackRequest())
        #expect(next.text == "vhost=a.test\n")
    }

    @Test("a stream of exactly its declared length is echoed, over HTTP/1.1 and HTTP/2", arguments: [HTTPVersionPreference.http1_1, .http2])
    func exactStream(version: HTTPVersionPreference) async throws {
        let payload = Data((0..<70_000).map { UInt8($0 % 251) })
        var request = post(.stream(InputStream(data: payload), length: Int64(payload.count)))
        request.httpVersion = version
        let response = try await fixture.client().execute(request)
        #expect(response.body == payload)
    }

    @Test("a stream holding more than a declared length that fills libcurl's upload buffer exactly fails", arguments: [65_536, 131_072])
    func excessAfterAFullBuffer(declared: Int) async throws {
        let client = try fixture.client(version: .http1_1)
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.execute(post(.stream(InputStream(data: bytes(declared + 1000)), length: Int64(declared))))
        }
        #expect(error?.kind == .bodyReadFailed, "\(String(describing: error))")
        let exact = try await client.execute(post(.stream(InputStream(data: bytes(declared)), length: Int64(declared))))
        #expect(exact.body == bytes(declared))
    }

    @Test("a stream or file of length 0 that holds bytes fails before sending; an empty one is sent", arguments: [HTTPVersionPreference.http1_1, .http2])
    func zeroLengthSourceHoldingBytes(version: HTTPVersionPreference) async throws {
        let client = try fixture.client(version: version)
        // libcurl reads nothing of a body of length 0: the bytes were dropped and the request succeeded.
        let declared = await #expect(throws: HTTPClientError.self) {
            try await client.execute(post(.stream(InputStream(data: bytes(4)), length: 0)))
        }
        #expect(declared?.kind == .bodyReadFailed)
        #expect(declared?.message.contains("the body stream holds bytes though its length is 0; nothing was sent") == true, "\(String(describing: declared))")
        let byHeader = await #expect(throws: HTTPClientError.self) {
            try await client.execute(post(.stream(InputStream(data: bytes(4)), length: nil), headers: ["Content-Length": "0"]))
        }
        #expect(byHeader?.kind == .bodyReadFailed)
        // A file the kernel generates has a size of 0 and contents.
        let generated = await #expect(throws: HTTPClientError.self) {
            try await client.execute(post(.file(URL(fileURLWithPath: "/proc/self/status"))))
        }
        #expect(generated?.kind == .bodyReadFailed)
        #expect(generated?.message.contains("'/proc/self/status' holds bytes though its length is 0") == true, "\(String(describing: generated))")

        let empty = try await client.execute(post(.stream(InputStream(data: Data()), length: 0)))
        #expect(empty.status == 200)
        #expect(empty.body.isEmpty)
        let emptyByHeader = try await client.execute(post(.stream(InputStream(data: Data()), length: nil), headers: ["Content-Length": "0"]))
        #expect(emptyByHeader.status == 200)
    }

    @Test("a negative stream length, or leaving out the headers that frame a body, is refused before sending")
    func unframedBodiesAreRefused() async throws {
        let client = try fixture.client(version: .http1_1)
        let negative = await #expect(throws: HTTPClientError.self) {
            try await client.execute(post(.stream(InputStream(data: bytes(5)), length: -1)))
        }
        #expect(negative?.kind == .invalidRequest)
        #expect(negative?.message.contains("0 or more") == true)
        for header in ["Content-Length", "transfer-encoding"] {
            var request = post(.data(bytes(5)))
            request.omittedHeaders = [header]
            let error = await #expect(throws: HTTPClientError.self) { try await client.execute(request) }
            #expect(error?.kind == .invalidRequest, "\(header)")
        }
    }

    @Test("a Content-Length header that differs from the body's length is refused before sending")
    func mismatchedHeaderIsRefused() async throws {
        let client = try fixture.client(version: .http1_1)
        for value in ["3", "11", "-1", "ten"] {
            let error = await #expect(throws: HTTPClientError.self) {
                try await client.execute(post(.data(bytes(10)), headers: ["Content-Length": value]))
            }
            #expect(error?.kind == .invalidRequest, "Content-Length: \(value)")
        }
        var twice = post(.data(bytes(10)), headers: ["Content-Length": "10"])
        twice.headers.add(name: "Content-Length", value: "0")
        let conflicting = await #expect(throws: HTTPClientError.self) { try await client.execute(twice) }
        #expect(conflicting?.kind == .invalidRequest)
        let bodiless = await #expect(throws: HTTPClientError.self) {
            try await client.execute(HTTPRequest(url: fixture.url("a.test", "/"), headers: ["Content-Length": "5"]))
        }
        #expect(bodiless?.kind == .invalidRequest)
    }

    @Test("a matching Content-Length header is sent once; on a stream of unknown length it is the length")
    func matchingHeaderIsTheLength() async throws {
        let client = try fixture.client(version: .http1_1)
        var request = post(.data(bytes(10)), headers: ["Content-Length": "10"])
        request.url = fixture.url("a.test", "/headers")
        let headers = try await client.execute(request).text
        #expect(headers.components(separatedBy: "Content-Length:").count == 2, "\(headers)")
        #expect(!headers.contains("chunked"))
        // The header gives a stream its length: no chunked coding, and the excess is refused.
        let echoed = try await client.execute(post(.stream(InputStream(data: bytes(20)), length: nil), headers: ["Content-Length": "20"]))
        #expect(echoed.body == bytes(20))
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.execute(post(.stream(InputStream(data: bytes(50)), length: nil), headers: ["Content-Length": "20"]))
        }
        #expect(error?.kind == .bodyReadFailed)
    }
}
