@testable import DNSResolver
import Foundation
import HTTPDNSCore
import Testing
import TestSupport

/// JSON DoH and the vendor HTTPDNS APIs against a fake transport answering as the public docs describe.
@Suite("Providers")
struct ProviderTests {
    static func json(_ text: String, status: Int = 200, type: String = "application/json") -> DoHHTTPResponse {
        DoHHTTPResponse(status: status, contentType: type, body: Data(text.utf8))
    }

    static func query(_ request: FakeDoHTransport.Request) -> [String: String] {
        var items: [String: String] = [:]
        for item in URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? [] { items[item.name] = item.value ?? "" }
        return items
    }

    static let jsonEndpoint = JSONDoHEndpoint(url: URL(string: "https://json.test/resolve")!, bootstrapAddresses: [IPAddress("192.0.2.53")!])
    static let ali = AlibabaHTTPDNSEndpoint(url: URL(string: "https://ali.test")!, accountID: "100000")
    static let dnspod = DNSPodHTTPDNSEndpoint(url: URL(string: "https://dnspod.test")!)

    @Test(
        "an Alibaba account ID is one path segment whatever it holds: percent-encoded, never a crash or another path",
        arguments: [
            ("a b", "/a%20b/d"), ("1?x=y#f", "/1%3Fx%3Dy%23f/d"), ("../../x", "/..%2F..%2Fx/d"), ("..", "/%2E%2E/d"),
            ("%zz", "/%25zz/d"), ("\u{E9}", "/%C3%A9/d"), ("100000", "/100000/d")
        ])
    func alibabaAccountIDIsOneEncodedSegment(account: String, path: String) {
        let endpoint = AlibabaHTTPDNSEndpoint(url: URL(string: "https://ali.test")!, accountID: account)
        let url = endpoint.requestURL(for: "a.test", families: .ipv4)
        #expect(url.path(percentEncoded: true) == path)
        #expect(url.host() == "ali.test")
    }

    @Test("the first Alibaba API's ip= (client address) goes in d and sign_d, outside the signature")
    func alibabaClientAddress() throws {
        let plain = AlibabaHTTPDNSEndpoint(url: URL(string: "https://ali.test")!, accountID: "100000", clientSubnet: IPAddress("42.120.74.196"))
        let items = URLComponents(url: plain.requestURL(for: "a.test", families: .ipv4), resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(items.map { "\($0.name)=\($0.value ?? "")" } == ["host=a.test", "query=4", "ip=42.120.74.196"])
        var signed = plain
        signed.secret = "s3"
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let signedItems = URLComponents(url: signed.requestURL(for: "a.test", families: .ipv4, now: now), resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(signedItems.map(\.name) == ["host", "query", "ip", "t", "s"])
        #expect(signedItems.last?.value == (try OpenSSLTool.md5("a.test-s3-1700000600")))
    }

    // MARK: JSON DoH

    @Test func jsonDoHAsksAAndAAAAWithNameAndTypeAndReadsTheAnswers() async throws {
        let transport = FakeDoHTransport { request in
            let items = Self.query(request)
            #expect(request.header("Accept") == "application/dns-json")
            #expect(request.connectTo == [IPAddress("192.0.2.53")!])
            if items["type"] == "A" {
                return Self.json(#"{"Status":0,"TC":false,"Answer":[{"name":"a.test.","type":5,"TTL":30,"data":"b.test."},{"name":"b.test.","type":1,"TTL":120,"data":"192.0.2.1"}]}"#)
            }
            return Self.json(#"{"Status":0,"Answer":[{"name":"a.test.","type":28,"TTL":60,"data":"2001:db8::1"}]}"#)
        }
        let answer = try await Self.jsonEndpoint.lookup("a.test", families: .both, transport: transport, timeout: 5)
        // The least TTL over the chain: the CNAME's 30 s.
        #expect(answer == .addresses([IPAddress("2001:db8::1")!, IPAddress("192.0.2.1")!], ttl: 30))
        #expect(Set(transport.requests.map { Self.query($0)["type"] }) == ["A", "AAAA"])
        #expect(transport.requests.allSatisfy { Self.query($0)["name"] == "a.test" && $0.endpoint == "https://json.test/resolve" })
    }

    @Test("JSON DoH follows the CNAME chain from the name asked: records of names off it are ignored, a loop is a failure")
    func jsonDoHFollowsTheChainOnly() async throws {
        func answer(_ json: String) async throws(DoHClient.Failure) -> DoHClient.Answer {
            try await Self.jsonEndpoint.lookup("x.test", families: .ipv4, transport: FakeDoHTransport { _ in Self.json(json) }, timeout: 5)
        }
        // Only another name's address: none for x.test.
        #expect(
            try await answer(#"{"Status":0,"Answer":[{"name":"evil.example.","type":1,"TTL":60,"data":"10.9.9.9"}]}"#)
                == .noAddresses(negativeTTL: nil))
        // The chain's end, case and trailing dot aside; an address of a name off the chain is not taken.
        #expect(
            try await answer(
                #"{"Status":0,"Answer":[{"name":"X.test.","type":5,"TTL":10,"data":"Target.test."},{"name":"target.test.","type":1,"TTL":300,"data":"192.0.2.7"},{"name":"evil.example.","type":1,"TTL":300,"data":"10.9.9.9"}]}"#
            )
                == .addresses([IPAddress("192.0.2.7")!], ttl: 10))
        await #expect(throws: DoHClient.Failure.self) {
            try await answer(#"{"Status":0,"Answer":[{"name":"x.test.","type":5,"TTL":10,"data":"y.test."},{"name":"y.test.","type":5,"TTL":10,"data":"x.test."}]}"#)
        }
    }

    @Test func jsonDoHTakesAnHTTPCachesAgeOffTheTTL() async throws {
        let transport = FakeDoHTransport { _ in
            var response = Self.json(#"{"Status":0,"Answer":[{"name":"a.test.","type":1,"TTL":120,"data":"192.0.2.1"}]}"#)
            response.age = 45
            return response
        }
        let answer = try await Self.jsonEndpoint.lookup("a.test", families: .ipv4, transport: transport, timeout: 5)
        #expect(answer == .addresses([IPAddress("192.0.2.1")!], ttl: 75))
    }

    @Test func jsonDoHNXDOMAINCarriesTheSOANegativeTTL() async throws {
        let transport = FakeDoHTransport { _ in
            Self.json(#"{"Status":3,"Authority":[{"name":"test.","type":6,"TTL":900,"data":"ns.test. host.test. 1 7200 3600 1209600 60"}]}"#)
        }
        let answer = try await Self.jsonEndpoint.lookup("missing.test", families: .ipv4, transport: transport, timeout: 5)
        #expect(answer == .nameNotFound(negativeTTL: 60))
    }

    @Test(arguments: [
        (#"{"Status":2}"#, "DNS SERVFAIL"),
        (#"{"Status":0,"TC":true}"#, "truncated"),
        (#"not json"#, "malformed JSON"),
        (#"{"Status":0,"Answer":[{"type":1,"TTL":5,"data":"not-an-ip"}]}"#, "bad address")
    ])
    func jsonDoHGarbageIsAnEndpointFailure(body: String, reason: String) async throws {
        let transport = FakeDoHTransport { _ in Self.json(body) }
        do {
            _ = try await Self.jsonEndpoint.lookup("a.test", families: .ipv4, transport: transport, timeout: 5)
            Issue.record("expected a failure")
        } catch {
            guard case .endpointFailed(_, let text) = error else { Issue.record("\(error)"); return }
            #expect(text.contains(reason), "\(text)")
        }
    }

    @Test("server text in a malformed answer reaches the message without its terminal escapes")
    func malformedAnswersAreQuotedPrintable() async throws {
        let json = FakeDoHTransport { _ in Self.json(#"{"Status":0,"Answer":[{"type":1,"TTL":5,"data":"\u001b[31mEVIL\u2028"}]}"#) }
        let jsonError = try await #require(throws: DoHClient.Failure.self) {
            try await Self.jsonEndpoint.lookup("a.test", families: .ipv4, transport: json, timeout: 5)
        }
        #expect(jsonError == .endpointFailed(Self.jsonEndpoint.url, reason: "malformed JSON response: bad address '?[31mEVIL?'"))
        let dnspod = FakeDoHTransport { _ in Self.json("\u{1B}]0;pwned\u{7}1.2.3.4,60", type: "text/html") }
        let dnspodError = try await #require(throws: DoHClient.Failure.self) {
            try await Self.dnspod.lookup("a.test", families: .ipv4, transport: dnspod, timeout: 5)
        }
        #expect(dnspodError == .endpointFailed(Self.dnspod.url, reason: "malformed answer: '?]0' is not an IPv4 address"))
        let ali = FakeDoHTransport { _ in Self.json(#"{"host":"a.test","ips":["\u009b2J"],"ttl":60}"#) }
        let aliError = try await #require(throws: DoHClient.Failure.self) {
            try await Self.ali.lookup("a.test", families: .ipv4, transport: ali, timeout: 5)
        }
        guard case .endpointFailed(_, let reason) = aliError else { Issue.record("\(aliError)"); return }
        #expect(reason.contains("holds '?2J'"), "\(reason)")
    }

    // MARK: HTTP status: 429 and 5xx are "unavailable" for every provider

    @Test(arguments: [429, 500, 503])
    func anOverloadedProviderIsUnavailableNeverNXDOMAIN(status: Int) async throws {
        let transport = FakeDoHTransport { _ in Self.json(#"{"error":"busy"}"#, status: status) }
        let providers: [any ResolutionProvider] = [Self.jsonEndpoint, Self.ali, Self.dnspod]
        for provider in providers {
            do {
                _ = try await provider.lookup("a.test", families: .both, transport: transport, timeout: 5)
                Issue.record("\(provider.kind): expected a failure")
            } catch {
                guard case .endpointFailed(_, let reason) = error else { Issue.record("\(error)"); continue }
                #expect(reason.hasPrefix("HTTP \(status)"))
            }
        }
    }

    // MARK: Alibaba-style

    @Test func aliRequestsTheDAPIWithTheAccountAndBothFamilies() async throws {
        let transport = FakeDoHTransport { request in
            #expect(request.url.path == "/100000/d")
            #expect(Self.query(request) == ["host": "a.test", "query": "4,6"])
            return Self.json(#"{"host":"a.test","ips":["192.0.2.1","192.0.2.2"],"ipsv6":["2001:db8::1"],"ttl":57,"origin_ttl":120,"client_ip":"198.51.100.1"}"#)
        }
        let answer = try await Self.ali.lookup("a.test", families: .both, transport: transport, timeout: 5)
        #expect(answer == .addresses(["2001:db8::1", "192.0.2.1", "192.0.2.2"].map { IPAddress($0)! }, ttl: 57))
    }

    @Test func aliEmptyIPsIsNoAddressesForTheGivenTTL() async throws {
        let transport = FakeDoHTransport { _ in Self.json(#"{"host":"none.test","ips":[],"ttl":30}"#) }
        #expect(try await Self.ali.lookup("none.test", families: .ipv4, transport: transport, timeout: 5) == .noAddresses(negativeTTL: 30))
    }

    @Test func aliSignatureIsMD5OfHostSecretExpiry() {
        // md5("www.aliyun.com-IAmASecret-1534316400"), computed independently with `md5sum`.
        #expect(
            AlibabaHTTPDNSEndpoint.signature(host: "www.aliyun.com", secret: "IAmASecret", expiry: 1_534_316_400)
                == "60c71e98b6d7fcbb366243e224eab457")
    }

    @Test func aliSignedRequestsGoToSignDWithExpiryAndSignature() async throws {
        var signed = Self.ali
        signed.secret = "IAmASecret"
        signed.signatureLifetime = 300
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let url = signed.requestURL(for: "a.test", families: .ipv4, now: now)
        #expect(url.path == "/100000/sign_d")
        let items = Dictionary(uniqueKeysWithValues: URLComponents(url: url, resolvingAgainstBaseURL: false)!.queryItems!.map { ($0.name, $0.value!) })
        #expect(items["t"] == "1700000300")
        #expect(items["s"] == AlibabaHTTPDNSEndpoint.signature(host: "a.test", secret: "IAmASecret", expiry: 1_700_000_300))
        #expect(items["query"] == "4")
    }

    @Test func aliBatchResolvesUpToFiveNamesInOneRequest() async throws {
        let transport = FakeDoHTransport { request in
            #expect(request.url.path == "/100000/resolve")
            #expect(Self.query(request)["host"] == "a.test,b.test")
            return Self.json(
                #"{"dns":[{"host":"a.test","ips":["192.0.2.1"],"type":1,"ttl":60},{"host":"a.test","ips":["2001:db8::1"],"type":28,"ttl":30},{"host":"b.test","ips":[],"type":1,"ttl":20}]}"#)
        }
        let answers = try await Self.ali.lookup(batch: ["a.test", "b.test"], families: .both, transport: transport, timeout: 5)
        #expect(answers["a.test"] == .addresses([IPAddress("2001:db8::1")!, IPAddress("192.0.2.1")!], ttl: 30))
        #expect(answers["b.test"] == .noAddresses(negativeTTL: 20))
        #expect(transport.requests.count == 1)
        await #expect(throws: DoHClient.Failure.self) {
            try await Self.ali.lookup(batch: ["1", "2", "3", "4", "5", "6"].map { "\($0).test" }, families: .both, transport: transport, timeout: 5)
        }
    }

    @Test func aliForbiddenIsAnEndpointFailureThatNamesTheServersCode() async throws {
        let transport = FakeDoHTransport { _ in Self.json(#"{"code":"InvalidAccount"}"#, status: 403) }
        await #expect(throws: DoHClient.Failure.endpointFailed(Self.ali.url, reason: "HTTP 403: code InvalidAccount")) {
            try await Self.ali.lookup("a.test", families: .both, transport: transport, timeout: 5)
        }
    }

    @Test(
        "an error body is quoted only when short, and never with its control characters",
        arguments: [
            (#"{"code":"SignatureExpired","message":"the t parameter is past"}"#, "HTTP 429 (rate limited): code SignatureExpired, message the t parameter is past"),
            (#"{"code":"Bad\u001b[31m\nAccount"}"#, "HTTP 429 (rate limited): code Bad?[31m?Account"),
            // C1 controls (an 8-bit CSI) and bidirectional overrides are escapes too.
            (#"{"code":"Bad\u009b31mRED"}"#, "HTTP 429 (rate limited): code Bad?31mRED"),
            (#"{"message":"ok \u202egnp.exe"}"#, "HTTP 429 (rate limited): message ok ?gnp.exe"),
            ("denied \u{9B}2J now", #"HTTP 429 (rate limited): "denied ?2J now""#),
            ("slow down\n", #"HTTP 429 (rate limited): "slow down""#),
            ("<html><body>Too Many Requests</body></html>", "HTTP 429 (rate limited)"),
            (String(repeating: "x", count: 300), "HTTP 429 (rate limited)"),
            ("two\nlines", "HTTP 429 (rate limited)"),
            (#"{"other":"field"}"#, "HTTP 429 (rate limited)"),
            ("", "HTTP 429 (rate limited)")
        ])
    func errorBodies(body: String, reason: String) async throws {
        let transport = FakeDoHTransport { _ in Self.json(body, status: 429) }
        await #expect(throws: DoHClient.Failure.endpointFailed(Self.ali.url, reason: reason)) {
            try await Self.ali.lookup("a.test", families: .both, transport: transport, timeout: 5)
        }
    }

    @Test func aesCBCMatchesOpenSSLKnownAnswer() throws {
        // NIST SP 800-38A F.2.1 CBC-AES128.Encrypt, first block (no padding block compared).
        let key = ProviderCrypto.bytes(hex: "2b7e151628aed2a6abf7158809cf4f3c")!
        let iv = ProviderCrypto.bytes(hex: "000102030405060708090a0b0c0d0e0f")!
        let plain = ProviderCrypto.bytes(hex: "6bc1bee22e409f96e93d7e117393172a")!
        let sealed = try ProviderCrypto.aesCBC(encrypt: true, key: key, iv: iv, input: plain)
        #expect(ProviderCrypto.hex(Array(sealed.prefix(16))) == "7649abac8119b246cee98e9b12e9197d")
    }

    @Test("no provider sends a query to a URL that is not https")
    func cleartextURLsAreNotQueried() async throws {
        let providers: [any ResolutionProvider] = [
            DoHEndpoint(url: URL(string: "http://dns.test/dns-query")!, bootstrapAddresses: [IPAddress("192.0.2.53")!]),
            DoHEndpoint(url: URL(string: "HTTP://dns.test/dns-query")!, bootstrapAddresses: [], method: .get),
            JSONDoHEndpoint(url: URL(string: "http://json.test/resolve")!),
            AlibabaHTTPDNSEndpoint(url: URL(string: "http://ali.test")!, accountID: "100000"),
            DNSPodHTTPDNSEndpoint(url: URL(string: "http://dnspod.test")!)
        ]
        for provider in providers {
            let transport = FakeDoHTransport { _ in Self.json(#"{"Status":0}"#) }
            do {
                _ = try await provider.lookup("a.test", families: .both, transport: transport, timeout: 5)
                Issue.record("\(provider) answered")
            } catch {
                guard case .endpointFailed(_, let reason) = error else {
                    Issue.record("\(provider): \(error)")
                    continue
                }
                #expect(reason.contains("not sent") && reason.contains("https only"), "\(provider): \(reason)")
            }
            #expect(transport.requests.isEmpty, "\(provider) sent \(transport.requests.count) request(s)")
        }
    }
}
