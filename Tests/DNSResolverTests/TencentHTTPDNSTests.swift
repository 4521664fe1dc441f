@testable import DNSResolver
import Foundation
import HTTPDNSCore
import Testing
import TestSupport

/// Tencent Cloud HTTPDNS (`DNSPodHTTPDNSEndpoint`) against its published documents. Request and
/// answer examples are copied from them; every ciphertext the tests expect or answer with is made by
/// the `openssl` command (`OpenSSLTool`), not by the code under test.
///
/// Sources: "HTTP 请求方式查询" / "Querying with HTTP Request Methods"
/// (https://www.tencentcloud.com/document/product/1130/44468), "HTTPS 请求方式查询"
/// (https://www.tencentcloud.com/zh/document/product/1130/44469), "AES、DES 加密解密说明"
/// (https://cloud.tencent.com/document/api/379/3530).
@Suite("Tencent Cloud HTTPDNS")
struct TencentHTTPDNSTests {
    static let url = URL(string: "https://119.29.29.99")!

    static func text(_ body: String, status: Int = 200) -> DoHHTTPResponse {
        DoHHTTPResponse(status: status, contentType: "text/html", body: Data(body.utf8))
    }

    static func items(_ url: URL) -> [String: String] {
        var items: [String: String] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [] { items[item.name] = item.value ?? "" }
        return items
    }

    static func endpoint(_ authentication: DNSPodHTTPDNSEndpoint.Authentication, clientSubnet: IPAddress? = nil) -> DNSPodHTTPDNSEndpoint {
        DNSPodHTTPDNSEndpoint(url: url, authentication: authentication, clientSubnet: clientSubnet)
    }

    static func addresses(_ texts: String...) -> [IPAddress] { texts.map { IPAddress($0)! } }

    // MARK: DES

    @Test("alg=des: the documents' example, www.dnspod.cn under key dnspodpass, is dn=87ae992c1321f299da3c0210a9900ae7")
    func desRequestMatchesThePublishedExample() throws {
        // "AES、DES 加密解密说明", DES 算法: the published ciphertext; openssl agrees with it, from the
        // key's first 8 bytes (the example's key has 10; DES keys are 8).
        let published = "87ae992c1321f299da3c0210a9900ae7"
        #expect(OpenSSLTool.hex(try OpenSSLTool.enc("des-ecb", key: Array("dnspodpa".utf8), input: Array("www.dnspod.cn".utf8))) == published)
        let url = try Self.endpoint(.des(keyID: "xxx", key: "dnspodpass")).requestURL(for: ["www.dnspod.cn"], families: .ipv4)
        #expect(url.path == "/d")
        #expect(Self.items(url) == ["dn": published, "id": "xxx", "alg": "des", "ttl": "1"])
    }

    @Test("alg=des: the answer is the hex of the DES-ECB ciphertext of the text form")
    func desAnswerIsDecrypted() async throws {
        let key = Array("dnspodpa".utf8)
        // The documents' decrypted example answer, with ttl=1's ",TTL".
        let sealed = OpenSSLTool.hex(try OpenSSLTool.enc("des-ecb", key: key, input: Array("121.12.53.35;106.227.19.35,120".utf8)))
        let transport = FakeDoHTransport { _ in Self.text(sealed) }
        let answer = try await Self.endpoint(.des(keyID: "xxx", key: "dnspodpass")).lookup("www.dnspod.cn", families: .ipv4, transport: transport, timeout: 5)
        #expect(answer == .addresses(Self.addresses("121.12.53.35", "106.227.19.35"), ttl: 120))
    }

    @Test("alg=des: ip= is encrypted like dn, as the documents require")
    func desClientSubnetIsEncrypted() throws {
        let endpoint = Self.endpoint(.des(keyID: "7", key: "12345678"), clientSubnet: IPAddress("1.2.3.4"))
        let items = Self.items(try endpoint.requestURL(for: ["a.test"], families: .ipv4))
        #expect(items["ip"] == OpenSSLTool.hex(try OpenSSLTool.enc("des-ecb", key: Array("12345678".utf8), input: Array("1.2.3.4".utf8))))
    }

    @Test(
        "an answer that is not the hex of whole DES blocks, or does not decrypt, is an endpoint failure",
        arguments: ["zz", "0102", "0011223344556677"])
    func desGarbageFails(body: String) async throws {
        let transport = FakeDoHTransport { _ in Self.text(body) }
        await #expect(throws: ProviderFailure.self) {
            try await Self.endpoint(.des(keyID: "7", key: "12345678")).lookup("a.test", families: .ipv4, transport: transport, timeout: 5)
        }
    }

    // MARK: AES

    @Test("alg=aes: dn is the hex of the IV and the AES-128-CBC ciphertext, as openssl makes it")
    func aesRequestMatchesOpenSSL() throws {
        let key = "0123456789abcdef"
        let iv = [UInt8](0..<16)
        let url = try Self.endpoint(.aes(keyID: "42", key: key)).requestURL(for: ["cloud.tencent.com"], families: .ipv6, iv: iv)
        let expected = OpenSSLTool.hex(iv + (try OpenSSLTool.enc("aes-128-cbc", key: Array(key.utf8), iv: iv, input: Array("cloud.tencent.com".utf8))))
        #expect(Self.items(url) == ["dn": expected, "id": "42", "alg": "aes", "ttl": "1", "type": "AAAA"])
    }

    @Test("alg=aes: an answer made by openssl (IV first) decrypts to the addresses")
    func aesAnswerIsDecrypted() async throws {
        let key = "0123456789abcdef"
        let iv = [UInt8](repeating: 9, count: 16)
        let sealed = OpenSSLTool.hex(iv + (try OpenSSLTool.enc("aes-128-cbc", key: Array(key.utf8), iv: iv, input: Array("2.3.3.4;2.3.3.5,60".utf8))))
        let transport = FakeDoHTransport { _ in Self.text(sealed) }
        let answer = try await Self.endpoint(.aes(keyID: "42", key: key)).lookup("a.test", families: .ipv4, transport: transport, timeout: 5)
        #expect(answer == .addresses(Self.addresses("2.3.3.4", "2.3.3.5"), ttl: 60))
    }

    @Test(
        "keys the documents do not allow are refused before anything is sent, without quoting them",
        arguments: [
            (DNSPodHTTPDNSEndpoint.Authentication.des(keyID: "1", key: "short"), "the DES key must be at least 8 bytes (its first 8 are used), not 5"),
            (.aes(keyID: "1", key: "fifteen-bytes!!"), "the AES key must be 16, 24 or 32 bytes, not 15"),
            (.aes(keyID: "", key: "0123456789abcdef"), "the key ID is empty"),
            (.token(""), "the token is empty")
        ])
    func badKeysAreRefused(authentication: DNSPodHTTPDNSEndpoint.Authentication, problem: String) async throws {
        let transport = FakeDoHTransport { _ in Self.text("") }
        await #expect(throws: ProviderFailure.endpointFailed(Self.url, reason: "not sent: \(problem)")) {
            try await Self.endpoint(authentication).lookup("a.test", families: .ipv4, transport: transport, timeout: 5)
        }
        #expect(transport.requests.isEmpty)
    }

    // MARK: The HTTPS entry (token)

    @Test("the HTTPS entry sends dn in the clear with token=, and ip= as given")
    func tokenEntry() async throws {
        let transport = FakeDoHTransport { request in
            #expect(Self.items(request.url) == ["dn": "cloud.tencent.com", "token": "711886787", "ip": "1.2.3.4", "ttl": "1"])
            return Self.text("2.3.3.4;2.3.3.5;2.3.3.6,120")
        }
        let endpoint = Self.endpoint(.token("711886787"), clientSubnet: IPAddress("1.2.3.4"))
        #expect(try await endpoint.lookup("cloud.tencent.com", families: .ipv4, transport: transport, timeout: 5) == .addresses(Self.addresses("2.3.3.4", "2.3.3.5", "2.3.3.6"), ttl: 120))
    }

    struct QuotingTransport: DoHTransport {
        func send(
            url: URL, method: String, headers: [(String, String)], body: Data?, connectTo: [IPAddress], timeout: TimeInterval, maxResponseBytes: Int
        ) async throws -> DoHHTTPResponse {
            throw ProviderFailure.endpointFailed(url, reason: "connection refused")
        }
    }

    @Test("a transport error that quotes the request URL does not carry the token into the message")
    func tokenIsRedacted() async throws {
        let error = try await #require(throws: ProviderFailure.self) {
            try await Self.endpoint(.token("s3cr3t+token")).lookup("a.test", families: .ipv4, transport: QuotingTransport(), timeout: 5)
        }
        #expect(!error.description.contains("s3cr3t"), "\(error)")
        #expect(error.description.contains("[redacted]"), "\(error)")
        #expect(!Self.endpoint(.token("s3cr3t")).description.contains("s3cr3t"))
        #expect(!Self.endpoint(.aes(keyID: "1", key: "0123456789abcdef")).description.contains("0123456789abcdef"))
    }

    // MARK: The text answer (examples from "请求说明" and "请求异常或无记录说明")

    @Test("type=addrs: A then AAAA, each with its TTL, and the client address after '|'")
    func dualAnswer() throws {
        let text = "2.3.3.4;2.3.3.5;2.3.3.6,120-2402:4e00:0123:4567:0::2345;2403:4e00:0123:4567:0::2346,120|1.2.3.4"
        let answers = try DNSPodAnswer.parse(text, names: ["cloud.tencent.com"], families: [.ipv4, .ipv6], endpoint: Self.url)
        #expect(
            answers["cloud.tencent.com"]
                == .addresses(Self.addresses("2402:4e00:123:4567::2345", "2403:4e00:123:4567::2346", "2.3.3.4", "2.3.3.5", "2.3.3.6"), ttl: 120))
    }

    @Test("both families are asked in one request (type=addrs), one only with AAAA or nothing")
    func typeParameter() throws {
        let endpoint = Self.endpoint(.none)
        #expect(Self.items(try endpoint.requestURL(for: ["a.test"], families: .both))["type"] == "addrs")
        #expect(Self.items(try endpoint.requestURL(for: ["a.test"], families: .ipv6))["type"] == "AAAA")
        #expect(Self.items(try endpoint.requestURL(for: ["a.test"], families: .ipv4))["type"] == nil)
    }

    @Test("'0' for a family and an empty answer are 'no addresses' (NODATA), never NXDOMAIN")
    func noRecord() throws {
        let none = try DNSPodAnswer.parse("cloud.tencent.com.:0-0|1.2.3.4", names: ["cloud.tencent.com"], families: [.ipv4, .ipv6], endpoint: Self.url)
        #expect(none["cloud.tencent.com"] == .noAddresses(negativeTTL: nil))
        let v4only = try DNSPodAnswer.parse("cloud.tencent.com.:2.3.4.5;3.3.3.3-0|1.2.3.4", names: ["cloud.tencent.com"], families: [.ipv4, .ipv6], endpoint: Self.url)
        #expect(v4only["cloud.tencent.com"] == .addresses(Self.addresses("2.3.4.5", "3.3.3.3"), ttl: 0))
        let empty = try DNSPodAnswer.parse("", names: ["a.test", "b.test"], families: [.ipv4], endpoint: Self.url)
        #expect(empty == ["a.test": .noAddresses(negativeTTL: nil), "b.test": .noAddresses(negativeTTL: nil)])
    }

    @Test("a batch answer is one 'NAME.:' line per name; the client address follows the last")
    func batchAnswer() throws {
        let text = """
            cloud.tencent.com.:0
            www.qq.com.:3.3.3.4;3.3.3.5;3.3.3.6,180
            www.dnspod.cn.:4.3.3.4;4.3.3.5;4.3.3.6,60|1.2.3.4
            """
        let answers = try DNSPodAnswer.parse(text, names: ["cloud.tencent.com", "www.qq.com", "www.dnspod.cn"], families: [.ipv4], endpoint: Self.url)
        #expect(answers["cloud.tencent.com"] == .noAddresses(negativeTTL: nil))
        #expect(answers["www.qq.com"] == .addresses(Self.addresses("3.3.3.4", "3.3.3.5", "3.3.3.6"), ttl: 180))
        #expect(answers["www.dnspod.cn"] == .addresses(Self.addresses("4.3.3.4", "4.3.3.5", "4.3.3.6"), ttl: 60))
    }

    @Test("a batch of up to 8 names goes in one request, dn comma-joined; more is refused unsent")
    func batchRequest() async throws {
        let transport = FakeDoHTransport { request in
            #expect(Self.items(request.url)["dn"] == "a.test,b.test")
            return Self.text("a.test.:1.2.3.4,60\nb.test.:0")
        }
        let endpoint = Self.endpoint(.none)
        let answers = try await endpoint.lookup(batch: ["a.test", "b.test"], families: .ipv4, transport: transport, timeout: 5)
        #expect(answers == ["a.test": .addresses(Self.addresses("1.2.3.4"), ttl: 60), "b.test": .noAddresses(negativeTTL: nil)])
        #expect(endpoint.batchLimit == 8)
        await #expect(throws: ProviderFailure.self) {
            try await endpoint.lookup(batch: (1...9).map { "\($0).test" }, families: .ipv4, transport: transport, timeout: 5)
        }
        #expect(transport.requests.count == 1)
    }

    @Test(
        "malformed answers are endpoint failures, so the resolver fails over",
        arguments: [
            ("1.2.3.4,60-::1,60", ["a.test"], "2 parts"),
            ("1.2.3.4,sixty", ["a.test"], "malformed TTL"),
            ("1.2.3.4,-1", ["a.test"], "2 parts"), // "-" separates the A and AAAA parts
            ("1.2.3.4,1,2", ["a.test"], "malformed answer"),
            ("::1,60", ["a.test"], "not an IPv4 address"),
            ("1.2.3.4|not-an-address", ["a.test"], "not a client address"),
            ("1.2.3.4,60\n5.6.7.8,60", ["a.test", "b.test"], "no 'NAME.:'"),
            ("bad_name!.:1.2.3.4", ["a.test"], "not a host name")
        ])
    func malformed(text: String, names: [String], reason: String) throws {
        let error = try #require(throws: ProviderFailure.self) { try DNSPodAnswer.parse(text, names: names, families: [.ipv4], endpoint: Self.url) }
        guard case .endpointFailed(_, let message) = error else { Issue.record("\(error)"); return }
        #expect(message.contains(reason), "\(message)")
    }

    @Test("a line for a name not asked is ignored; a single answer for another name fails")
    func otherNames() async throws {
        let answers = try DNSPodAnswer.parse("evil.test.:10.9.9.9,60\na.test.:1.2.3.4,60", names: ["a.test", "b.test"], families: [.ipv4], endpoint: Self.url)
        #expect(answers == ["a.test": .addresses(Self.addresses("1.2.3.4"), ttl: 60)])
        let transport = FakeDoHTransport { _ in Self.text("evil.test.:10.9.9.9,60") }
        await #expect(throws: ProviderFailure.self) {
            try await Self.endpoint(.none).lookup("a.test", families: .ipv4, transport: transport, timeout: 5)
        }
    }

    @Test("the documented error statuses (404, 429, 501) are endpoint failures", arguments: [404, 429, 501])
    func errorStatuses(status: Int) async throws {
        let transport = FakeDoHTransport { _ in Self.text("", status: status) }
        let error = try await #require(throws: ProviderFailure.self) {
            try await Self.endpoint(.none).lookup("a.test", families: .ipv4, transport: transport, timeout: 5)
        }
        #expect(error == .endpointFailed(Self.url, reason: "HTTP \(status)\(status == 429 ? " (rate limited)" : status == 501 ? " (server error)" : "")"))
    }
}
