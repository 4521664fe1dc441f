import Foundation
import Testing
import HTTPDNS
import TestSupport

extension ResolverIntegrationSuites {
    /// A target server that fails mid-request, against the provider server's `/fault/...` paths
    /// (HTTP/1.1 over TLS with `dns.test`'s certificate).
    @Suite("Target faults")
    struct TargetFaultTests {
        let fixture: Fixture
        let server: ProviderTestServer

        init() async throws {
            fixture = try Fixture()
            server = try await ProviderTestServer.shared()
        }

        /// A client with a pool of its own over HTTP/1.1, so one keep-alive connection carries the
        /// requests of a test in order.
        func client() throws -> HTTPClient {
            try fixture.client(trust: fixture.freshTrust(), resolver: MutableResolver(addresses: [IPAddress("127.0.0.1")!]), version: .http1_1)
        }

        func scratchDirectory() throws -> URL { try fixture.scratchDirectory("faults") }

        @Test("a 400 body that outgrows what is held back arrives whole and in order", arguments: [false, true])
        func heldBackBadRequestGrowsPastTheProbe(streaming: Bool) async throws {
            let expected = Data(repeating: UInt8(ascii: "a"), count: 600) + Data(repeating: UInt8(ascii: "b"), count: 600)
            if streaming {
                let received = LockedValue(Data())
                let response = try await client().execute(HTTPRequest(url: server.url("/fault/400pieces")), to: .handler { chunk in received.withLock { $0.append(chunk) } })
                #expect(response.status == 400)
                #expect(received.withLock { $0 } == expected)
            } else {
                let response = try await client().execute(HTTPRequest(url: server.url("/fault/400pieces")))
                #expect(response.status == 400)
                #expect(response.body == expected)
            }
        }

        @Test("a server closing the connection mid-body is a partial-file error (curl 18) and leaves no file")
        func midBodyClose() async throws {
            let directory = try scratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let error = try await #require(throws: HTTPClientError.self) {
                try await client().execute(HTTPRequest(url: server.url("/fault/truncate")), to: .file(directory.appendingPathComponent("out")))
            }
            #expect(error.kind == .transferFailed)
            #expect(error.curlCode == 18, "\(error)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }

        @Test("fetch -o of a body cut short exits 18 and leaves neither the file nor a temporary one")
        func midBodyCloseCLI() async throws {
            let directory = try scratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let result = try await fixture.httpdns([
                "fetch", "-o", directory.appendingPathComponent("out").path, server.url("/fault/truncate").absoluteString,
                "--resolve", "dns.test:\(server.port):127.0.0.1", "--cacert", fixture.servers.caCertificate.path
            ])
            #expect(result.status == 18, "\(result.stderrText)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }

        @Test(
            "fetch -v describes the response when its head arrives, so also when the body is then cut short: with -i, -o FILE and -o naming stderr",
            arguments: [["-i"], ["-o", "FILE"], ["-o", "/dev/stderr"], []])
        func verboseDescribesAtTheHead(options: [String]) async throws {
            let directory = try scratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("out").path
            let result = try await fixture.httpdns(
                ["fetch", "-v"] + options.map { $0 == "FILE" ? file : $0 } + [
                    server.url("/fault/truncate").absoluteString, "--resolve", "dns.test:\(server.port):127.0.0.1", "--cacert", fixture.servers.caCertificate.path
                ])
            #expect(result.status == 18, "\(result.stderrText)")
            #expect(result.stderrText.contains("* connected to 127.0.0.1 port \(server.port)"), "\(result.stderrText)")
            #expect(result.stderrText.contains("* TLS: "), "\(result.stderrText)")
            #expect(result.stderrText.contains("< HTTP/1.1 200"), "\(result.stderrText)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }

        @Test(
            "fetch -i prints the HTTP/1.1 status line as sent: no trailing space without a reason phrase; a phrase that is not UTF-8 read as Latin-1, not U+FFFD",
            arguments: [
                ("", "HTTP/1.1 200"), ("20", "HTTP/1.1 200"), ("204f4b", "HTTP/1.1 200 OK"),
                ("20436166e9", "HTTP/1.1 200 Caf\u{E9}"), ("20e68890e58a9f", "HTTP/1.1 200 \u{6210}\u{529F}")
            ])
        func includePrintsStatusLineAsSent(tailHex: String, statusLine: String) async throws {
            let url = server.url("/fault/statusline/\(tailHex)").absoluteString
            let trust = ["--resolve", "dns.test:\(server.port):127.0.0.1", "--cacert", fixture.servers.caCertificate.path]
            let result = try await fixture.httpdns(["fetch", "-i", url] + trust)
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stdoutText.hasPrefix(statusLine + "\r\n"), "\(result.stdoutText.debugDescription)")
            #expect(result.stdoutText.hasSuffix("\r\n\r\nok\n"), "\(result.stdoutText.debugDescription)")
            let verbose = try await fixture.httpdns(["fetch", "-v", url] + trust)
            #expect(verbose.stderrText.contains("< \(statusLine)\n"), "\(verbose.stderrText.debugDescription)")
        }

        @Test("a response field value that is not UTF-8 is read as Latin-1, one character per byte, not U+FFFD")
        func fieldValueObsTextIsLatin1() async throws {
            // The status line's tail carries a field: "HTTP/1.1 200\r\nX-Name: Caf\xE9".
            let url = server.url("/fault/statusline/0d0a582d4e616d653a20436166e9")
            let client = try HTTPClient(configuration: HTTPClient.Configuration(trust: fixture.trust), resolver: MutableResolver(addresses: [IPAddress("127.0.0.1")!]))
            let response = try await client.execute(HTTPRequest(url: url))
            #expect(response.status == 200)
            #expect(response.headers[first: "X-Name"] == "Caf\u{E9}")
        }

        @Test(
            "an HTTP/1.1 response whose Content-Length fields disagree, or are not numbers, cannot be framed: curl's 8, not the last value (RFC 9112 §6.3)",
            arguments: [
                ("Content-Length: 10", "conflicting"), ("Content-Length: 3, 4", "conflicting"), ("Content-Length: x", "invalid"),
                ("Content-Length: 3", nil), ("Content-Length: 3, 003", nil), ("Content-Length: 3,", nil),
                ("Content-Length: 3, 3x", "invalid"), ("Content-Length: 99999999999999999999999", "invalid")
            ] as [(String, String?)])
        // (libcurl refuses a value that is not a number itself, "Invalid Content-Length", also curl's 8.)
        func conflictingContentLength(field: String, refusal: String?) async throws {
            // The server's own head then says "Content-Length: 3" for its body "ok\n".
            let hex = ("\r\n" + field).utf8.map { String(format: "%02x", $0) }.joined()
            let url = server.url("/fault/statusline/\(hex)")
            let client = try HTTPClient(configuration: HTTPClient.Configuration(trust: fixture.trust), resolver: MutableResolver(addresses: [IPAddress("127.0.0.1")!]))
            if let refusal {
                let error = try await #require(throws: HTTPClientError.self) { try await client.execute(HTTPRequest(url: url)) }
                #expect(error.kind == .transferFailed)
                #expect(error.curlExitStatus == 8)
                // libcurl refuses some invalid values itself ("Invalid Content-Length"), this the rest.
                #expect(error.message.contains(refusal == "conflicting" ? "conflicting Content-Length" : "nvalid Content-Length"), "\(error.message)")
            } else {
                let response = try await client.execute(HTTPRequest(url: url))
                #expect(response.text == "ok\n")
            }
        }

        @Test("a folded field value (obs-fold) is read as one value with a space for the fold, and the next field is still a field")
        func obsFoldIsJoined() async throws {
            // "HTTP/1.1 200\r\nX-Fold: a\r\n  b\r\n\tc: d\r\nX-Next: e": the fold lines belong to X-Fold.
            let url = server.url("/fault/statusline/0d0a582d466f6c643a20610d0a2020620d0a09633a20640d0a582d4e6578743a2065")
            let client = try HTTPClient(configuration: HTTPClient.Configuration(trust: fixture.trust), resolver: MutableResolver(addresses: [IPAddress("127.0.0.1")!]))
            let response = try await client.execute(HTTPRequest(url: url))
            #expect(response.headers[first: "X-Fold"] == "a b c: d")
            #expect(response.headers[first: "X-Next"] == "e")
            #expect(!response.headers.contains { $0.name.hasPrefix(" ") || $0.name.hasPrefix("\t") })
        }

        @Test("an interim (1xx) response's fields are not the response's, whole or streamed")
        func interimFieldsAreDropped() async throws {
            let client = try HTTPClient(configuration: HTTPClient.Configuration(trust: fixture.trust), resolver: MutableResolver(addresses: [IPAddress("127.0.0.1")!]))
            let response = try await client.execute(HTTPRequest(url: server.url("/fault/interim")))
            #expect(response.status == 200)
            #expect(response.text == "ok\n")
            #expect(response.headers.map(\.name) == ["X-Final", "Content-Type", "Content-Length"])
            let heads = LockedValue<[HTTPResponseHead]>([])
            _ = try await client.execute(
                HTTPRequest(url: server.url("/fault/interim")),
                to: .streaming(head: { head in heads.withLock { $0.append(head) } }, chunk: { _ in }))
            let head = try #require(heads.withLock { $0.first })
            #expect(heads.withLock { $0.count } == 1)
            #expect(head.status == 200)
            #expect(head.headers.map(\.name) == ["X-Final", "Content-Type", "Content-Length"])
        }

        @Test("with racing off, libcurl falls through a black-holed first address after its share of the connect timeout")
        func fallThroughBlackHoleWithoutRacing() async throws {
            let hole = try ResolverIntegrationSuites.HappyEyeballsTests.blackHole("127.0.0.21", port: fixture.servers.httpsPort)
            defer { hole.forEach { close($0) } }
            var configuration = HTTPClient.Configuration(trust: fixture.trust, timeouts: Timeouts(connect: 4, total: 30))
            configuration.racesAddresses = false
            let client = try HTTPClient(configuration: configuration, resolver: MutableResolver(addresses: [IPAddress("127.0.0.21")!, IPAddress("127.0.0.1")!]))
            let response = try await client.execute(HTTPRequest(url: fixture.url("a.test")))
            #expect(response.connection.remoteAddress == "127.0.0.1")
            // libcurl gives the first of two addresses half the connect timeout (2 s of 4), then the
            // second connects at once; before, the second attempt waited out the rest and failed (28).
            let connect = try #require(response.connection.timing?.connect)
            #expect(connect >= 1.9 && connect < 3.9, "connect took \(connect) s")
        }

        @Test("HTTP/2 requests waiting to multiplex on a connection that never completes fail at their connect limit, not two limits later")
        func multiplexWaitersHonourTheConnectLimit() async throws {
            // One address (no race): the first request connects, the others wait for its connection
            // (CURLOPT_PIPEWAIT), which libcurl 7.88 does not time out; when it fails they used to
            // start connections of their own, each taking the whole limit again (4 s for 2 s).
            let hole = try ResolverIntegrationSuites.HappyEyeballsTests.blackHole("127.0.0.22", port: fixture.servers.httpsPort)
            defer { hole.forEach { close($0) } }
            let configuration = HTTPClient.Configuration(trust: fixture.freshTrust(), timeouts: Timeouts(connect: 2, total: 30), httpVersion: .http2)
            let client = try HTTPClient(configuration: configuration, resolver: MutableResolver(addresses: [IPAddress("127.0.0.22")!]))
            let start = ContinuousClock.now
            let errors = await withTaskGroup(of: HTTPClientError?.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        do {
                            _ = try await client.execute(HTTPRequest(url: fixture.url("a.test")))
                            return nil
                        } catch {
                            return error as? HTTPClientError
                        }
                    }
                }
                var errors: [HTTPClientError?] = []
                for await error in group { errors.append(error) }
                return errors
            }
            let elapsed = ContinuousClock.now - start
            #expect(errors.count == 3)
            for error in errors {
                #expect(error?.kind == .timedOut, "\(String(describing: error))")
                #expect(error?.curlCode == 28)
            }
            #expect(errors.contains { $0?.message.contains("waited to multiplex") == true }, "\(errors.map { $0?.message })")
            // The 2 s limit and slack, scaled under the sanitizers (the message above still tells
            // the engine's time-out from a waiter's own connection attempt).
            #expect(elapsed < .seconds(2 + TestTimeScale.scaled(1.5)), "took \(elapsed)")
        }

        @Test("the connect limit covers resolving the name, as CURLOPT_CONNECTTIMEOUT's: a lookup that hangs is curl's 28 at the limit")
        func connectLimitCoversResolution() async throws {
            let configuration = HTTPClient.Configuration(trust: fixture.trust, timeouts: Timeouts(connect: 1, total: nil))
            let client = try HTTPClient(configuration: configuration, resolver: HangingResolver())
            let start = ContinuousClock.now
            let error = try await #require(throws: HTTPClientError.self) { try await client.execute(HTTPRequest(url: fixture.url("a.test"))) }
            let elapsed = ContinuousClock.now - start
            #expect(error.kind == .timedOut)
            #expect(error.curlCode == 28)
            #expect(error.message.contains("resolving a.test timed out after 1000 ms"), "\(error.message)")
            #expect(elapsed < .seconds(1 + TestTimeScale.scaled(2)), "took \(elapsed)")
        }

        @Test("with racing off, libcurl still falls through a refused first address")
        func fallThroughWithoutRacing() async throws {
            var configuration = HTTPClient.Configuration(trust: fixture.trust, timeouts: Timeouts(connect: 10, total: 30))
            configuration.racesAddresses = false
            let client = try HTTPClient(configuration: configuration, resolver: MutableResolver(addresses: [IPAddress("127.0.0.2")!, IPAddress("127.0.0.1")!]))
            let response = try await client.execute(HTTPRequest(url: fixture.url("a.test")))
            #expect(response.connection.remoteAddress == "127.0.0.1")
            #expect(response.connection.timing?.addressRace == nil)
            // libcurl's own connect time: a refusal costs nothing.
            let connect = try #require(response.connection.timing?.connect)
            #expect(connect < 1, "connect took \(connect) s")
        }

        /// Sends a GET that leaves a keep-alive connection in the pool, then `request` to
        /// `/fault/drop?ID`, which the server reads in full and answers by closing the connection.
        /// - Returns: The error, and how many times the request reached the server.
        func dropAfterReuse(_ method: String, body: HTTPRequestBody?, idempotent: Bool? = nil, omitting: Set<String> = []) async throws -> (HTTPClientError, Int) {
            let client = try client()
            let warmup = try await client.execute(HTTPRequest(url: server.url("/resolve?name=a.test&type=A")))
            #expect(warmup.status == 200)
            let path = "/fault/drop?\(UUID().uuidString)"
            var request = HTTPRequest(url: server.url(path), method: method, body: body)
            request.idempotent = idempotent
            request.omittedHeaders = omitting
            let error = try await #require(throws: HTTPClientError.self) { try await client.execute(request) }
            let arrivals = server.requests(containing: path).filter { $0.hasPrefix("\(method) ") }.count
            return (error, arrivals)
        }

        @Test(
            "a non-idempotent request whose reused connection dies is not sent again",
            arguments: [("POST", Data(repeating: 0x61, count: 1000)), ("POST", Data()), ("PATCH", Data(repeating: 0x62, count: 10))])
        func nonIdempotentIsSentOnce(method: String, body: Data) async throws {
            let (error, arrivals) = try await dropAfterReuse(method, body: .data(body))
            #expect(arrivals == 1)
            #expect(error.kind == .transferFailed)
            #expect(error.curlCode == 52)
            #expect(error.message.contains("not idempotent"), "\(error)")
        }

        @Test("a POST with no body at all is not sent again either")
        func bodilessPostIsSentOnce() async throws {
            let (error, arrivals) = try await dropAfterReuse("POST", body: nil)
            #expect(arrivals == 1)
            #expect(error.curlCode == 52)
        }

        @Test("a body from a file is not rewound and resent for a POST")
        func fileBodyIsSentOnce() async throws {
            let directory = try scratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("body")
            try Data(repeating: 0x63, count: 200_000).write(to: file)
            let (error, arrivals) = try await dropAfterReuse("POST", body: .file(file))
            #expect(arrivals == 1)
            #expect(error.curlCode == 52)
        }

        @Test("idempotent requests keep libcurl's resend on a fresh connection", arguments: ["GET", "PUT", "DELETE"])
        func idempotentIsResent(method: String) async throws {
            let (error, arrivals) = try await dropAfterReuse(method, body: method == "PUT" ? .data(Data("put".utf8)) : nil)
            // Once on the reused connection, once on a fresh one (which the server drops too).
            #expect(arrivals == 2)
            #expect(error.kind == .transferFailed)
        }

        @Test("a stream body already read is not resent, and the error says why and what to send instead")
        func readStreamBodyIsNotResent() async throws {
            let (error, arrivals) = try await dropAfterReuse("PUT", body: .stream(InputStream(data: Data("put".utf8)), length: 3))
            #expect(arrivals == 1)
            #expect(error.kind == .bodyReadFailed)
            // It was libcurl's "seek callback returned error 2".
            #expect(error.message.hasPrefix("PUT \(error.url?.absoluteString ?? "?") had to be sent again"), "\(error)")
            #expect(error.message.contains("cannot be replayed: give the body as .data or .file"), "\(error)")
        }

        @Test("a stream body nothing was read from is resent like any other")
        func unreadStreamBodyIsResent() async throws {
            // Empty and chunked (no Expect: the terminating chunk goes out at once): libcurl rewinds
            // it for the resend, which was refused although the stream was still at its start.
            let (error, arrivals) = try await dropAfterReuse("PUT", body: .stream(InputStream(data: Data()), length: nil), omitting: ["Expect"])
            #expect(arrivals == 2)
            #expect(error.kind == .transferFailed, "\(error)")
        }

        @Test("a non-idempotent request with a stream body read once says it is not sent again because of its method")
        func nonIdempotentStreamBodyIsSentOnce() async throws {
            let (error, arrivals) = try await dropAfterReuse("POST", body: .stream(InputStream(data: Data("post".utf8)), length: 4))
            #expect(arrivals == 1)
            #expect(error.curlCode == 52)
            #expect(error.message.contains("not idempotent"), "\(error)")
        }

        @Test("a POST marked idempotent is resent like a GET")
        func postMarkedIdempotentIsResent() async throws {
            let (_, arrivals) = try await dropAfterReuse("POST", body: .data(Data("query".utf8)), idempotent: true)
            #expect(arrivals == 2)
        }

        @Test("a non-idempotent request on a fresh connection still works")
        func nonIdempotentStillWorks() async throws {
            let client = try fixture.client(trust: fixture.freshTrust(), version: .http1_1)
            for _ in 0..<3 {
                let response = try await client.execute(HTTPRequest(url: fixture.url("a.test", "/echo"), method: "POST", body: .data(Data("hello".utf8))))
                #expect(response.status == 200)
            }
        }
    }
}

/// A resolver whose lookups never answer until cancelled.
private struct HangingResolver: HostResolving {
    func resolve(host: String, port: Int) async throws -> HostResolution {
        try await Task.sleep(for: .seconds(3600))
        throw CancellationError()
    }
}
