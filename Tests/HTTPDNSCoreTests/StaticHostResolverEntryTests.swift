import Foundation
import HTTPDNSCore
import Testing

/// curl's `--resolve` syntax, as `StaticHostResolver.Entry(parsing:)` reads it.
@Suite("--resolve entries")
struct StaticHostResolverEntryTests {
    @Test("HOST:PORT:ADDR[,ADDR], with * for any port and IPv6 in brackets or not")
    func parsesCurlSyntax() throws {
        let entry = try StaticHostResolver.Entry(parsing: "A.Test:8443:127.0.0.1,[::1],::2")
        #expect(entry.host == "a.test")
        #expect(entry.port == 8443)
        #expect(entry.addresses == [IPAddress("127.0.0.1")!, IPAddress("::1")!, IPAddress("::2")!])
        #expect(try StaticHostResolver.Entry(parsing: "a.test:*:192.0.2.1").port == nil)
    }

    @Test("curl's + prefix (an entry that expires, curl 7.75) is accepted as the same entry")
    func plusPrefixIsAccepted() throws {
        #expect(try StaticHostResolver.Entry(parsing: "+a.test:443:127.0.0.1") == StaticHostResolver.Entry(parsing: "a.test:443:127.0.0.1"))
    }

    @Test("malformed entries are refused", arguments: ["-a.test:443", "a.test:443", "++a.test:443:127.0.0.1", "a.test:0:127.0.0.1", "a.test:443:", "a.test:443:not-an-ip", ":443:127.0.0.1"])
    func malformedIsRefused(text: String) {
        #expect(throws: StaticHostResolver.ParseError.self) { try StaticHostResolver.Entry(parsing: text) }
    }

    @Test(
        "IP literals, bracketed or not, resolve to themselves at once; a name without an entry does not",
        arguments: [("127.0.0.1", "127.0.0.1"), ("::1", "::1"), ("[::1]", "::1"), ("a.test", nil), ("cafe.test", nil)] as [(String, String?)])
    func literalsResolveAtOnce(host: String, address: String?) throws {
        let resolver = StaticHostResolver(entries: [], fallback: nil)
        let resolution = try resolver.resolveImmediately(host: host, port: 443)
        #expect(resolution?.addresses.map(\.description) == address.map { [$0] })
        if address != nil { #expect(resolution?.source == .literal) }
    }
}
