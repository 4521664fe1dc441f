import Foundation
import HTTPDNSCore

/// The answer of Alibaba's `/v2/d` ("域名解析接口" §6; the Android SDK's `ResolveHostResponseParser`
/// and `ResolveHostResponse.fromResponse`):
///
///     {"code":"success","mode":"0","data":{"cip":"1.2.3.4","answers":[
///         {"dn":"www.example.com","v4":{"ips":["180.101.1.1"],"ttl":60},"v6":{"ips":[],"ttl":60,"no_ip_code":"RRNotExist"}}]}}
///
/// With `"mode":"1"` `data` is the base64 of a 16-byte IV and the AES-CBC ciphertext of that object's
/// text; with `"mode":"2"` the base64 of a 12-byte IV, the AES-GCM ciphertext and its 16-byte tag
/// (the SDK's `AESEncryptService`). Either is decrypted whichever mode the request used.
enum AlibabaV2Answer {
    /// The answers for those of `names` that `body` holds.
    /// - Parameters:
    ///   - aesKey: The key for a mode-1 or mode-2 answer (nil: such an answer is a failure).
    /// - Returns: `.addresses` (IPv6 first, the least TTL of the families answered) or
    ///   `.noAddresses(negativeTTL:)` with the TTL given (an empty `ips`, or a `no_ip_code`).
    /// - Throws: `.endpointFailed` for a `code` other than `success`, a mode other than 0, 1 or 2,
    ///   data that does not decrypt (for mode 2, a tag that does not match) or is not of that form, or
    ///   an address of the wrong family.
    static func parse(_ body: Data, names: [String], families: AddressFamilies, aesKey: [UInt8]?, endpoint: URL) throws(ProviderFailure) -> [String: ProviderAnswer] {
        let object = try ProviderHTTP.jsonObject(body, endpoint: endpoint)
        guard let code = object["code"] as? String else { throw .endpointFailed(endpoint, reason: "malformed JSON response: no 'code'") }
        guard code == "success" else { throw .endpointFailed(endpoint, reason: "code \(ProviderHTTP.printable(code.prefix(80)))") }
        let mode = (object["mode"] as? String) ?? (object["mode"] as? NSNumber)?.stringValue ?? "0"
        let data: [String: Any]
        switch mode {
        case "0":
            guard let plain = object["data"] as? [String: Any] else { throw .endpointFailed(endpoint, reason: "malformed JSON response: 'data' is not an object") }
            data = plain
        case "1", "2":
            guard let aesKey else { throw .endpointFailed(endpoint, reason: "an encrypted answer (mode \(mode)) to a request without an AES key") }
            data = try ProviderHTTP.jsonObject(Data(try decrypt(object["data"], gcm: mode == "2", key: aesKey, endpoint: endpoint)), endpoint: endpoint)
        default:
            throw .endpointFailed(endpoint, reason: "answer mode \(ProviderHTTP.printable(mode.prefix(10))) is not one this client decrypts (0: plain, 1: AES-CBC, 2: AES-GCM)")
        }
        guard let list = data["answers"] as? [Any] else { throw .endpointFailed(endpoint, reason: "malformed JSON response: no 'answers' list") }
        var answers: [String: ProviderAnswer] = [:]
        for case let item as [String: Any] in list {
            guard let name = (item["dn"] as? String).flatMap(HostName.normalize), names.contains(name) else { continue }
            var addresses: [IPAddress] = []
            var ttl: TimeInterval?
            for (field, family) in [("v6", IPAddress.Family.ipv6), ("v4", .ipv4)] where families.includes(family) {
                guard let part = item[field] else { continue }
                guard let part = part as? [String: Any] else { throw .endpointFailed(endpoint, reason: "malformed JSON response: '\(field)' is not an object") }
                addresses += try ProviderHTTP.addresses(part["ips"], family: family, endpoint: endpoint, field: "\(field).ips")
                if let seconds = ProviderHTTP.seconds(part["ttl"]) { ttl = min(ttl ?? seconds, seconds) }
            }
            answers[name] = addresses.isEmpty ? .noAddresses(negativeTTL: ttl) : .addresses(addresses, ttl: ttl ?? 0)
        }
        return answers
    }

    /// The plain bytes of an encrypted `data`: base64 of IV + AES-CBC ciphertext, or of IV +
    /// AES-GCM ciphertext + tag.
    private static func decrypt(_ value: Any?, gcm: Bool, key: [UInt8], endpoint: URL) throws(ProviderFailure) -> [UInt8] {
        let shape = gcm ? "IV + AES-GCM ciphertext and tag" : "IV + AES-CBC ciphertext"
        let ivLength = gcm ? ProviderCrypto.gcmIVLength : 16
        guard let text = value as? String, let sealed = Data(base64Encoded: text),
            gcm ? sealed.count >= ivLength + ProviderCrypto.gcmTagLength : sealed.count >= 32 && sealed.count % 16 == 0
        else {
            throw .endpointFailed(endpoint, reason: "malformed encrypted answer (expected the base64 of \(shape))")
        }
        do {
            let iv = Array(sealed.prefix(ivLength))
            let input = Array(sealed.dropFirst(ivLength))
            return gcm
                ? try ProviderCrypto.aesGCM(encrypt: false, key: key, iv: iv, input: input)
                : try ProviderCrypto.aesCBC(encrypt: false, key: key, iv: iv, input: input)
        } catch {
            throw .endpointFailed(endpoint, reason: "cannot decrypt the answer: \(error)")
        }
    }
}
