import Foundation
import HTTPDNSCore
import Testing
@testable import HTTPTransport

@Suite("Request to option list")
struct TransferOptionsTests {
    /// A GET over HTTPS with the client's defaults.
    let get = TransferOptions.Facts(
        route: nil, proxy: nil, version: .http2, multiplexes: true, connect: 10, total: nil, idle: nil,
        verifies: true, isHTTPS: true, requiresOCSPStapling: false, limitsConnections: true, method: "GET",
        bodyLength: nil, headers: [:], omittedHeaders: [], userAgent: "httpdns/1.0", decompresses: true)

    @Test("a head trace binds the debug callback (verbose mode with it); without one neither is set")
    func headTrace() {
        #expect(TransferOptions(get, connectTo: nil)[.headTraceCallback] == nil)
        var traced = get
        traced.tracesHeads = true
        let options = TransferOptions(traced, connectTo: nil)
        #expect(options[.headTraceCallback] == .binding)
        // Another list: a handle holding one is reset before it takes the other.
        #expect(HandleReuse.application(held: options.options, sameList: false, wanted: TransferOptions(get, connectTo: nil).options) == .resetThenSetAll)
    }

    @Test("a plain GET: HTTP/2 waiting to multiplex, verification on, the pool's store, the client's User-Agent")
    func plainGet() {
        let options = TransferOptions(get, connectTo: nil)
        #expect(options[.httpVersion] == .version(.http2))
        #expect(options[.pipeWait] == .long(1))
        #expect(options[.socketOptionCallback] == .binding)
        #expect(options[.connectTimeoutMilliseconds] == .long(10_000))
        #expect(options[.timeoutMilliseconds] == nil)
        #expect(options[.verifyPeer] == .long(1) && options[.verifyHost] == .long(2))
        #expect(options[.caInfo] == .null && options[.caPath] == .null && options[.tlsCallback] == .binding)
        #expect(options[.verifyStatus] == nil)
        #expect(options[.proxy] == .text("") && options[.noProxy] == .text(""))
        #expect(options[.followLocation] == .long(0))
        #expect(options[.httpHeader] == .lines(["User-Agent: httpdns/1.0"]))
        #expect(options[.acceptEncoding] == .text(""))
        #expect(options[.noBody] == nil && options[.customRequest] == nil && options[.post] == nil)
        #expect(options[.connectTo] == nil && options[.suppressConnectHeaders] == nil)
        // Each option once.
        #expect(Set(options.options).count == options.options.count)
    }

    @Test("HTTP/1.1 neither waits to multiplex nor binds the socket callback without a connection limit")
    func http1() {
        var facts = get
        facts.version = .http1_1
        facts.limitsConnections = false
        let options = TransferOptions(facts, connectTo: nil)
        #expect(options[.httpVersion] == .version(.http1_1))
        #expect(options[.pipeWait] == nil)
        #expect(options[.socketOptionCallback] == nil)
    }

    @Test("methods: HEAD has no body, others are custom requests, a body is a POST with its length")
    func methods() {
        var facts = get
        facts.method = "HEAD"
        #expect(TransferOptions(facts, connectTo: nil)[.noBody] == .long(1))
        facts.method = "DELETE"
        #expect(TransferOptions(facts, connectTo: nil)[.customRequest] == .text("DELETE"))
        facts.method = "POST"
        facts.bodyLength = 5
        let post = TransferOptions(facts, connectTo: nil)
        #expect(post[.post] == .long(1) && post[.postFieldSize] == .size(5) && post[.bodyCallbacks] == .binding)
        #expect(post[.customRequest] == nil)
        facts.method = "PUT"
        facts.bodyLength = -1
        let put = TransferOptions(facts, connectTo: nil)
        #expect(put[.customRequest] == .text("PUT") && put[.postFieldSize] == .size(-1))
    }

    @Test("header lines: empty values, omitted fields, framing fields left to libcurl, no form Content-Type")
    func headerLines() {
        var facts = get
        facts.headers = ["X-Empty": "", "Content-Length": "5", "Transfer-Encoding": "chunked", "Accept": "*/*"]
        facts.omittedHeaders = ["Accept-Encoding", "User-Agent"]
        facts.bodyLength = 5
        facts.method = "POST"
        guard case .lines(let lines)? = TransferOptions(facts, connectTo: nil)[.httpHeader] else {
            Issue.record("no header list")
            return
        }
        #expect(Set(lines) == ["X-Empty;", "Accept: */*", "Accept-Encoding:", "User-Agent:", "Content-Type:"])
        facts.bodyLength = nil
        facts.method = "GET"
        facts.omittedHeaders = []
        guard case .lines(let getLines)? = TransferOptions(facts, connectTo: nil)[.httpHeader] else {
            Issue.record("no header list")
            return
        }
        // Without a body the caller's Content-Length is theirs to send.
        #expect(getLines.contains("Content-Length: 5") && getLines.contains("User-Agent: httpdns/1.0"))
        #expect(!getLines.contains("Content-Type:"))
    }

    @Test("time limits in milliseconds, an idle limit as libcurl's low-speed pair, whole seconds rounded up")
    func limits() {
        var facts = get
        facts.connect = 0.25
        facts.total = 2
        facts.idle = 1.2
        let options = TransferOptions(facts, connectTo: nil)
        #expect(options[.connectTimeoutMilliseconds] == .long(250))
        #expect(options[.timeoutMilliseconds] == .long(2_000))
        #expect(options[.lowSpeedLimit] == .long(1) && options[.lowSpeedTime] == .long(2))
    }

    @Test("verification off is two values, not other options; cleartext binds no TLS callback; OCSP stapling when required")
    func trust() {
        var facts = get
        facts.verifies = false
        let insecure = TransferOptions(facts, connectTo: nil)
        #expect(insecure[.verifyPeer] == .long(0) && insecure[.verifyHost] == .long(0))
        #expect(insecure.options == TransferOptions(get, connectTo: nil).options)
        facts.isHTTPS = false
        let cleartext = TransferOptions(facts, connectTo: nil)
        #expect(cleartext[.tlsCallback] == nil && cleartext[.caInfo] == nil)
        facts = get
        facts.requiresOCSPStapling = true
        #expect(TransferOptions(facts, connectTo: nil)[.verifyStatus] == .long(1))
    }

    @Test("a proxy suppresses its CONNECT answer; an IP-direct route is a CONNECT_TO entry")
    func routes() {
        var facts = get
        facts.proxy = "http://proxy.test:3128"
        let proxied = TransferOptions(facts, connectTo: nil)
        #expect(proxied[.proxy] == .text("http://proxy.test:3128") && proxied[.suppressConnectHeaders] == .long(1))
        let direct = TransferOptions(get, connectTo: "a.test:443:r1.httpdns:443")
        #expect(direct[.connectTo] == .lines(["a.test:443:r1.httpdns:443"]))
    }

    @Test("an HTTPS record's port is the CONNECT_TO entry's second port and the RESOLVE entry's; the URL's port stays first")
    func connectPort() throws {
        var facts = get
        facts.route = .init(host: "a.test", port: 443, addresses: [IPAddress("127.0.0.1")!], connectPort: 8443)
        let prepared = try #require(PreparedOptions(facts, host: "a.test"))
        let route = try #require(prepared.route)
        #expect(prepared.options[.connectTo] == .lines(["a.test:443:\(route.name):8443"]))
        #expect(route.resolveEntry == "\(route.name):8443:127.0.0.1")
        var same = facts
        same.route?.connectPort = 443
        #expect(same != facts, "another port is another list")
    }

    @Test("the memo hands the same list to requests with the same facts and builds another for other facts")
    func memo() throws {
        let memo = TransferOptionsMemo()
        var facts = get
        facts.route = .init(host: "a.test", port: 443, addresses: [IPAddress("127.0.0.1")!])
        let first = try #require(memo.options(for: facts, host: "a.test"))
        let again = try #require(memo.options(for: facts, host: "a.test"))
        #expect(first === again)
        #expect(first.route != nil && first.list(for: .connectTo) != nil && first.list(for: .httpHeader) != nil)
        var other = facts
        other.route = .init(host: "a.test", port: 443, addresses: [IPAddress("::1")!])
        let second = try #require(memo.options(for: other, host: "a.test"))
        #expect(second !== first)
        #expect(second.route?.name != first.route?.name)
        // Kept for the most recent routes only.
        for port in 1...TransferOptionsMemo.capacity {
            var filler = facts
            filler.route?.port = port
            _ = memo.options(for: filler, host: "a.test")
        }
        #expect(try #require(memo.options(for: facts, host: "a.test")) !== first)
    }
}
