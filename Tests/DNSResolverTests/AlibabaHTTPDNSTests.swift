@testable import DNSResolver
import Foundation
import HTTPDNSCore
import Testing
import TestSupport

/// Alibaba Cloud EMAS HTTPDNS's `/v2/d` (`AlibabaHTTPDNSV2Endpoint`), clock correction and several
/// accounts, against the Android SDK's request building (aliyun/alibabacloud-httpdns-android-sdk,
/// `ResolveHostHelper`, `SignService`, `AESEncryptService`) and the answer fields "域名解析接口" §6
/// lists (https://help.aliyun.com/document_detail/2978980.html). Signatures and ciphertexts are
/// computed by the `openssl` command (`OpenSSLTool`), from content the tests spell out themselves.
@Suite("Alibaba Cloud HTTPDNS")
struct AlibabaHTTPDNSTests {
    static let url = URL(string: "https://203.107.1.1")!
    static let secret = "00112233445566778899aabbccddeeff"
    static let aesKey = "000102030405060708090a0b0c0d0e0f"
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func items(_ url: URL) -> [(String, String)] {
        (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }
    }

    static func json(_ text: String, status: Int = 200) -> DoHHTTPResponse {
        DoHHTTPResponse(status: status, contentType: "application/json", body: Data(text.utf8))
    }

    @Test("the plain form: id, m=0, dn, q, cip, sdns-*, v and exp in the SDK's order, then s")
    func plainSignedRequest() throws {
        let endpoint = AlibabaHTTPDNSV2Endpoint(
            url: Self.url, accountID: "100000", secret: Self.secret, clientSubnet: IPAddress("1.2.3.4"), customParameters: ["region": "cn"])
        let url = try endpoint.requestURL(for: ["a.test", "b.test"], families: .both, now: Self.now)
        #expect(url.path == "/v2/d")
        let items = Self.items(url)
        #expect(items.map(\.0) == ["id", "m", "dn", "q", "cip", "sdns-region", "v", "exp", "s"])
        #expect(items.dropLast().map(\.1) == ["100000", "0", "a.test,b.test", "4,6", "1.2.3.4", "cn", "1.0", "1700000600"])
        // The signed text, spelled here: the parameters sorted by name, "k=v" joined by "&".
        let content = "cip=1.2.3.4&dn=a.test,b.test&exp=1700000600&id=100000&m=0&q=4,6&sdns-region=cn&v=1.0"
        #expect(items.last?.1 == (try OpenSSLTool.hmacSHA256(hexKey: Self.secret, input: content)))
    }

    @Test("IPv4 only sends no q (the API's default); IPv6 only sends q=6; unsigned sends no s")
    func queryParameter() throws {
        let endpoint = AlibabaHTTPDNSV2Endpoint(url: Self.url, accountID: "1")
        #expect(Self.items(try endpoint.requestURL(for: ["a.test"], families: .ipv4, now: Self.now)).map(\.0) == ["id", "m", "dn", "v", "exp"])
        #expect(Self.items(try endpoint.requestURL(for: ["a.test"], families: .ipv6, now: Self.now)).first { $0.0 == "q" }?.1 == "6")
    }

    @Test("the encrypted form with AES-CBC: enc is IV + AES-CBC of the JSON parameters, and the signature covers enc")
    func encryptedRequest() throws {
        let iv = [UInt8](repeating: 3, count: 16)
        let endpoint = AlibabaHTTPDNSV2Endpoint(url: Self.url, accountID: "100000", secret: Self.secret, aesKey: Self.aesKey, encryption: .aesCBC)
        let items = Self.items(try endpoint.requestURL(for: ["a.test"], families: .both, now: Self.now, iv: iv))
        #expect(items.map(\.0) == ["id", "m", "enc", "v", "exp", "s"])
        let enc = try #require(items.first { $0.0 == "enc" }?.1)
        #expect(enc.hasPrefix(OpenSSLTool.hex(iv)))
        let sealed = OpenSSLTool.bytes(hex: enc)
        let plain = try OpenSSLTool.enc("aes-128-cbc", decrypt: true, key: OpenSSLTool.bytes(hex: Self.aesKey), iv: Array(sealed.prefix(16)), input: Array(sealed.dropFirst(16)))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(plain)) as? [String: String])
        #expect(object == ["dn": "a.test", "q": "4,6"])
        let content = "enc=\(enc)&exp=1700000600&id=100000&m=1&v=1.0"
        #expect(items.last?.1 == (try OpenSSLTool.hmacSHA256(hexKey: Self.secret, input: content)))
    }

    @Test("the encrypted form by default is AES-GCM (m=2): enc is a 12-byte IV, ciphertext and tag, as Python's cryptography makes them")
    func gcmRequest() throws {
        let iv = [UInt8](repeating: 7, count: 12)
        let endpoint = AlibabaHTTPDNSV2Endpoint(url: Self.url, accountID: "100000", secret: Self.secret, aesKey: Self.aesKey, clientSubnet: IPAddress("1.2.3.4"))
        #expect(endpoint.encryption == .aesGCM)
        let items = Self.items(try endpoint.requestURL(for: ["a.test"], families: .both, now: Self.now, iv: iv))
        #expect(items.map(\.0) == ["id", "m", "enc", "v", "exp", "s"])
        #expect(items.first { $0.0 == "m" }?.1 == "2")
        let enc = try #require(items.first { $0.0 == "enc" }?.1)
        let json = #"{"cip":"1.2.3.4","dn":"a.test","q":"4,6"}"#
        let expected = try PythonCrypto.aesGCM(key: OpenSSLTool.bytes(hex: Self.aesKey), iv: iv, input: Array(json.utf8))
        #expect(enc == OpenSSLTool.hex(iv + expected))
        let content = "enc=\(enc)&exp=1700000600&id=100000&m=2&v=1.0"
        #expect(items.last?.1 == (try OpenSSLTool.hmacSHA256(hexKey: Self.secret, input: content)))
    }

    @Test("a mode-2 answer, base64 of IV + AES-GCM ciphertext and tag made by Python, decrypts; a flipped bit fails its tag", arguments: [16, 32])
    func gcmAnswer(keyBytes: Int) async throws {
        let key = (0..<keyBytes).map { UInt8($0) }
        let iv = [UInt8](repeating: 9, count: 12)
        let data = #"{"cip":"1.2.3.4","answers":[{"dn":"a.test","v4":{"ips":["192.0.2.7"],"ttl":90}}]}"#
        let sealed = try PythonCrypto.aesGCM(key: key, iv: iv, input: Array(data.utf8))
        let body = #"{"code":"success","mode":"2","data":"\#(Data(iv + sealed).base64EncodedString())"}"#
        let endpoint = AlibabaHTTPDNSV2Endpoint(url: Self.url, accountID: "1", aesKey: OpenSSLTool.hex(key))
        let transport = FakeDoHTransport { _ in Self.json(body) }
        #expect(try await endpoint.lookup("a.test", families: .ipv4, transport: transport, timeout: 5) == .addresses([IPAddress("192.0.2.7")!], ttl: 90))

        var altered = iv + sealed
        altered[20] ^= 0x01
        let tampered = #"{"code":"success","mode":"2","data":"\#(Data(altered).base64EncodedString())"}"#
        let error = try #require(throws: ProviderFailure.self) {
            try AlibabaV2Answer.parse(Data(tampered.utf8), names: ["a.test"], families: .ipv4, aesKey: key, endpoint: Self.url)
        }
        #expect("\(error)".contains("tag does not match"))
    }

    @Test("ProviderCrypto's AES-GCM and Python's agree both ways, and a wrong key or a short input is refused")
    func gcmRoundTrip() throws {
        let key = OpenSSLTool.bytes(hex: Self.aesKey)
        let iv = [UInt8](repeating: 1, count: 12)
        let text = Array("Hello World!".utf8)
        let ours = try ProviderCrypto.aesGCM(encrypt: true, key: key, iv: iv, input: text)
        #expect(ours.count == text.count + 16)
        #expect(try PythonCrypto.aesGCM(decrypt: true, key: key, iv: iv, input: ours) == text)
        #expect(try ProviderCrypto.aesGCM(encrypt: false, key: key, iv: iv, input: try PythonCrypto.aesGCM(key: key, iv: iv, input: text)) == text)
        #expect(throws: ProviderCrypto.CryptoError.self) { try ProviderCrypto.aesGCM(encrypt: false, key: [UInt8](repeating: 0, count: 16), iv: iv, input: ours) }
        #expect(throws: ProviderCrypto.CryptoError.self) { try ProviderCrypto.aesGCM(encrypt: false, key: key, iv: iv, input: Array(ours.prefix(15))) }
        #expect(throws: ProviderCrypto.CryptoError.self) { try ProviderCrypto.aesGCM(encrypt: true, key: key, iv: [1, 2, 3], input: text) }
    }

    @Test("the answer fields of §6: v4 and v6 per name, no_ip_code and empty ips as no addresses")
    func plainAnswer() throws {
        let body = Data(
            #"{"code":"success","mode":"0","data":{"cip":"192.168.1.1","answers":[{"dn":"www.example.com","v4":{"ips":["180.101.1.1","180.101.1.2"],"ttl":60},"v6":{"ips":["2400:3200::1"],"ttl":30}},{"dn":"none.example.com","v4":{"ips":[],"ttl":60},"v6":{"ips":[],"ttl":60,"no_ip_code":"RRNotExist"}}]}}"#
                .utf8)
        let answers = try AlibabaV2Answer.parse(body, names: ["www.example.com", "none.example.com"], families: .both, aesKey: nil, endpoint: Self.url)
        #expect(answers["www.example.com"] == .addresses(["2400:3200::1", "180.101.1.1", "180.101.1.2"].map { IPAddress($0)! }, ttl: 30))
        #expect(answers["none.example.com"] == .noAddresses(negativeTTL: 60))
    }

    @Test("a mode-1 answer, base64 of IV + AES-CBC made by openssl, decrypts to the addresses")
    func encryptedAnswer() async throws {
        let iv = [UInt8](repeating: 5, count: 16)
        let data = #"{"cip":"1.2.3.4","answers":[{"dn":"a.test","v4":{"ips":["192.0.2.1"],"ttl":120}}]}"#
        let sealed = try OpenSSLTool.enc("aes-128-cbc", key: OpenSSLTool.bytes(hex: Self.aesKey), iv: iv, input: Array(data.utf8))
        let body = #"{"code":"success","mode":"1","data":"\#(Data(iv + sealed).base64EncodedString())"}"#
        let transport = FakeDoHTransport { _ in Self.json(body) }
        let endpoint = AlibabaHTTPDNSV2Endpoint(url: Self.url, accountID: "1", aesKey: Self.aesKey)
        #expect(try await endpoint.lookup("a.test", families: .ipv4, transport: transport, timeout: 5) == .addresses([IPAddress("192.0.2.1")!], ttl: 120))
    }

    @Test(
        "error codes, modes this client does not decrypt, and garbage are endpoint failures",
        arguments: [
            (#"{"code":"InvalidHost"}"#, "code InvalidHost"),
            (#"{"code":"success","mode":"3","data":"AAAA"}"#, "answer mode 3"),
            (#"{"code":"success","mode":"2","data":"AAAA"}"#, "malformed encrypted answer"),
            (#"{"code":"success","mode":"1","data":"not base64"}"#, "malformed encrypted answer"),
            (#"{"code":"success","mode":"0","data":"text"}"#, "'data' is not an object"),
            (#"{"code":"success","mode":"0","data":{}}"#, "no 'answers'"),
            (#"{"code":"success","data":{"answers":[{"dn":"a.test","v4":{"ips":["::1"]}}]}}"#, "not an IPv4 address"),
            (#"{"data":{}}"#, "no 'code'")
        ])
    func malformedAnswers(body: String, reason: String) throws {
        let error = try #require(throws: ProviderFailure.self) {
            try AlibabaV2Answer.parse(Data(body.utf8), names: ["a.test"], families: .ipv4, aesKey: OpenSSLTool.bytes(hex: Self.aesKey), endpoint: Self.url)
        }
        guard case .endpointFailed(_, let message) = error else { Issue.record("\(error)"); return }
        #expect(message.contains(reason), "\(message)")
    }

    @Test("the documented HTTP errors (400 MissingArgument, 403 InvalidAccount) are endpoint failures naming the code")
    func httpErrors() async throws {
        for (status, code) in [(400, "MissingArgument"), (403, "InvalidAccount")] {
            let transport = FakeDoHTransport { _ in Self.json(#"{"code":"\#(code)"}"#, status: status) }
            await #expect(throws: ProviderFailure.endpointFailed(Self.url, reason: "HTTP \(status): code \(code)")) {
                try await AlibabaHTTPDNSV2Endpoint(url: Self.url, accountID: "1").lookup("a.test", families: .ipv4, transport: transport, timeout: 5)
            }
        }
    }

    @Test(
        "secrets and parameters the SDK would not send are refused unsent, never quoted",
        arguments: [
            (AlibabaHTTPDNSV2Endpoint(url: url, accountID: "1", secret: "not-hex-secret"), "the secret must be hex"),
            (AlibabaHTTPDNSV2Endpoint(url: url, accountID: "1", aesKey: "0011"), "the AES key must be 16, 24 or 32 bytes (32, 48 or 64 hex digits), not 2"),
            (AlibabaHTTPDNSV2Endpoint(url: url, accountID: "1", customParameters: ["a b": "c"]), "a custom parameter's name must be"),
            (AlibabaHTTPDNSV2Endpoint(url: url, accountID: "1", customParameters: ["k": "v&x=y"]), "the value of custom parameter 'k'"),
            (AlibabaHTTPDNSV2Endpoint(url: url, accountID: "1", clockOffset: .infinity), "signatureLifetime 600.0 and clockOffset inf give no valid expiry time")
        ])
    func refusedUnsent(endpoint: AlibabaHTTPDNSV2Endpoint, problem: String) async throws {
        let transport = FakeDoHTransport { _ in Self.json("{}") }
        let error = try await #require(throws: ProviderFailure.self) { try await endpoint.lookup("a.test", families: .ipv4, transport: transport, timeout: 5) }
        #expect(error.description.contains("not sent: \(problem)"), "\(error)")
        #expect(!error.description.contains("not-hex-secret"))
        #expect(transport.requests.isEmpty)
    }

    // MARK: Clock skew and several accounts (both forms)

    @Test("a clock correction moves the expiry by the offset: v1's t and v2's exp")
    func clockCorrection() throws {
        let v1 = AlibabaHTTPDNSEndpoint(url: Self.url, accountID: "1", secret: "s", signatureLifetime: 600).correctingClock(to: Self.now + 3_600, now: Self.now)
        #expect(v1.clockOffset == 3_600)
        let t = Self.items(v1.requestURL(for: "a.test", families: .ipv4, now: Self.now)).first { $0.0 == "t" }?.1
        #expect(t == "1700004200")
        #expect(Self.items(v1.requestURL(for: "a.test", families: .ipv4, now: Self.now)).first { $0.0 == "s" }?.1 == (try OpenSSLTool.md5("a.test-s-1700004200")))
        let v2 = AlibabaHTTPDNSV2Endpoint(url: Self.url, accountID: "1").correctingClock(to: Self.now - 120, now: Self.now)
        #expect(Self.items(try v2.requestURL(for: ["a.test"], families: .ipv4, now: Self.now)).first { $0.0 == "exp" }?.1 == "1700000480")
    }

    @Test("a clock offset that is not finite is refused by the resolver's configuration and by a lookup, never a crash")
    func infiniteOffset() async throws {
        var configuration = HostResolver.Configuration(endpoints: [])
        configuration.providers = [AlibabaHTTPDNSEndpoint(url: Self.url, accountID: "1", secret: "s", clockOffset: .nan)]
        #expect(throws: InvalidDurationError.self) { try HostResolver(configuration: configuration, transport: FakeDoHTransport { _ in Self.json("{}") }) }
        let transport = FakeDoHTransport { _ in Self.json("{}") }
        await #expect(throws: ProviderFailure.self) {
            try await AlibabaHTTPDNSEndpoint(url: Self.url, accountID: "1", secret: "s", clockOffset: .infinity).lookup("a.test", families: .ipv4, transport: transport, timeout: 5)
        }
        #expect(transport.requests.isEmpty)
    }

    @Test("several accounts in one process: each endpoint signs with its own secret; one failing hands over to the other")
    func severalAccounts() async throws {
        let transport = FakeDoHTransport { request in
            let items = Dictionary(uniqueKeysWithValues: Self.items(request.url))
            if request.url.path.hasPrefix("/111/") {
                let expected = try OpenSSLTool.md5("a.test-first-secret-\(items["t"] ?? "")")
                #expect(items["s"] == expected)
                return Self.json(#"{"code":"InvalidAccount"}"#, status: 403)
            }
            #expect(request.url.path == "/222/sign_d")
            let expected = try OpenSSLTool.md5("a.test-second-secret-\(items["t"] ?? "")")
            #expect(items["s"] == expected)
            return Self.json(#"{"host":"a.test","ips":["192.0.2.22"],"ttl":60}"#)
        }
        let harness = try ResolverHarness(transport: transport) {
            $0.providers = [
                AlibabaHTTPDNSEndpoint(url: Self.url, accountID: "111", secret: "first-secret"),
                AlibabaHTTPDNSEndpoint(url: Self.url, accountID: "222", secret: "second-secret")
            ]
            $0.families = .ipv4
            $0.fallbackToSystemResolver = false
        }
        let resolution = try await harness.resolve("a.test")
        #expect(resolution.addresses == [IPAddress("192.0.2.22")!])
        #expect(transport.requests.count == 2)
    }
}
