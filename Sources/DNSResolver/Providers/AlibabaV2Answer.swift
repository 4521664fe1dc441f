import Foundation
import HTTPDNSCore

/// The answer of Alibaba's `/v2/d` ("域名解析接口" §6; the Android SDK's `ResolveHostResponseParser`
/// and `ResolveHostResponse.fromResponse`):
///
///     {"code":"success","mode":"0","data":{"cip":"1.2.3.4","answers":[
///         {"dn":"www.example.com","v4":{"ips":["180.101.1.1"],"ttl":60},"v6":{"ips":[],"ttl":60,"no_ip_code":"RRNotExist"}}]}}
///
/// With `"mode":"1"` `data` is the base64 of a 16-byte IV and the AES-CBC ciphertext of that object's
/// text. `mode` 2 (AES-GCM) is what the SDK asks for on Android 5 and later; this client asks for
/// mode 1 and refuses a mode-2 answer.
enum AlibabaV2Answer {
    /// The answers for those of `names` that `body` holds.
    /// - Parameters:
    ///   - aesKey: The key for a mode-1 answer (nil: such an answer is a failure).
    /// - Returns: `.addresses` (IPv6 first, the least TTL of the families answered) or
    ///   `.noAddresses(negativeTTL:)` with the TTL given (an empty `ips`, or a `no_ip_code`).
    /// - Throws: `.endpointFailed` for a `code` other than `success`, a mode this client does not
    ///   decrypt, data that does not decrypt or is not of that form, or an address of the wrong family.
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
        case "1":
            guard let aesKey else { throw .endpointFailed(endpoint, reason: "an encrypted answer (mode 1) to a request without an AES key") }
            guard let text = object["data"] as? String, let sealed = Data(base64Encoded: text), sealed.count >= 32, sealed.count % 16 == 0 else {
                throw .endpointFailed(endpoint, reason: "malformed encrypted answer (expected the base64 of IV + AES-CBC ciphertext)")
            }
            let plain: [UInt8]
            do {
                plain = try ProviderCrypto.aesCBC(encrypt: false, key: aesKey, iv: Array(sealed.prefix(16)), input: Array(sealed.dropFirst(16)))
            } catch {
                throw .endpointFailed(endpoint, reason: "cannot decrypt the answer: \(error)")
            }
            data = try ProviderHTTP.jsonObject(Data(plain), endpoint: endpoint)
        default:
            throw .endpointFailed(endpoint, reason: "answer mode \(ProviderHTTP.printable(mode.prefix(10))) is not one this client decrypts (0: plain, 1: AES-CBC)")
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
}
