// Tencent Cloud HTTPDNS (DNSPod D+) answers: the text form (`DNSPodAnswer.parse`: single, type=addrs,
// batch lines, `|client`), and its DES-ECB and AES-CBC forms (hex) decrypted, then parsed.
import Foundation
@testable import DNSResolver
import FuzzSupport
import HTTPDNSCore

let url = URL(string: "https://119.29.29.99")!
let aes = DNSPodHTTPDNSEndpoint(url: url, authentication: .aes(keyID: "42", key: "0123456789abcdef"))
let des = DNSPodHTTPDNSEndpoint(url: url, authentication: .des(keyID: "42", key: "dnspodpass"))
let familySets: [[IPAddress.Family]] = [[.ipv4], [.ipv6], [.ipv4, .ipv6], [.ipv4]]
let nameSets = [["a.test"], ["a.test", "b.test", "www.dnspod.cn"]]

runFuzzer { bytes in
    let (selector, rest) = split(bytes)
    let families = familySets[Int(selector & 3)]
    let names = nameSets[Int(selector >> 2 & 1)]
    func parse(_ text: String) { _ = try? DNSPodAnswer.parse(text, names: names, families: families, endpoint: url) }
    switch selector >> 3 & 3 {
    case 0:
        // The body as text, as the plain and token entries return it.
        parse(String(decoding: rest, as: UTF8.self))
    case 1:
        // The bytes as IV + AES ciphertext: padding checks, then the decrypted text through the parser.
        if let text = try? aes.decrypt(ProviderCrypto.hex(Array(rest))) { parse(text) }
    case 2:
        // The bytes as a DES-ECB ciphertext.
        if let text = try? des.decrypt(ProviderCrypto.hex(Array(rest))) { parse(text) }
    default:
        // The body as hex text, malformed hex included.
        if let text = try? aes.decrypt(String(decoding: rest, as: UTF8.self)) { parse(text) }
    }
}
