import Foundation
import Synchronization
import Testing
import HTTPDNS
import TestSupport
import HTTPDNSCore

/// Bodies, connection pooling, timeouts and cancellation of the libcurl transport, against nginx.
@Suite("HTTP transport")
struct TransportTests {
    static func randomBytes(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: count)
        var index = 0
        while index < count {
            var word = generator.next()
            for _ in 0..<8 where index < count {
                bytes[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
        return Data(bytes)
    }

    @Test("a 1 MiB POST body is echoed byte-exact", arguments: [HTTPVersionPreference.http1_1, .http2])
    func oneMebibyteBodyEchoesExactly(version: HTTPVersionPreference) async throws {
        let fixture = try Fixture()
        let payload = Self.randomBytes(1 << 20)
        let request = HTTPRequest(url: fixture.url("a.test", "/echo"), method: "POST", body: .data(payload))
        let response = try await fixture.client(version: version).execute(request)
        #expect(response.status == 200)
        #expect(response.version == (version == .http2 ? .http2 : .http1_1))
        #expect(response.body.count == payload.count)
        #expect(response.body == payload)
    }

    @Test("a body streamed from a file is echoed byte-exact", arguments: [HTTPVersionPreference.http1_1, .http2])
    func fileBodyEchoesExactly(version: HTTPVersionPreference) async throws {
        let fixture = try Fixture()
        let payload = Self.randomBytes(3 << 20 + 17)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-body-\(UUID().uuidString)")
        try payload.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let request = HTTPRequest(url: fixture.url("b.test", "/echo"), method: "PUT", body: .file(file))
        let response = try await fixture.client(version: version).execute(request)
        #expect(response.body == payload)
    }

    @Test("a body from an InputStream of unknown length is echoed byte-exact")
    func streamBodyEchoesExactly() async throws {
        let fixture = try Fixture()
        let payload = Self.randomBytes(256 * 1024 + 3)
        let request = HTTPRequest(
            url: fixture.url("a.test", "/echo"), method: "POST",
            body: .stream(InputStream(data: payload), length: nil))
        let response = try await fixture.client(version: .http1_1).execute(request)
        #expect(response.body == payload)
    }

    @Test("an empty POST body is sent as an empty body, not dropped")
    func emptyBody() async throws {
        let fixture = try Fixture()
        let request = HTTPRequest(url: fixture.url("a.test", "/echo"), method: "POST", body: .data(Data()))
        let response = try await fixture.client().execute(request)
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
    }

    @Test("a large response streams to a file that appears only when complete")
    func responseStreamsToFile() async throws {
        let fixture = try Fixture()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-out-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("large.bin")
        let response = try await fixture.client().execute(HTTPRequest(url: fixture.url("a.test", "/large")), to: .file(output))
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        let expected = try Data(contentsOf: fixture.servers.largeFile)
        #expect(try Data(contentsOf: output) == expected)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["large.bin"])
    }

    @Test("a failed transfer leaves no output file, partial or temporary")
    func failedTransferLeavesNoFile() async throws {
        let fixture = try Fixture()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-out-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var request = HTTPRequest(url: fixture.url("a.test", "/status/404"))
        request.failsOnHTTPError = true
        let error = try await #require(throws: HTTPClientError.self) {
            try await fixture.client().execute(request, to: .file(directory.appendingPathComponent("out")))
        }
        #expect(error.kind == .httpError)
        #expect(error.status == 404)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("an HTTP error (failsOnHTTPError) carries the response's head, fields included", arguments: [HTTPVersionPreference.http1_1, .http2])
    func httpErrorCarriesHead(version: HTTPVersionPreference) async throws {
        let fixture = try Fixture()
        var request = HTTPRequest(url: fixture.url("b.test", "/status/404"))
        request.failsOnHTTPError = true
        request.httpVersion = version
        let error = try await #require(throws: HTTPClientError.self) { try await fixture.client().execute(request) }
        let head = try #require(error.responseHead)
        let (status, received, reason, vhost) = (head.status, head.version, head.reasonPhrase, head.headers[first: "X-VHost"])
        #expect(status == 404)
        #expect(received == (version == .http2 ? .http2 : .http1_1))
        #expect(reason == (version == .http2 ? nil : "Not Found"))
        #expect(vhost == "b.test")
        // Only for an HTTP error.
        var closedPort = HTTPRequest(url: URL(string: "https://a.test:1/")!)
        closedPort.connectTo = [IPAddress("127.0.0.1")!]
        closedPort.failsOnHTTPError = true
        let refused = try await #require(throws: HTTPClientError.self) { try await fixture.client().execute(closedPort) }
        let noHead = refused.responseHead == nil
        #expect(noHead, "\(refused.kind)")
    }

    @Test("a memory limit stops an oversized body")
    func memoryLimitIsEnforced() async throws {
        let fixture = try Fixture()
        let error = try await #require(throws: HTTPClientError.self) {
            try await fixture.client().execute(HTTPRequest(url: fixture.url("a.test", "/large")), to: .memory(limit: 64 * 1024))
        }
        #expect(error.kind == .responseTooLarge)
    }

    @Test("sequential requests reuse one keep-alive connection", arguments: [HTTPVersionPreference.http1_1, .http2])
    func keepAliveReuse(version: HTTPVersionPreference) async throws {
        let fixture = try Fixture()
        let client = try fixture.client(trust: fixture.freshTrust(), version: version)
        let first = try await client.execute(HTTPRequest(url: fixture.url("a.test")))
        let second = try await client.execute(HTTPRequest(url: fixture.url("a.test")))
        #expect(first.connection.reusedConnection == false)
        #expect(second.connection.reusedConnection == true)
        #expect(first.connectionNumber == second.connectionNumber)
    }

    @Test("a cold start of 16 concurrent HTTP/2 requests multiplexes onto one connection")
    func coldStartMultiplexes() async throws {
        let fixture = try Fixture()
        let client = try fixture.client(trust: fixture.freshTrust(), version: .http2)
        let connections = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<16 {
                group.addTask { try await client.execute(HTTPRequest(url: fixture.url("a.test"))).connectionNumber }
            }
            var seen: Set<String?> = []
            for try await connection in group { seen.insert(connection) }
            return seen
        }
        #expect(connections.count == 1)
    }

    @Test("100 simultaneous new HTTP/1.1 connections all complete within the connect timeout")
    func manyNewConnectionsAtOnce() async throws {
        // Each new connection once re-parsed the system CA bundle on the transfer thread (tens of
        // milliseconds each, one after another), so a burst of new connections timed out.
        let fixture = try Fixture()
        // No connection limit: with the default 16, most of the burst queued for a free connection,
        // and on a loaded machine that queueing, not a connection, reached the connect limit.
        var configuration = HTTPClient.Configuration(trust: fixture.freshTrust(), httpVersion: .http1_1)
        configuration.maximumConnectionsPerHost = nil
        let client = try HTTPClient(configuration: configuration, resolver: fixture.resolver())
        var request = HTTPRequest(url: fixture.url("a.test"))
        request.connectTo = [IPAddress("127.0.0.1")!]
        request.timeouts = .generous
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 { group.addTask { [request] in try await client.execute(request).status } }
            var statuses: [Int] = []
            for try await status in group { statuses.append(status) }
            return statuses
        }
        #expect(statuses == Array(repeating: 200, count: 100))
    }

    @Test("requests under different trust policies never share a connection")
    func trustPoliciesDoNotShareConnections() async throws {
        let fixture = try Fixture()
        let policy = fixture.freshTrust()
        let first = try await fixture.client(trust: policy).execute(HTTPRequest(url: fixture.url("a.test")))
        let same = try await fixture.client(trust: policy).execute(HTTPRequest(url: fixture.url("a.test")))
        let other = try await fixture.client(trust: fixture.freshTrust()).execute(HTTPRequest(url: fixture.url("a.test")))
        #expect(same.connectionNumber == first.connectionNumber)
        #expect(other.connectionNumber != first.connectionNumber)
        #expect(other.connection.reusedConnection == false)
    }

    @Test("a pooled connection is reused only for the same address set")
    func addressSetsDoNotShareConnections() async throws {
        let fixture = try Fixture()
        let client = try fixture.client(trust: fixture.freshTrust())
        var request = HTTPRequest(url: fixture.url("a.test"))
        request.connectTo = [IPAddress("127.0.0.1")!]
        let first = try await client.execute(request)
        let again = try await client.execute(request)
        request.connectTo = [IPAddress("127.0.0.1")!, IPAddress("127.0.0.2")!]
        let otherSet = try await client.execute(request)
        #expect(again.connectionNumber == first.connectionNumber)
        #expect(otherSet.connectionNumber != first.connectionNumber)
        #expect(otherSet.connection.remoteAddress == "127.0.0.1")
    }

    @Test("a dead first address falls through to the next")
    func deadFirstAddressFallsThrough() async throws {
        let fixture = try Fixture()
        // nginx listens on 127.0.0.1 only, so 127.0.0.2 refuses the connection.
        var request = HTTPRequest(url: fixture.url("a.test"))
        request.connectTo = [IPAddress("127.0.0.2")!, IPAddress("127.0.0.1")!]
        let response = try await fixture.client(trust: fixture.freshTrust()).execute(request)
        #expect(response.text == "vhost=a.test\n")
        #expect(response.connection.remoteAddress == "127.0.0.1")
    }

    @Test("nothing listening is 'could not connect' (curl 7)")
    func connectionRefused() async throws {
        let fixture = try Fixture()
        let port = try FreePort.tcp()
        var request = HTTPRequest(url: URL(string: "https://a.test:\(port)/")!)
        request.connectTo = [IPAddress("127.0.0.1")!]
        let error = try await #require(throws: HTTPClientError.self) {
            try await fixture.client().execute(request)
        }
        #expect(error.kind == .couldNotConnect)
        #expect(error.curlExitStatus == 7)
        #expect(error.message.contains("127.0.0.1"))
    }

    @Test(
        "a time limit that is not a number of seconds above 0 and at most Timeouts.maximum is refused before anything is resolved",
        arguments: [
            Timeouts(total: .nan), Timeouts(total: .infinity), Timeouts(total: 1e20), Timeouts(total: 0),
            Timeouts(total: -1), Timeouts(connect: .nan), Timeouts(connect: 5, idle: Timeouts.maximum + 1)
        ])
    func unusableTimeLimitsAreRefused(timeouts: Timeouts) async throws {
        let fixture = try Fixture()
        let resolver = CountingResolver()
        let client = try HTTPClient(configuration: HTTPClient.Configuration(trust: fixture.trust), resolver: resolver)
        var request = HTTPRequest(url: fixture.url("a.test"))
        request.timeouts = timeouts
        // Before, a huge or non-finite limit crashed converting it to an integer.
        let error = try await #require(throws: HTTPClientError.self) { try await client.execute(request) }
        #expect(error.kind == .invalidRequest)
        #expect(error.message.contains("must be a number of seconds above 0"), "\(error.message)")
        #expect(resolver.lookups.load(ordering: .relaxed) == 0)
    }

    @Test(
        "a request whose method or fields cannot be sent is refused before its host is resolved",
        arguments: [
            ("GET", ["Transfer-Encoding": "chunked"], nil), ("POST", ["Content-Length": "3"], Data("hello".utf8)),
            ("POST", ["Bad Name": "x"], Data("x".utf8)), ("HEAD", [:], Data("x".utf8)), ("GE T", [:], nil)
        ] as [(String, [String: String], Data?)])
    func unsendableRequestsAreRefusedUnresolved(method: String, fields: [String: String], body: Data?) async throws {
        let fixture = try Fixture()
        let resolver = CountingResolver()
        let client = try HTTPClient(configuration: HTTPClient.Configuration(trust: fixture.trust), resolver: resolver)
        let request = HTTPRequest(url: fixture.url("a.test"), method: method, headers: HTTPHeaders(fields.map { ($0.key, $0.value) }), body: body.map { .data($0) })
        let error = try await #require(throws: HTTPClientError.self) { try await client.execute(request) }
        #expect(error.kind == .invalidRequest, "\(error.message)")
        #expect(resolver.lookups.load(ordering: .relaxed) == 0)
    }

    @Test(
        "omitted framing or Host, a negative stream length, a missing, directory or FIFO body file are refused before resolving",
        arguments: 0..<6)
    func unsendableBodiesAreRefusedUnresolved(case index: Int) async throws {
        let fixture = try Fixture()
        let resolver = CountingResolver()
        let client = try HTTPClient(configuration: HTTPClient.Configuration(trust: fixture.trust), resolver: resolver)
        var request = HTTPRequest(url: fixture.url("a.test", "/echo"), method: "POST", body: .data(Data("x".utf8)))
        switch index {
        case 0: request.omittedHeaders = ["Host"]
        case 1: request.omittedHeaders = ["Content-Length"]
        case 2: request.body = .stream(InputStream(data: Data("x".utf8)), length: -1)
        case 3: request.body = .file(URL(fileURLWithPath: "/nonexistent/body.bin"))
        case 4:
            // No writer ever opens it: opening it to read would block.
            let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-body-\(UUID().uuidString)")
            try #require(mkfifo(fifo.path, 0o600) == 0)
            defer { unlink(fifo.path) }
            request.body = .file(fifo)
            let error = try await #require(throws: HTTPClientError.self) { try await client.execute(request) }
            #expect(error.kind == .invalidRequest)
            #expect(error.message.contains("not a regular file"), "\(error.message)")
            #expect(resolver.lookups.load(ordering: .relaxed) == 0)
            return
        default: request.body = .file(FileManager.default.temporaryDirectory)
        }
        let error = try await #require(throws: HTTPClientError.self) { try await client.execute(request) }
        #expect(error.kind == .invalidRequest, "\(error.message)")
        #expect(resolver.lookups.load(ordering: .relaxed) == 0)
    }

    /// Counts lookups; answers 127.0.0.1.
    final class CountingResolver: HostResolving {
        let lookups = Atomic<Int>(0)
        func resolve(host: String, port: Int) async throws -> HostResolution {
            lookups.add(1, ordering: .relaxed)
            return HostResolution(host: host, addresses: [IPAddress("127.0.0.1")!], ttl: 60, source: .staticMapping)
        }
    }

    @Test("with a total time limit, an answer the resolver knows at once is used without a timer racing its lookup")
    func immediateResolutionUnderTotalLimit() async throws {
        let fixture = try Fixture()
        let client = try HTTPClient(configuration: HTTPClient.Configuration(trust: fixture.trust), resolver: AnswersOnlyAtOnce())
        var request = HTTPRequest(url: fixture.url("a.test"))
        request.timeouts = Timeouts(connect: TestTimeScale.scaled(5), total: TestTimeScale.scaled(3))
        // `resolve` never answers: before, the lookup raced the total limit and timed out.
        let response = try await client.execute(request)
        #expect(response.status == 200)
        #expect(response.connection.resolution?.source == .cache)
        #expect(response.connection.remoteAddress == "127.0.0.1")
    }

    /// Knows 127.0.0.1 for every name at once; its `resolve` waits until cancelled.
    struct AnswersOnlyAtOnce: HostResolving {
        func resolve(host: String, port: Int) async throws -> HostResolution {
            try await Task.sleep(for: .seconds(3600))
            throw CancellationError()
        }
        func resolveImmediately(host: String, port: Int) throws -> HostResolution? {
            HostResolution(host: host, addresses: [IPAddress("127.0.0.1")!], ttl: 60, source: .cache)
        }
    }

    @Test("a total time limit stops a slow response (curl 28)")
    func totalTimeout() async throws {
        let fixture = try Fixture()
        var request = HTTPRequest(url: fixture.url("a.test", "/slow"))
        request.connectTo = [IPAddress("127.0.0.1")!] // time the transfer alone, not DoH
        request.timeouts = Timeouts(connect: 5, total: 1)
        let error = try await #require(throws: HTTPClientError.self) {
            try await fixture.client().execute(request)
        }
        #expect(error.kind == .timedOut)
        // libcurl reports when it gave up ("after N milliseconds"): at the limit, long before the
        // server's answer at 5 s. (The test's own wall clock would also count the time this task
        // waits for a thread when the suite loads both cores.)
        let elapsed = error.message.firstMatch(of: /after (\d+) milliseconds/).flatMap { Int($0.1) }
        let milliseconds = try #require(elapsed, "\(error.message)")
        #expect(milliseconds >= 1_000 && milliseconds < 2_500)
    }

    @Test("cancelling the task stops the transfer promptly")
    func cancellationStopsTheTransfer() async throws {
        let fixture = try Fixture()
        let client = try fixture.client()
        var request = HTTPRequest(url: fixture.url("a.test", "/slow"))
        request.connectTo = [IPAddress("127.0.0.1")!]
        let task = Task { [request] in try await client.execute(request) }
        try await Task.sleep(for: .milliseconds(300))
        // /slow answers after 5 s; a cancelled transfer ends long before that, and fails (a transfer
        // not stopped would succeed). Scaled under the sanitizers: 9 s seen under ThreadSanitizer
        // with the whole suite running, the test's other steps as slow (24 s in all).
        let cancelled = ContinuousClock.now
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(ContinuousClock.now - cancelled < .seconds(TestTimeScale.scaled(4)))
    }

    @Test("malformed and unsupported URLs fail before any traffic")
    func badURLs() async throws {
        let fixture = try Fixture()
        let client = try fixture.client()
        let ftp = try await #require(throws: HTTPClientError.self) {
            try await client.execute(HTTPRequest(url: URL(string: "ftp://a.test/")!))
        }
        #expect(ftp.kind == .unsupportedScheme)
        let noHost = try await #require(throws: HTTPClientError.self) {
            try await client.execute(HTTPRequest(url: URL(string: "https:///path")!))
        }
        #expect(noHost.kind == .invalidURL)
    }

    @Test("a header with a line break is refused, not sent")
    func headerInjectionIsRefused() async throws {
        let fixture = try Fixture()
        let request = HTTPRequest(url: fixture.url("a.test"), headers: ["X-Evil": "a\r\nInjected: yes"])
        let error = try await #require(throws: HTTPClientError.self) {
            try await fixture.client().execute(request)
        }
        #expect(error.kind == .invalidRequest)
    }

    // Over HTTP/2 a burst this small multiplexes on one connection with or without a limit; the load
    // test covers HTTP/2 (1,000 requests: 16 connections with the default, 64+ without).
    @Test("maximumConnectionsPerHost caps the connections of a burst; nil leaves them uncapped")
    func connectionsPerHostAreCapped() async throws {
        let version = HTTPVersionPreference.http1_1
        let fixture = try Fixture()
        func connections(limit: Int?) async throws -> Set<String> {
            var configuration = HTTPClient.Configuration(trust: fixture.freshTrust(), timeouts: .generous, httpVersion: version)
            configuration.maximumConnectionsPerHost = limit
            let client = try HTTPClient(configuration: configuration, resolver: fixture.resolver())
            // Each answer takes 0.3 s, so the burst's requests overlap even when the suite loads the
            // machine (with instant answers they once ran one after another on one connection).
            let request = HTTPRequest(url: fixture.url("a.test", "/delay"))
            let numbers = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<8 { group.addTask { try await client.execute(request).connectionNumber } }
                var numbers: Set<String> = []
                for try await number in group { if let number { numbers.insert(number) } }
                return numbers
            }
            await client.closeIdleConnections()
            return numbers
        }
        let capped = try await connections(limit: 2)
        #expect((1...2).contains(capped.count), "\(capped.count) connections with a limit of 2")
        // Each HTTP/1.1 request that finds no idle connection opens one.
        let uncapped = try await connections(limit: nil)
        #expect(uncapped.count > 2, "\(uncapped.count) connections without a limit")
    }

    @Test(
        "the HTTP/1.1 reason phrase is kept as received, in the response and its streamed head; HTTP/2 has none",
        arguments: [HTTPVersionPreference.http1_1, .http2])
    func reasonPhrase(version: HTTPVersionPreference) async throws {
        let fixture = try Fixture()
        let heads = LockedValue<[HTTPResponseHead]>([])
        let response = try await fixture.client(version: version).execute(
            HTTPRequest(url: fixture.url("a.test", "/status/404")),
            to: .streaming(head: { head in heads.withLock { $0.append(head) } }, chunk: { _ in }))
        let expected = version == .http1_1 ? "Not Found" : nil
        #expect(response.status == 404)
        #expect(response.reasonPhrase == expected)
        #expect(heads.withLock { $0.map(\.reasonPhrase) } == [expected])
    }

    @Test("a streaming destination's head says where the response comes from, before the body")
    func streamingHeadCarriesTheConnection() async throws {
        let fixture = try Fixture()
        let heads = LockedValue<[HTTPResponseHead]>([])
        let bodyBeforeHead = LockedValue(false)
        var request = HTTPRequest(url: fixture.url("a.test"))
        request.reportsTLSDetails = true
        let client = try fixture.client()
        let response = try await client.execute(
            request,
            to: .streaming(
                head: { head in heads.withLock { $0.append(head) } },
                chunk: { _ in if heads.withLock({ $0.isEmpty }) { bodyBeforeHead.withLock { $0 = true } } }))
        let head = try #require(heads.withLock { $0.first })
        #expect(heads.withLock { $0.count } == 1)
        #expect(!bodyBeforeHead.withLock { $0 })
        #expect(head.status == 200)
        let connection = try #require(head.connection)
        #expect(connection.remoteAddress == response.connection.remoteAddress)
        #expect(connection.remotePort == fixture.servers.httpsPort)
        #expect(connection.resolution?.host == "a.test")
        #expect(connection.tls?.serverName == "a.test")
        #expect(connection.tls?.verified == true)
    }

    /// A client whose pool allows `limit` connections per host (HTTP/1.1, so each request holds one).
    func limitedClient(_ fixture: Fixture, limit: Int) throws -> HTTPClient {
        var configuration = HTTPClient.Configuration(trust: fixture.freshTrust(), timeouts: .generous, httpVersion: .http1_1)
        configuration.maximumConnectionsPerHost = limit
        return try HTTPClient(configuration: configuration, resolver: fixture.resolver())
    }

    @Test("the connection limit is per host: names on the same addresses do not close each other's connections")
    func connectionLimitIsPerHost() async throws {
        let fixture = try Fixture()
        let client = try limitedClient(fixture, limit: 1)
        defer { Task { await client.closeIdleConnections() } }
        var reused: [Bool] = []
        for host in ["a.test", "b.test", "a.test", "b.test"] {
            let response = try await client.execute(HTTPRequest(url: fixture.url(host)))
            #expect(response.text == "vhost=\(host)\n")
            reused.append(response.connection.reusedConnection)
        }
        #expect(reused == [false, false, true, true])
    }

    @Test("a request waiting for a free connection fails at its connect time limit, not when one frees up")
    func waitingForAConnectionTimesOut() async throws {
        let fixture = try Fixture()
        let client = try limitedClient(fixture, limit: 1)
        // 127.0.0.50 (nginx listens there for the load tests, which run in a process of their own):
        // this process's sockets to it are this test's.
        let address = "127.0.0.50", port = fixture.servers.httpsPort
        var slowRequest = HTTPRequest(url: fixture.url("a.test", "/hold"))
        slowRequest.connectTo = [IPAddress(address)!]
        let slow = Task { [slowRequest] in try await client.execute(slowRequest) }
        defer { slow.cancel() }
        // Wait until the slow request holds the one connection.
        let connected = ContinuousClock.now
        while try ProcessProbe.sockets(to: address, port: port) == 0 {
            guard ContinuousClock.now - connected < .seconds(20) else { Issue.record("the slow request never connected"); return }
            try await Task.sleep(for: .milliseconds(20))
        }
        var waiting = HTTPRequest(url: fixture.url("a.test"))
        waiting.connectTo = [IPAddress(address)!]
        waiting.timeouts = Timeouts(connect: 1, total: 20)
        let start = ContinuousClock.now
        let error = try await #require(throws: HTTPClientError.self) { try await client.execute(waiting) }
        let elapsed = ContinuousClock.now - start
        #expect(error.kind == .timedOut)
        #expect(error.curlCode == 28)
        #expect(error.message.contains("waiting for a free connection"), "\(error.message)")
        // /hold answers (and frees the connection) under 15 s after `start`, after which this request
        // would have succeeded: the time-out itself shows it did not wait for that. The limit is 1 s
        // plus the engine's 0.1 s grace; the bound leaves room for a loaded machine (3.6 s seen) and
        // ThreadSanitizer (4.8 s seen), scaled under the sanitizers (TestTimeScale).
        #expect(elapsed < .seconds(TestTimeScale.scaled(10)), "failed after \(elapsed)")
    }
}
