// DNSPod-style HTTPDNS plain text (`ip;ip,TTL`) and its AES-CBC form (hex of IV + ciphertext).
import Foundation
@testable import DNSResolver
import FuzzSupport
import HTTPDNSCore

let url = URL(string: "https://119.29.29.99")!
let encrypted = DNSPodHTTPDNSEndpoint(url: url, keyID: "42", key: "0123456789abcdef")

runFuzzer { bytes in
    let (selector, rest) = split(bytes)
    let family: IPAddress.Family = selector & 1 == 0 ? .ipv4 : .ipv6
    switch selector & 6 {
    case 0:
        // The body as text, as the plain API returns it.
        _ = try? DNSPodHTTPDNSEndpoint.parse(String(decoding: rest, as: UTF8.self), family: family, endpoint: url)
    case 2:
        // The bytes as IV + ciphertext: padding checks, then the decrypted text through the parser.
        let hex = rest.map { String(format: "%02x", $0) }.joined()
        if let text = try? encrypted.decrypt(hex) { _ = try? DNSPodHTTPDNSEndpoint.parse(text, family: family, endpoint: url) }
    default:
        // The body as hex text, malformed hex included.
        if let text = try? encrypted.decrypt(String(decoding: rest, as: UTF8.self)) {
            _ = try? DNSPodHTTPDNSEndpoint.parse(text, family: family, endpoint: url)
        }
    }
}
