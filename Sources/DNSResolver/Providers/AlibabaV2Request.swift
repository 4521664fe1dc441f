import Foundation
import HTTPDNSCore

/// The query parameters of one Alibaba `/v2/d` request and its signature (`AlibabaHTTPDNSV2Endpoint`
/// has the sources): the plain or the encrypted form, signed when a secret is given.
struct AlibabaV2Request {
    var accountID: String
    var names: [String]
    var families: AddressFamilies
    var clientSubnet: IPAddress?
    var customParameters: [String: String]
    /// `exp`, a Unix time in seconds.
    var expiry: Int

    /// The parameters the signature covers (`SignService.includeParamKeys`), besides `sdns-*`.
    static let signedNames: Set<String> = ["id", "m", "dn", "cip", "q", "enc", "exp", "tags", "v"]
    /// The API version sent as `v`.
    static let version = "1.0"

    /// `q`: nothing for IPv4 (the API's default), `6`, or `4,6` (the SDK's `getQuery`).
    var query: String {
        switch families {
        case .ipv4: ""
        case .ipv6: "6"
        case .both, .auto: "4,6"
        }
    }

    /// Why custom parameters cannot be sent, or nil (the SDK's `checkKey`/`checkValue` and its
    /// 1,000-byte bound on the `&sdns-K=V` text).
    static func problem(with parameters: [String: String]) -> String? {
        let keyCharacters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var length = 0
        for (key, value) in parameters {
            guard !key.isEmpty, key.allSatisfy(keyCharacters.contains) else { return "a custom parameter's name must be letters, digits, '-' or '_'" }
            guard !value.isEmpty, value.allSatisfy({ keyCharacters.contains($0) || $0 == "=" }) else {
                return "the value of custom parameter '\(key)' must be letters, digits, '-', '_' or '='"
            }
            length += "&sdns-\(key)=\(value)".utf8.count
        }
        return length > 1_000 ? "the custom parameters exceed 1,000 bytes" : nil
    }

    /// The parameters in the order the SDK sends them, `s` last when signed.
    /// - Parameters:
    ///   - secret: The signing key (the hex-decoded secret); nil: unsigned.
    ///   - aesKey: The AES key (hex-decoded); nil: the plain form (`m=0`).
    ///   - encryption: The cipher of the encrypted form: `m=1` AES-CBC, `m=2` AES-GCM.
    ///   - iv: 16 bytes for AES-CBC, 12 for AES-GCM; used only for the encrypted form.
    func items(secret: [UInt8]?, aesKey: [UInt8]?, encryption: AlibabaHTTPDNSV2Endpoint.Encryption, iv: [UInt8]) throws(ProviderCrypto.CryptoError)
        -> [(String, String)]
    {
        let sdns = customParameters.sorted { $0.key < $1.key }.map { ("sdns-\($0.key)", $0.value) }
        var items: [(String, String)] = [("id", accountID)]
        if let aesKey {
            var object: [String: String] = ["dn": names.joined(separator: ",")]
            if !query.isEmpty { object["q"] = query }
            if let clientSubnet { object["cip"] = clientSubnet.description }
            for (name, value) in sdns { object[name] = value }
            let json = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            let sealed: [UInt8]
            switch encryption {
            case .aesCBC: sealed = try ProviderCrypto.aesCBC(encrypt: true, key: aesKey, iv: iv, input: Array(json))
            case .aesGCM: sealed = try ProviderCrypto.aesGCM(encrypt: true, key: aesKey, iv: iv, input: Array(json))
            }
            items += [("m", encryption.mode), ("enc", ProviderCrypto.hex(iv + sealed))]
        } else {
            items += [("m", "0"), ("dn", names.joined(separator: ","))]
            if !query.isEmpty { items.append(("q", query)) }
            if let clientSubnet { items.append(("cip", clientSubnet.description)) }
            items += sdns
        }
        items += [("v", Self.version), ("exp", String(expiry))]
        if let secret { items.append(("s", Self.signature(items, secret: secret))) }
        return items
    }

    /// What is signed: the signed parameters (and `sdns-*`) with a value, sorted by name, `k=v&...`.
    static func signedContent(_ items: [(String, String)]) -> String {
        items.filter { (signedNames.contains($0.0) || $0.0.hasPrefix("sdns-")) && !$0.1.isEmpty }
            .sorted { $0.0 < $1.0 }
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }

    /// Lower-case hex HMAC-SHA256 of `signedContent(items)` under `secret`.
    static func signature(_ items: [(String, String)], secret: [UInt8]) -> String {
        ProviderCrypto.hex(ProviderCrypto.hmacSHA256(key: secret, input: Array(signedContent(items).utf8)))
    }
}
