// Alibaba-style HTTPDNS JSON: the single-name (`d`) and batch (`resolve`) response bodies.
import Foundation
@testable import DNSResolver
import FuzzSupport

let provider = AlibabaHTTPDNSEndpoint(url: URL(string: "https://203.0.113.1")!, accountID: "100000")
let families: [AddressFamilies] = [.both, .ipv4, .ipv6, .auto]

runFuzzer { bytes in
    let (selector, rest) = split(bytes)
    let family = families[Int(selector & 3)]
    if selector & 4 != 0 {
        _ = try? provider.answers(batch: Data(rest), names: ["a.test", "b.test", "c.test"], families: family)
    } else {
        _ = try? provider.answer(single: Data(rest), families: family)
    }
}
