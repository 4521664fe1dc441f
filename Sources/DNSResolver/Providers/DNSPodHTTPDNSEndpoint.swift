import Foundation
import HTTPDNSCore

/// Tencent Cloud HTTPDNS (DNSPod D+), from its published API reference: "Querying with HTTP Request
/// Methods" (https://www.tencentcloud.com/document/product/1130/44468), "HTTPS 请求方式查询"
/// (https://www.tencentcloud.com/zh/document/product/1130/44469), "AES、DES 加密解密说明"
/// (https://cloud.tencent.com/document/api/379/3530) and "接入移动解析 HTTPDNS" for the batch limit
/// (https://www.tencentcloud.com/zh/document/product/1130/44462).
///
/// One request: `GET {url}/d?dn=NAMES&ttl=1[&type=AAAA|addrs][&ip=ADDRESS]` plus the
/// `authentication`'s parameters:
/// - `.none`: nothing (the public, unauthenticated entry);
/// - `.token(T)`: `&token=T`, the HTTPS entry (`https://119.29.29.99`);
/// - `.des(keyID:key:)`: `&id=KEYID&alg=des`, `dn` and `ip` the hex of their DES-ECB (PKCS#5)
///   ciphertext under the key's first 8 bytes; the answer is the hex of its ciphertext;
/// - `.aes(keyID:key:)`: `&id=KEYID&alg=aes`, `dn` and `ip` the hex of a random 16-byte IV then the
///   AES-CBC (PKCS#7) ciphertext; the answer is the hex of IV and ciphertext alike.
///
/// `NAMES` is one name, or up to 8 joined by `,` (the batch form). `type=addrs` asks A and AAAA at
/// once. The answer, once decrypted, is parsed by `DNSPodAnswer`: an empty body or a `0` is "no
/// record" (NODATA, no negative TTL: the API tells NXDOMAIN apart from neither). Any status but 200
/// (the documents list 404, 429 and 501), an undecryptable or malformed answer is a failure of the
/// endpoint (`.endpointFailed`), so `HostResolver` fails over.
public struct DNSPodHTTPDNSEndpoint: ResolutionProvider, Hashable, CustomStringConvertible {
    /// How requests prove the account and keep the name private.
    public enum Authentication: Hashable, Sendable {
        /// No credentials: the unauthenticated entry (plain names in the URL, protected by TLS only).
        case none
        /// The HTTPS entry's `token` ("HTTPS 加密 Token" in the console).
        case token(String)
        /// `alg=des`: the authorization ID and the DES key ("DES 加密密钥"), of which the first 8
        /// bytes (UTF-8) are the key, as the published example (`dnspodpass`) and Java's DES do.
        case des(keyID: String, key: String)
        /// `alg=aes`: the authorization ID and the AES key ("AES 加密密钥"), 16 bytes (24 or 32:
        /// AES-192/256).
        case aes(keyID: String, key: String)
    }

    /// The service's base URL, e.g. `https://119.29.29.99`.
    /// Queries go only to an `https` URL: with any other scheme each lookup fails unsent
    /// (`.endpointFailed`, "not sent: 'http' scheme").
    public var url: URL
    public var bootstrapAddresses: [IPAddress]
    /// The credentials sent with each request.
    public var authentication: Authentication
    /// The `ip=` parameter (EDNS Client Subnet, RFC 7871): answer as for a client at this address;
    /// nil: the address the request comes from.
    public var clientSubnet: IPAddress?

    public init(url: URL, authentication: Authentication = .none, clientSubnet: IPAddress? = nil, bootstrapAddresses: [IPAddress] = []) {
        self.url = url
        self.authentication = authentication
        self.clientSubnet = clientSubnet
        self.bootstrapAddresses = bootstrapAddresses
    }

    public var kind: String { "httpdns-dnspod" }
    public var source: ResolutionSource { .httpdns(endpoint: url) }
    /// The documents' limit: "同时支持最大域名个数为8个".
    public var batchLimit: Int { 8 }
    /// The URL and the kind of authentication; never a key or token.
    public var description: String {
        switch authentication {
        case .none: url.absoluteString
        case .token: "\(url.absoluteString) (token)"
        case .des(let keyID, _): "\(url.absoluteString) (DES, id \(keyID))"
        case .aes(let keyID, _): "\(url.absoluteString) (AES, id \(keyID))"
        }
    }

    /// Why the credentials cannot be used, or nil when they can: an empty token or key ID, a DES key
    /// under 8 bytes, an AES key of another length than 16, 24 or 32 bytes. Never quotes the key.
    public static func problem(with authentication: Authentication) -> String? {
        switch authentication {
        case .none: nil
        case .token(let token): token.isEmpty ? "the token is empty" : nil
        case .des(let keyID, let key):
            keyID.isEmpty ? "the key ID is empty" : key.utf8.count < 8 ? "the DES key must be at least 8 bytes (its first 8 are used), not \(key.utf8.count)" : nil
        case .aes(let keyID, let key):
            keyID.isEmpty ? "the key ID is empty" : [16, 24, 32].contains(key.utf8.count) ? nil : "the AES key must be 16, 24 or 32 bytes, not \(key.utf8.count)"
        }
    }

    public func lookup(_ name: String, families: AddressFamilies, transport: any DoHTransport, timeout: TimeInterval)
        async throws(ProviderFailure) -> ProviderAnswer
    {
        let answers = try await lookup(batch: [name], families: families, transport: transport, timeout: timeout)
        guard let answer = answers[name] else { throw .endpointFailed(url, reason: "the answer is not for \(name)") }
        return answer
    }

    public func lookup(batch names: [String], families: AddressFamilies, transport: any DoHTransport, timeout: TimeInterval)
        async throws(ProviderFailure) -> [String: ProviderAnswer]
    {
        guard !names.isEmpty else { return [:] }
        guard names.count <= batchLimit else {
            throw .endpointFailed(url, reason: "a batch holds at most \(batchLimit) names, not \(names.count)")
        }
        let response = try await ProviderHTTP.get(
            try requestURL(for: names, families: families), endpoint: url, accept: nil, bootstrap: bootstrapAddresses,
            transport: transport, timeout: timeout, redacting: secrets)
        let text = try decrypt(String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        return try DNSPodAnswer.parse(text, names: names, families: Self.families(families), endpoint: url)
    }

    /// The strings that must never reach a message: the token, which travels in the URL.
    private var secrets: [String] {
        if case .token(let token) = authentication { return [token] }
        return []
    }

    private static func families(_ families: AddressFamilies) -> [IPAddress.Family] {
        switch families {
        case .ipv4: [.ipv4]
        case .ipv6: [.ipv6]
        case .both, .auto: [.ipv4, .ipv6]
        }
    }

    /// The request URL for `names` (one, or a batch of up to 8).
    /// - Parameter iv: The AES IV (16 bytes); nil: random, as every real request has. Tests give one.
    /// - Throws: `.endpointFailed` for credentials `problem(with:)` rejects.
    func requestURL(for names: [String], families: AddressFamilies, iv: [UInt8]? = nil) throws(ProviderFailure) -> URL {
        if let problem = Self.problem(with: authentication) { throw .endpointFailed(url, reason: "not sent: \(problem)") }
        let dn = names.joined(separator: ",")
        var items: [(String, String)]
        switch authentication {
        case .none:
            items = [("dn", dn)]
            if let clientSubnet { items.append(("ip", clientSubnet.description)) }
        case .token(let token):
            items = [("dn", dn), ("token", token)]
            if let clientSubnet { items.append(("ip", clientSubnet.description)) }
        case .des(let keyID, _), .aes(let keyID, _):
            items = [("dn", try encrypt(dn, iv: iv)), ("id", keyID), ("alg", isDES ? "des" : "aes")]
            if let clientSubnet { items.append(("ip", try encrypt(clientSubnet.description, iv: iv))) }
        }
        items.append(("ttl", "1"))
        switch families {
        case .ipv4: break
        case .ipv6: items.append(("type", "AAAA"))
        case .both, .auto: items.append(("type", "addrs"))
        }
        return ProviderHTTP.url(url, path: "/d", items: items)
    }

    private var isDES: Bool {
        if case .des = authentication { return true }
        return false
    }

    /// Hex of the ciphertext of `text` (DES), or of the IV and the ciphertext (AES).
    func encrypt(_ text: String, iv: [UInt8]? = nil) throws(ProviderFailure) -> String {
        do {
            switch authentication {
            case .des(_, let key):
                return ProviderCrypto.hex(try ProviderCrypto.desECB(encrypt: true, key: Self.desKey(key), input: Array(text.utf8)))
            case .aes(_, let key):
                let iv = iv ?? ProviderCrypto.randomBytes(16)
                return ProviderCrypto.hex(iv + (try ProviderCrypto.aesCBC(encrypt: true, key: Array(key.utf8), iv: iv, input: Array(text.utf8))))
            case .none, .token:
                return text
            }
        } catch {
            throw .endpointFailed(url, reason: "cannot encrypt the query: \(error)")
        }
    }

    /// The plain text of an answer: as it came for `.none` and `.token`, decrypted from hex for DES
    /// and AES. An empty answer is empty in every mode ("没有记录，则返回空字符串").
    func decrypt(_ hex: String) throws(ProviderFailure) -> String {
        guard !hex.isEmpty else { return hex }
        let plain: [UInt8]
        switch authentication {
        case .none, .token:
            return hex
        case .des(_, let key):
            guard let bytes = ProviderCrypto.bytes(hex: hex), !bytes.isEmpty, bytes.count % 8 == 0 else {
                throw .endpointFailed(url, reason: "malformed encrypted answer (expected the hex of a DES-ECB ciphertext)")
            }
            do {
                plain = try ProviderCrypto.desECB(encrypt: false, key: Self.desKey(key), input: bytes)
            } catch {
                throw .endpointFailed(url, reason: "cannot decrypt the answer: \(error)")
            }
        case .aes(_, let key):
            guard let bytes = ProviderCrypto.bytes(hex: hex), bytes.count >= 32, bytes.count % 16 == 0 else {
                throw .endpointFailed(url, reason: "malformed encrypted answer (expected the hex of IV + AES-CBC ciphertext)")
            }
            do {
                plain = try ProviderCrypto.aesCBC(encrypt: false, key: Array(key.utf8), iv: Array(bytes.prefix(16)), input: Array(bytes.dropFirst(16)))
            } catch {
                throw .endpointFailed(url, reason: "cannot decrypt the answer: \(error)")
            }
        }
        guard let text = String(bytes: plain, encoding: .utf8) else { throw .endpointFailed(url, reason: "the decrypted answer is not text") }
        return text
    }

    /// The DES key: the first 8 bytes of the configured key's UTF-8.
    private static func desKey(_ key: String) -> [UInt8] { Array(key.utf8.prefix(8)) }
}
