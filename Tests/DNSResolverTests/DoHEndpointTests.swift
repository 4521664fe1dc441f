import DNSResolver
import Foundation
import HTTPDNSCore
import Testing

@Suite("DoHEndpoint")
struct DoHEndpointTests {
    @Test func wellKnownEndpointsAreHTTPSWithDocumentedBootstrapAddresses() {
        let table = DoHEndpoint.wellKnown.map { ($0.url.absoluteString, $0.bootstrapAddresses.map(\.description)) }
        #expect(
            table.map(\.0) == [
                "https://cloudflare-dns.com/dns-query", "https://dns.google/dns-query", "https://dns.quad9.net/dns-query"
            ])
        #expect(
            table.map(\.1) == [
                ["1.1.1.1", "1.0.0.1", "2606:4700:4700::1111"],
                ["8.8.8.8", "8.8.4.4", "2001:4860:4860::8888"],
                ["9.9.9.9", "149.112.112.112"]
            ])
    }

    @Test func methodDefaultsToGET() throws {
        // GET queries share one HTTP/2 connection; each POST, an upload, gets one of its own.
        let endpoint = DoHEndpoint(url: URL(string: "https://dns.test/dns-query")!, bootstrapAddresses: [])
        #expect(endpoint.method == .get)
        #expect(try DoHEndpoint(parsing: "https://dns.test/dns-query").method == .get)
        #expect(DoHEndpoint.wellKnown.allSatisfy { $0.method == .get })
    }

    @Test func parsingKeepsHostPortAndPath() throws {
        let endpoint = try DoHEndpoint(parsing: "https://dns.test:8443/custom/path", method: .get)
        #expect(endpoint.url.absoluteString == "https://dns.test:8443/custom/path")
        #expect(endpoint.method == .get)
        #expect(endpoint.bootstrapAddresses.isEmpty)
    }

    @Test func parsingDefaultsAnEmptyPathToDNSQuery() throws {
        #expect(try DoHEndpoint(parsing: "https://dns.test").url.absoluteString == "https://dns.test/dns-query")
    }

    @Test func parsingDropsTheRFC8484URITemplate() throws {
        let endpoint = try DoHEndpoint(parsing: "https://dns.test/dns-query{?dns}")
        #expect(endpoint.url.absoluteString == "https://dns.test/dns-query")
    }

    @Test func parsingAWellKnownHostTakesItsBootstrapAddresses() throws {
        let endpoint = try DoHEndpoint(parsing: "https://dns.google/dns-query")
        #expect(endpoint.bootstrapAddresses == DoHEndpoint.google.bootstrapAddresses)
    }

    @Test func parsingAnIPLiteralHostBootstrapsToItself() throws {
        let endpoint = try DoHEndpoint(parsing: "https://[2001:db8::53]:8443/dns-query")
        #expect(endpoint.bootstrapAddresses == [IPAddress("2001:db8::53")!])
    }

    @Test func parsingKeepsGivenBootstrapAddresses() throws {
        let endpoint = try DoHEndpoint(parsing: "https://dns.google/dns-query", bootstrapAddresses: [IPAddress("192.0.2.53")!])
        #expect(endpoint.bootstrapAddresses == [IPAddress("192.0.2.53")!])
    }

    @Test func parsingRejectsPlainHTTP() {
        #expect(throws: DoHEndpoint.ParseError.notHTTPS("http://dns.test/dns-query")) {
            try DoHEndpoint(parsing: "http://dns.test/dns-query")
        }
    }

    @Test func parsingRejectsAURLWithoutHost() {
        #expect(throws: DoHEndpoint.ParseError.missingHost("https:///dns-query")) {
            try DoHEndpoint(parsing: "https:///dns-query")
        }
    }

    @Test func parsingRejectsAnInvalidHostName() {
        #expect(throws: DoHEndpoint.ParseError.invalidHost("https://dns..test/dns-query")) {
            try DoHEndpoint(parsing: "https://dns..test/dns-query")
        }
    }

    @Test func parsingRejectsSomethingThatIsNotAURL() {
        #expect(throws: DoHEndpoint.ParseError.malformedURL("dns.test")) {
            try DoHEndpoint(parsing: "dns.test")
        }
    }

    @Test func parsingRejectsPortZero() {
        #expect(throws: DoHEndpoint.ParseError.invalidPort("https://dns.test:0/dns-query")) {
            try DoHEndpoint(parsing: "https://dns.test:0/dns-query")
        }
    }

    @Test(arguments: [
        ("https://user:pw@dns.test/dns-query", "user info"),
        ("https://dns.test/dns-query#frag", "fragment"),
        ("https://dns.test/dns-query?ct", "query")
    ])
    func parsingRejectsComponentsDoHCannotUse(text: String, component: String) {
        #expect(throws: DoHEndpoint.ParseError.unsupportedComponent(text, component: component)) {
            try DoHEndpoint(parsing: text)
        }
    }

    @Test func parsingTrimsSurroundingWhitespace() throws {
        let endpoint = try DoHEndpoint(parsing: "\t https://dns.test/dns-query \u{00A0}\u{3000}")
        #expect(endpoint.url.absoluteString == "https://dns.test/dns-query")
    }

    @Test func parsingAcceptsAnInternationalHostAsItsALabel() throws {
        #expect(try DoHEndpoint(parsing: "https://bücher.test/dns-query").url.absoluteString == "https://xn--bcher-kva.test/dns-query")
        #expect(try DoHEndpoint(parsing: "https://xn--bcher-kva.test/dns-query").url.absoluteString == "https://xn--bcher-kva.test/dns-query")
    }

    @Test(arguments: ["https://DNS.GOOGLE/dns-query", "https://d%6Es.google/dns-query", "https://dns.google./dns-query"])
    func parsingMatchesAWellKnownHostAfterNormalizing(text: String) throws {
        #expect(try DoHEndpoint(parsing: text).bootstrapAddresses == DoHEndpoint.google.bootstrapAddresses)
    }

    @Test(arguments: ["https://xn--a.test/dns-query", "https://dns.test%2F/dns-query", "https://-dns.test/dns-query", "https://dns_test%00/dns-query"])
    func parsingRejectsAHostThatIsNotAName(text: String) {
        #expect(throws: DoHEndpoint.ParseError.invalidHost(text)) {
            try DoHEndpoint(parsing: text)
        }
    }

    @Test("a host whose escapes do not decode to UTF-8 is an invalid host, not a missing one")
    func parsingRejectsAPercentEncodedHostThatIsNotUTF8() {
        #expect(throws: DoHEndpoint.ParseError.invalidHost("https://%FF.test/dns-query")) {
            try DoHEndpoint(parsing: "https://%FF.test/dns-query")
        }
        #expect(
            DoHEndpoint.ParseError.invalidHost("https://%FF.test/dns-query").description
                == "bad DoH URL 'https://%FF.test/dns-query': the host is not a valid host name or IP address")
    }

    @Test func parseErrorsSayWhatToFix() {
        #expect(
            DoHEndpoint.ParseError.notHTTPS("http://x").description
                == "bad DoH URL 'http://x': the scheme must be https (RFC 8484 §3)")
    }
}
