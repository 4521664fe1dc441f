// JSON DoH (application/dns-json) response bodies, for A and AAAA.
import Foundation
@testable import DNSResolver
import FuzzSupport

let endpoint = JSONDoHEndpoint(url: URL(string: "https://dns.test/resolve")!)

runFuzzer { bytes in
    let (selector, rest) = split(bytes)
    let body = Data(rest)
    _ = try? endpoint.parse(body, name: "a.test", type: selector & 1 == 0 ? 1 : 28)
}
