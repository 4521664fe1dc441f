import Foundation
import HTTPDNSCore

/// An HTTPDNS API in the style of Tencent Cloud HTTPDNS / DNSPod D+ (from its public API reference):
///
/// - plain: `GET {url}/d?dn=NAME&ttl=1[&type=AAAA]` → `ip;ip,TTL` as text (empty: no record);
/// - encrypted (when `keyID` and `key` are set): `GET {url}/d?dn=HEX&id=KEYID&ttl=1&alg=aes[&type=AAAA]`
///   where `HEX` is the hex of a random 16-byte IV followed by the AES-CBC (PKCS#7) ciphertext of the
///   name, under the account's secret as the key (16/24/32 bytes: AES-128/192/256); the response body
///   is the hex of IV + ciphertext of the plain text form.
///
/// A and AAAA are asked in parallel when both families are wanted. An empty answer for every family is
/// NODATA with no negative TTL (the API does not tell NXDOMAIN apart and gives no TTL for it). Any status
/// but 200, undecryptable or malformed text is a failure of the endpoint.
public struct DNSPodHTTPDNSEndpoint: ResolutionProvider, Hashable, CustomStringConvertible {
    /// The service's base URL, e.g. `https://119.29.29.99`.
    /// Queries go only to an `https` URL: with any other scheme each lookup fails unsent
    /// (`.endpointFailed`, "not sent: 'http' scheme").
    public var url: URL
    public var bootstrapAddresses: [IPAddress]
    /// The key ID sent as `id=` (the encrypted form).
    public var keyID: String?
    /// The account's secret, the AES key as its UTF-8 bytes.
    public var key: String?

    public init(url: URL, keyID: String? = nil, key: String? = nil, bootstrapAddresses: [IPAddress] = []) {
        self.url = url
        self.keyID = keyID
        self.key = key
        self.bootstrapAddresses = bootstrapAddresses
    }

    public var kind: String { "httpdns-dnspod" }
    public var source: ResolutionSource { .httpdns(endpoint: url) }
    public var description: String { "\(url.absoluteString)\(keyID == nil ? "" : " (encrypted, id \(keyID!))")" }

    var isEncrypted: Bool { keyID != nil && key != nil }

    public func lookup(_ name: String, families: AddressFamilies, transport: any DoHTransport, timeout: TimeInterval)
        async throws(ProviderFailure) -> ProviderAnswer
    {
        var outcomes: [Result<ProviderAnswer, ProviderFailure>]
        switch families {
        case .ipv4: outcomes = [await query(name, family: .ipv4, transport: transport, timeout: timeout)]
        case .ipv6: outcomes = [await query(name, family: .ipv6, transport: transport, timeout: timeout)]
        case .both, .auto:
            async let six = query(name, family: .ipv6, transport: transport, timeout: timeout)
            async let four = query(name, family: .ipv4, transport: transport, timeout: timeout)
            outcomes = await [six, four]
        }
        return try ProviderAnswers.merge(outcomes)
    }

    private func query(_ name: String, family: IPAddress.Family, transport: any DoHTransport, timeout: TimeInterval) async -> Result<ProviderAnswer, ProviderFailure> {
        do throws(ProviderFailure) {
            var items: [(String, String)]
            if isEncrypted, let keyID {
                items = [("dn", try encrypt(name)), ("id", keyID), ("ttl", "1"), ("alg", "aes")]
            } else {
                items = [("dn", name), ("ttl", "1")]
            }
            if family == .ipv6 { items.append(("type", "AAAA")) }
            let response = try await ProviderHTTP.get(
                ProviderHTTP.url(url, path: "/d", items: items), endpoint: url, accept: nil,
                bootstrap: bootstrapAddresses, transport: transport, timeout: timeout)
            var text = String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if isEncrypted, !text.isEmpty { text = try decrypt(text) }
            return .success(try Self.parse(text, family: family, endpoint: url))
        } catch {
            return .failure(error)
        }
    }

    /// Parses `ip;ip,TTL` (the TTL optional); an empty text is NODATA.
    static func parse(_ text: String, family: IPAddress.Family, endpoint: URL) throws(ProviderFailure) -> ProviderAnswer {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return .noAddresses(negativeTTL: nil) }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { throw .endpointFailed(endpoint, reason: "malformed answer '\(ProviderHTTP.printable(text.prefix(80)))'") }
        var ttl: TimeInterval = 0
        if parts.count == 2 {
            guard let value = Int(parts[1]), value >= 0 else { throw .endpointFailed(endpoint, reason: "malformed TTL in '\(ProviderHTTP.printable(text.prefix(80)))'") }
            ttl = TimeInterval(value)
        }
        var addresses: [IPAddress] = []
        for item in parts[0].split(separator: ";") {
            // The service answers "0" for a name it cannot resolve.
            if item == "0" { continue }
            guard let address = IPAddress(item), address.family == family else {
                throw .endpointFailed(endpoint, reason: "malformed answer: '\(ProviderHTTP.printable(item.prefix(60)))' is not an \(family == .ipv4 ? "IPv4" : "IPv6") address")
            }
            if !addresses.contains(address) { addresses.append(address) }
        }
        return addresses.isEmpty ? .noAddresses(negativeTTL: nil) : .addresses(addresses, ttl: ttl)
    }

    /// Hex of a random IV followed by the AES-CBC ciphertext of `text`.
    func encrypt(_ text: String) throws(ProviderFailure) -> String {
        let iv = ProviderCrypto.randomBytes(16)
        do {
            let sealed = try ProviderCrypto.aesCBC(encrypt: true, key: Array((key ?? "").utf8), iv: iv, input: Array(text.utf8))
            return ProviderCrypto.hex(iv + sealed)
        } catch {
            throw .endpointFailed(url, reason: "cannot encrypt the query: \(error)")
        }
    }

    /// The plain text in hex of IV + AES-CBC ciphertext.
    func decrypt(_ hex: String) throws(ProviderFailure) -> String {
        guard let bytes = ProviderCrypto.bytes(hex: hex), bytes.count >= 32, bytes.count % 16 == 0 else {
            throw .endpointFailed(url, reason: "malformed encrypted answer (expected hex of IV + AES-CBC ciphertext)")
        }
        do {
            let plain = try ProviderCrypto.aesCBC(encrypt: false, key: Array((key ?? "").utf8), iv: Array(bytes.prefix(16)), input: Array(bytes.dropFirst(16)))
            return String(decoding: plain, as: UTF8.self)
        } catch {
            throw .endpointFailed(url, reason: "cannot decrypt the answer: \(error)")
        }
    }
}
