// Alibaba-style HTTPDNS JSON: the single-name (`d`) and batch (`resolve`) response bodies, the
// `/v2/d` answer (`AlibabaV2Answer.parse`: plain `data`, or its AES-CBC or AES-GCM base64 form
// decrypted), the scheduling API's `ss` answer, and HTTP `Date` fields.
import Foundation
@testable import DNSResolver
import FuzzSupport

let provider = AlibabaHTTPDNSEndpoint(url: URL(string: "https://203.0.113.1")!, accountID: "100000")
let families: [AddressFamilies] = [.both, .ipv4, .ipv6, .auto]
let names = ["a.test", "b.test", "c.test"]
let aesKey = [UInt8](0..<16)

runFuzzer { bytes in
    let (selector, rest) = split(bytes)
    let family = families[Int(selector & 3)]
    switch selector >> 2 & 3 {
    case 0: _ = try? provider.answer(single: Data(rest), families: family)
    case 1: _ = try? provider.answers(batch: Data(rest), names: names, families: family)
    case 2 where selector & 32 != 0:
        _ = try? AlibabaServiceSchedule.parse(Data(rest), endpoint: provider.url)
        _ = HTTPDate.parse(String(decoding: rest, as: UTF8.self))
    default:
        // The /v2/d body, with an AES key for mode 1 (selector bit 4: none).
        _ = try? AlibabaV2Answer.parse(Data(rest), names: names, families: family, aesKey: selector & 16 == 0 ? aesKey : nil, endpoint: provider.url)
    }
}
