import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Testing
import HTTPDNSURLSession
import TestSupport

/// URLSession through `HTTPDNSURLProtocol`, against nginx and unbound. Serialized: the large
/// bodies and the memory measurement must not overlap.
@Suite("URLSession through HTTPDNSURLProtocol", .serialized)
struct URLSessionTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    static let small = urandom(1 << 20)
    static let large = urandom(50 << 20)

    /// Every way URLSession can carry a request body: Foundation's own upload APIs (those
    /// Alamofire calls among them: `uploadTask(with:from:)`, `uploadTask(with:fromFile:)` and
    /// `uploadTask(withStreamedRequest:)` with its session delegate), and the `httpdnsUpload…` helpers.
    enum BodyAPI: String, CaseIterable, Sendable {
        case httpBody, httpBodyStreamWithLength, httpBodyStreamOfUnknownLength
        case uploadFromData, uploadFromFile, uploadTaskFromData, uploadTaskFromFile
        case delegateUploadTaskFromData, delegateUploadTaskFromFile, streamedRequest
        case httpdnsUploadFromData, httpdnsUploadFromFile, httpdnsUploadTaskFromData, httpdnsUploadTaskFromFile

        /// Those also sent at 50 MiB: one for each way the body reaches the transport (bytes, a
        /// stream of known and of unknown length, a file, Foundation's kept bytes, the delegate's
        /// stream, the helpers' registry), so that the suite's load stays what the timing tests
        /// of other suites can bear.
        static let large: [BodyAPI] = [
            .httpBody, .httpBodyStreamWithLength, .httpBodyStreamOfUnknownLength, .uploadFromFile, .delegateUploadTaskFromData,
            .streamedRequest, .httpdnsUploadFromFile
        ]
    }

    func echoRequest(_ path: String = "/echo") -> URLRequest {
        var request = URLRequest(url: fixture.url("a.test", path))
        request.httpMethod = "POST"
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        return request
    }

    @Test("a request reaches the virtual host of its name, SNI and Host on the name, over DoH")
    func reachesVirtualHost() async throws {
        let (data, response) = try await fixture.urlSession().data(for: URLRequest(url: fixture.url("b.test")))
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "vhost=b.test\n")
        #expect(http.field("x-sni") == "b.test")
        #expect(http.field("X-Host") == "b.test")
        #expect(http.url == fixture.url("b.test"))
        #expect(http.field("X-Protocol") == "HTTP/2.0")
    }

    @Test(
        "request bodies arrive byte-exact through every URLSession body API",
        arguments: BodyAPI.allCases.map { ($0, 1 << 20) } + BodyAPI.large.map { ($0, 50 << 20) })
    func bodiesArriveExactly(api: BodyAPI, size: Int) async throws {
        let payload = size == 1 << 20 ? Self.small : Self.large
        let session = try fixture.urlSession()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-upload-\(UUID().uuidString)")
        try payload.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var request = echoRequest()
        let data: Data
        let response: URLResponse
        switch api {
        case .httpBody:
            request.httpBody = payload
            (data, response) = try await session.data(for: request)
        case .httpBodyStreamWithLength:
            request.httpBodyStream = InputStream(url: file)
            request.setValue(String(payload.count), forHTTPHeaderField: "Content-Length")
            (data, response) = try await session.data(for: request)
        case .httpBodyStreamOfUnknownLength:
            request.httpBodyStream = InputStream(url: file)
            (data, response) = try await session.data(for: request)
        case .uploadFromData:
            (data, response) = try await session.upload(for: request, from: payload)
        case .uploadFromFile:
            (data, response) = try await session.upload(for: request, fromFile: file)
        case .uploadTaskFromData:
            (data, response) = try await complete { session.uploadTask(with: request, from: payload, completionHandler: $0) }
        case .uploadTaskFromFile:
            (data, response) = try await complete { session.uploadTask(with: request, fromFile: file, completionHandler: $0) }
        case .delegateUploadTaskFromData, .delegateUploadTaskFromFile, .streamedRequest:
            let delegate = RecordingDelegate(bodyStream: { InputStream(url: file) })
            let session = try fixture.urlSession(delegate: delegate)
            switch api {
            case .delegateUploadTaskFromData: session.uploadTask(with: request, from: payload).resume()
            case .delegateUploadTaskFromFile: session.uploadTask(with: request, fromFile: file).resume()
            default:
                request.setValue(String(payload.count), forHTTPHeaderField: "Content-Length")
                session.uploadTask(withStreamedRequest: request).resume()
            }
            await delegate.completion()
            if let error = delegate.error { throw error }
            (data, response) = (delegate.data, try #require(delegate.response))
            #expect(delegate.bodyStreamRequests == (api == .streamedRequest ? 1 : 0))
        case .httpdnsUploadFromData:
            (data, response) = try await session.httpdnsUpload(for: request, from: payload)
        case .httpdnsUploadFromFile:
            (data, response) = try await session.httpdnsUpload(for: request, fromFile: file)
        case .httpdnsUploadTaskFromData:
            (data, response) = try await complete { session.httpdnsUploadTask(with: request, from: payload, completionHandler: $0) }
        case .httpdnsUploadTaskFromFile:
            (data, response) = try await complete { session.httpdnsUploadTask(with: request, fromFile: file, completionHandler: $0) }
        }
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(data.count == payload.count)
        #expect(sameBytes(data, payload))
    }

    @Test("a body stream longer or shorter than its Content-Length fails, and never reaches the next request")
    func streamLengthMismatchFails() async throws {
        let session = try fixture.urlSession()
        for count in [50, 10] {
            var request = echoRequest()
            request.httpBodyStream = InputStream(data: Data(repeating: 66, count: count))
            request.setValue("20", forHTTPHeaderField: "Content-Length")
            await #expect(throws: URLError.self, "\(count) bytes sent as 20") { _ = try await session.data(for: request) }
            let (data, response) = try await session.data(from: fixture.url("a.test"))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self) == "vhost=a.test\n")
        }
    }

    enum PlainUploadAPI: String, CaseIterable, Sendable {
        case uploadFromData, uploadFromFile, uploadTaskFromData, uploadTaskFromFile, streamedRequest
    }

    @Test(
        "an upload task sends its upload's body, never its request's own, also again after a 307",
        arguments: PlainUploadAPI.allCases, ["/echo", "/redirect/307"])
    func uploadSendsItsOwnBody(api: PlainUploadAPI, path: String) async throws {
        var request = echoRequest(path)
        request.httpBody = Data("the request's own body".utf8)
        let upload = Data("the upload's body".utf8)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-upload-\(UUID().uuidString)")
        try upload.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let session = try fixture.urlSession()
        let data: Data
        switch api {
        case .uploadFromData: (data, _) = try await session.upload(for: request, from: upload)
        case .uploadFromFile: (data, _) = try await session.upload(for: request, fromFile: file)
        case .uploadTaskFromData: (data, _) = try await complete { session.uploadTask(with: request, from: upload, completionHandler: $0) }
        case .uploadTaskFromFile: (data, _) = try await complete { session.uploadTask(with: request, fromFile: file, completionHandler: $0) }
        case .streamedRequest:
            // Its body comes from the delegate (needNewBodyStream), also for the 307's second hop.
            let delegate = RecordingDelegate(bodyStream: { InputStream(data: upload) })
            var streamed = request
            streamed.httpBodyStream = InputStream(data: Data("the request's own stream".utf8))
            try fixture.urlSession(delegate: delegate).uploadTask(withStreamedRequest: streamed).resume()
            await delegate.completion()
            if let error = delegate.error { throw error }
            data = delegate.data
            #expect(delegate.bodyStreamRequests == (path == "/echo" ? 1 : 2))
        }
        let text = String(decoding: data, as: UTF8.self)
        if path == "/echo" {
            #expect(text == "the upload's body")
        } else {
            #expect(text == RedirectTests.inspect(method: "POST", host: "a.test:\(fixture.servers.httpsPort)", body: "the upload's body"))
        }
    }

    @Test("a streamed upload whose delegate gives no body stream fails clearly and sends nothing, never an empty body")
    func streamedUploadWithoutStreamFails() async throws {
        let marker = "streamed-upload-\(UUID().uuidString)"
        var request = echoRequest("/echo?\(marker)")
        request.httpBodyStream = InputStream(data: Self.small)
        let delegate = RecordingDelegate()
        try fixture.urlSession(delegate: delegate).uploadTask(withStreamedRequest: request).resume()
        await delegate.completion()
        let error = try #require(delegate.error as? URLError)
        #expect(error.code == .requestBodyStreamExhausted)
        #expect(delegate.bodyStreamRequests == 1)
        #expect(error.localizedDescription.contains("needNewBodyStream"))
        // Let nginx write any log line a request would have left.
        try await Task.sleep(for: .milliseconds(200))
        let log = try String(contentsOf: fixture.servers.nginxAccessLog, encoding: .utf8)
        #expect(!log.contains(marker))
    }

    @Test("completion-handler and async tasks get the whole body, not the last chunk")
    func wholeBodyForCompletionHandlers() async throws {
        let expected = try Data(contentsOf: fixture.servers.largeFile)
        let session = try fixture.urlSession()
        let (asyncData, _) = try await session.data(for: URLRequest(url: fixture.url("a.test", "/large")))
        #expect(sameBytes(asyncData, expected))
        let (handlerData, response) = try await complete { session.dataTask(with: fixture.url("a.test", "/large"), completionHandler: $0) }
        #expect(sameBytes(handlerData, expected))
        #expect(response.expectedContentLength == Int64(expected.count))
    }

    @Test("a delegate receives the body in chunks as they arrive")
    func delegateReceivesChunks() async throws {
        let delegate = RecordingDelegate()
        let session = try fixture.urlSession(delegate: delegate)
        session.dataTask(with: fixture.url("a.test", "/large")).resume()
        await delegate.completion()
        #expect(delegate.error == nil)
        #expect(sameBytes(delegate.data, try Data(contentsOf: fixture.servers.largeFile)))
        #expect(delegate.chunks > 16)
        #expect((delegate.response as? HTTPURLResponse)?.field("X-Vhost") == "a.test")
    }

    @Test("a 128 MiB response streams through a delegate without being held in memory")
    func largeResponseStreams() async throws {
        let size = try #require(try FileManager.default.attributesOfItem(atPath: fixture.servers.environment["HUGE_FILE"]!)[.size] as? Int)
        let delegate = RecordingDelegate(keepsBody: false)
        let session = try fixture.urlSession(delegate: delegate)
        let start = ContinuousClock.now
        session.dataTask(with: fixture.url("a.test", "/huge")).resume()
        await delegate.completion()
        let elapsed = ContinuousClock.now - start
        #expect(delegate.error == nil)
        #expect(delegate.received == size)
        #expect(delegate.chunks > 1000)
        // Held whole, the body alone would add 128 MiB.
        #expect(delegate.peakGrowth < 48 << 20, "peak growth \(delegate.peakGrowth >> 20) MiB in \(elapsed)")
    }

    @Test("cancelling a task mid-transfer stops the transfer")
    func cancellationStopsTransfer() async throws {
        let marker = "cancel-\(UUID().uuidString)"
        let delegate = RecordingDelegate(
            keepsBody: false,
            onChunk: { task, total in
                if total >= 1 << 20 { task.cancel() }
            })
        let session = try fixture.urlSession(delegate: delegate)
        session.dataTask(with: fixture.url("a.test", "/huge?\(marker)")).resume()
        await delegate.completion()
        #expect((delegate.error as? URLError)?.code == .cancelled)
        let received = delegate.received
        #expect(received < 64 << 20)
        // libcurl queues the HTTP/2 RST_STREAM and sends it with the connection's next write, so
        // one more request on the same pool lets nginx see the reset and log the stream.
        _ = try await session.data(for: URLRequest(url: fixture.url("a.test")))
        // nginx logs the request when the stream ends: short of 128 MiB.
        var sent: Int?
        for _ in 0..<50 where sent == nil {
            let log = try String(contentsOf: fixture.servers.nginxAccessLog, encoding: .utf8)
            if let line = log.split(separator: "\n").first(where: { $0.contains(marker) }) {
                let fields = line.split(separator: " ")
                sent = fields.firstIndex(where: { $0.hasSuffix("HTTP/2.0\"") || $0.hasSuffix("HTTP/1.1\"") }).flatMap { Int(fields[$0 + 2]) }
            } else {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        let bytes = try #require(sent, "nginx never logged the cancelled request")
        #expect(bytes < 128 << 20)
        // Only chunks already queued for the delegate when it cancelled may still arrive.
        #expect(delegate.received - received <= 1 << 20)
    }

    @Test("timeoutInterval limits a stalled response (URLError.timedOut)")
    func timeoutIntervalIsHonoured() async throws {
        var request = URLRequest(url: fixture.url("a.test", "/slow"))
        request.timeoutInterval = 1
        let start = ContinuousClock.now
        let error = await #expect(throws: URLError.self) { try await fixture.urlSession().data(for: request) }
        #expect(error?.code == .timedOut)
        #expect(ContinuousClock.now - start < .seconds(1 + TestTimeScale.scaled(3)))
    }

    @Test("the session's timeoutIntervalForRequest limits a stalled response too, when shorter than the request's")
    func sessionRequestTimeoutIsHonoured() async throws {
        let request = URLRequest(url: fixture.url("a.test", "/slow"))
        #expect(request.timeoutInterval == 60)
        let start = ContinuousClock.now
        let error = await #expect(throws: URLError.self) { try await fixture.urlSession(requestTimeout: 1).data(for: request) }
        #expect(error?.code == .timedOut)
        #expect(ContinuousClock.now - start < .seconds(1 + TestTimeScale.scaled(3)))
    }

    @Test(
        "failures map to URLError codes with the transport error underneath",
        arguments: [
            ("nope.test", URLError.Code.cannotFindHost, HTTPClientError.Kind.couldNotResolve),
            ("wrong.test", .serverCertificateUntrusted, .certificateVerificationFailed),
            ("expired.test", .serverCertificateHasBadDate, .certificateVerificationFailed),
            // mtls.test requires a client certificate this client does not present.
            ("mtls.test", .clientCertificateRejected, .clientCertificateRejected)
        ])
    func errorsMapToURLError(host: String, code: URLError.Code, kind: HTTPClientError.Kind) async throws {
        let url = fixture.url(host)
        let error = await #expect(throws: URLError.self) { try await fixture.urlSession().data(for: URLRequest(url: url)) }
        #expect(error?.code == code)
        #expect(error?.failingURL == url)
        let underlying = try #require(error?.userInfo[NSUnderlyingErrorKey] as? HTTPClientError)
        #expect(underlying.kind == kind)
    }

    @Test("a refused connection is URLError.cannotConnectToHost")
    func refusedConnection() async throws {
        let url = URL(string: "https://a.test:\(try FreePort.tcp())/")!
        let error = await #expect(throws: URLError.self) { try await fixture.urlSession().data(for: URLRequest(url: url)) }
        #expect(error?.code == .cannotConnectToHost)
    }

    @Test(
        "redirects are followed IP-direct: each hop's virtual host, SNI, method and body",
        arguments: [301, 302, 303, 307, 308], [false, true])
    func redirects(status: Int, crossHost: Bool) async throws {
        var request = URLRequest(url: fixture.url("a.test", crossHost ? "/redirect/\(status)/b" : "/redirect/\(status)"))
        request.httpMethod = "POST"
        request.httpBody = Data("payload".utf8)
        let (data, response) = try await fixture.urlSession().data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        let host = crossHost ? "b.test" : "a.test"
        let keeps = status == 307 || status == 308
        #expect(http.statusCode == 200)
        #expect(http.url == fixture.url(host, "/inspect"))
        #expect(http.field("X-Vhost") == host)
        #expect(http.field("X-SNI") == host)
        #expect(
            String(decoding: data, as: UTF8.self)
                == RedirectTests.inspect(method: keeps ? "POST" : "GET", host: "\(host):\(fixture.servers.httpsPort)", body: keeps ? "payload" : ""))
    }

    @Test("the delegate sees each redirect and can decline it; declined, the redirect is the response")
    func delegateDeclinesRedirect() async throws {
        let following = RecordingDelegate()
        try fixture.urlSession(delegate: following).dataTask(with: fixture.url("a.test", "/redirect/chain")).resume()
        await following.completion()
        #expect(following.redirects == [fixture.url("a.test", "/redirect/307"), fixture.url("a.test", "/inspect")])
        #expect((following.response as? HTTPURLResponse)?.statusCode == 200)

        let declining = RecordingDelegate(redirect: { _, _ in nil })
        try fixture.urlSession(delegate: declining).dataTask(with: fixture.url("a.test", "/redirect/302/b")).resume()
        await declining.completion()
        let response = try #require(declining.response as? HTTPURLResponse)
        #expect(declining.error == nil)
        #expect(declining.redirects == [fixture.url("b.test", "/inspect")])
        #expect(response.statusCode == 302)
        #expect(response.field("Location") == fixture.url("b.test", "/inspect").absoluteString)
        #expect(String(decoding: declining.data, as: UTF8.self).contains("302 Found"))
    }

    @Test("a redirect loop ends in URLError.httpTooManyRedirects")
    func tooManyRedirects() async throws {
        let error = await #expect(throws: URLError.self) {
            try await fixture.urlSession().data(for: URLRequest(url: fixture.url("a.test", "/redirect/loop")))
        }
        #expect(error?.code == .httpTooManyRedirects)
    }

    @Test("a 307 needs a stream body again and fails clearly without a new stream; a 302 drops it")
    func streamBodyAcrossRedirects() async throws {
        var request = echoRequest("/redirect/307")
        request.httpBodyStream = InputStream(data: Data("abc".utf8))
        let error = await #expect(throws: URLError.self) { try await fixture.urlSession().data(for: request) }
        #expect(error?.code == .requestBodyStreamExhausted)

        var dropped = echoRequest("/redirect/302")
        dropped.httpBodyStream = InputStream(data: Data("abc".utf8))
        let (data, _) = try await fixture.urlSession().data(for: dropped)
        #expect(String(decoding: data, as: UTF8.self) == RedirectTests.inspect(method: "GET", host: "a.test:\(fixture.servers.httpsPort)"))
    }

    @Test("cookies live in the session's storage for the name: sent back to a.test by path, never to b.test")
    func cookiesFollowTheName() async throws {
        let session = try fixture.urlSession()
        let port = fixture.servers.httpsPort
        _ = try await session.data(for: URLRequest(url: fixture.url("a.test", "/cookie/set")))
        let stored = session.configuration.httpCookieStorage?.cookies(for: fixture.url("a.test", "/cookie/x")) ?? []
        #expect(Set(stored.map(\.name)) == ["site", "scoped"])
        #expect(stored.allSatisfy { $0.domain == "a.test" })

        let (root, _) = try await session.data(for: URLRequest(url: fixture.url("a.test", "/inspect")))
        #expect(String(decoding: root, as: UTF8.self) == RedirectTests.inspect(method: "GET", host: "a.test:\(port)", cookie: "site=a.test"))
        let (other, _) = try await session.data(for: URLRequest(url: fixture.url("b.test", "/inspect")))
        #expect(String(decoding: other, as: UTF8.self) == RedirectTests.inspect(method: "GET", host: "b.test:\(port)"))
        let (cross, _) = try await session.data(for: URLRequest(url: fixture.url("a.test", "/redirect/302/b")))
        #expect(String(decoding: cross, as: UTF8.self) == RedirectTests.inspect(method: "GET", host: "b.test:\(port)"))
        let (hop, _) = try await session.data(for: URLRequest(url: fixture.url("a.test", "/cookie/redirect")))
        let cookies = String(decoding: hop, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("cookie=") }
        #expect(Set((cookies?.dropFirst("cookie=".count) ?? "").components(separatedBy: "; ")) == ["site=a.test", "hop=1"])
    }

    @Test("httpShouldHandleCookies = false sends none of the storage's cookies (Foundation had added them), and keeps a Cookie the caller set")
    func requestWithoutCookieHandling() async throws {
        let session = try fixture.urlSession()
        let port = fixture.servers.httpsPort
        _ = try await session.data(for: URLRequest(url: fixture.url("a.test", "/cookie/set")))
        var request = URLRequest(url: fixture.url("a.test", "/inspect"))
        request.httpShouldHandleCookies = false
        let (plain, _) = try await session.data(for: request)
        #expect(String(decoding: plain, as: UTF8.self) == RedirectTests.inspect(method: "GET", host: "a.test:\(port)"))
        // For a host the storage has no cookies for, swift-corelibs-foundation leaves the caller's
        // Cookie alone (for a.test it has already replaced it, before the protocol sees the request).
        var own = URLRequest(url: fixture.url("b.test", "/inspect"))
        own.httpShouldHandleCookies = false
        own.setValue("mine=1", forHTTPHeaderField: "Cookie")
        let (kept, _) = try await session.data(for: own)
        #expect(String(decoding: kept, as: UTF8.self) == RedirectTests.inspect(method: "GET", host: "b.test:\(port)", cookie: "mine=1"))
    }

    @Test(
        "a cookie without a Path gets its URL's default path (RFC 6265 §5.1.4), not \"/\"",
        arguments: [("k=1", "/dir/sub"), ("k=1; Path=relative", "/dir/sub"), ("k=1; Path=/", "/"), ("k=1; Path=/x; Path=/dir", "/dir")])
    func cookieDefaultPath(setCookie: String, path: String) throws {
        let jar = HTTPCookieStorageJar(.sharedCookieStorage(forGroupContainerIdentifier: "httpdns-tests-\(UUID().uuidString)"))
        jar.storeCookies([setCookie], from: URL(string: "https://a.test/dir/sub/set")!)
        let stored = try #require(jar.storage.cookies?.first)
        #expect(stored.path == path)
        #expect(jar.cookieHeader(for: URL(string: "https://a.test/dir/sub/page")!) == "k=1")
        #expect(jar.cookieHeader(for: URL(string: "https://a.test/other")!) == (path == "/" ? "k=1" : nil))
    }

    @Test("only http and https requests that the configuration accepts are taken")
    func canInit() throws {
        try fixture.configureURLProtocol()
        #expect(HTTPDNSURLProtocol.canInit(with: URLRequest(url: fixture.url("a.test"))))
        #expect(HTTPDNSURLProtocol.canInit(with: URLRequest(url: URL(string: "http://a.test/")!)))
        #expect(!HTTPDNSURLProtocol.canInit(with: URLRequest(url: URL(string: "ftp://a.test/")!)))
        #expect(!HTTPDNSURLProtocol.canInit(with: URLRequest(url: URL(string: "https://bypass.test/")!)))
    }
}
