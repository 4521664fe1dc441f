import Foundation
import Testing
import HTTPDNS

/// `HTTPRedirect`: which method and body the next hop gets, where a Location points, which fields
/// stay behind (RFC 9110 §15.4). No network.
@Suite("Redirect rules")
struct RedirectRuleTests {
    static let base = URL(string: "https://a.test:8443/dir/page?q=1")!

    @Test(
        "301 and 302 turn POST into GET without a body; other methods keep theirs",
        arguments: [301, 302])
    func movedAndFound(status: Int) {
        #expect(HTTPRedirect.method(after: status, for: "POST") == ("GET", false))
        #expect(HTTPRedirect.method(after: status, for: "post") == ("GET", false))
        #expect(HTTPRedirect.method(after: status, for: "PUT") == ("PUT", true))
        #expect(HTTPRedirect.method(after: status, for: "GET") == ("GET", true))
    }

    @Test("303 turns every method but HEAD into GET and drops the body")
    func seeOther() {
        #expect(HTTPRedirect.method(after: 303, for: "POST") == ("GET", false))
        #expect(HTTPRedirect.method(after: 303, for: "DELETE") == ("GET", false))
        #expect(HTTPRedirect.method(after: 303, for: "HEAD") == ("HEAD", false))
    }

    @Test("307 and 308 keep method and body", arguments: [307, 308])
    func temporaryAndPermanent(status: Int) {
        #expect(HTTPRedirect.method(after: status, for: "POST") == ("POST", true))
        #expect(HTTPRedirect.method(after: status, for: "PATCH") == ("PATCH", true))
    }

    @Test(
        "a relative Location resolves against the logical URL, keeping host and port",
        arguments: [
            ("/inspect", "https://a.test:8443/inspect"), ("other", "https://a.test:8443/dir/other"),
            ("?x=2", "https://a.test:8443/dir/page?x=2"), ("//b.test/x", "https://b.test/x"),
            ("https://b.test:9/y", "https://b.test:9/y")
        ])
    func relativeLocation(location: String, expected: String) throws {
        let redirect = try #require(HTTPRedirect(status: 302, headers: ["location": location], url: Self.base, method: "GET"))
        #expect(redirect.location.absoluteString == expected)
    }

    @Test("no redirect without a Location, for other statuses, or to other schemes")
    func notRedirects() {
        #expect(HTTPRedirect(status: 302, headers: [:], url: Self.base, method: "GET") == nil)
        #expect(HTTPRedirect(status: 300, headers: ["Location": "/x"], url: Self.base, method: "GET") == nil)
        #expect(HTTPRedirect(status: 304, headers: ["Location": "/x"], url: Self.base, method: "GET") == nil)
        #expect(HTTPRedirect(status: 302, headers: ["Location": "ftp://a.test/x"], url: Self.base, method: "GET") == nil)
    }

    @Test("credentials, cookies and a caller's Host stay with the origin; content fields go with the body")
    func headersAfterRedirect() throws {
        var request = HTTPRequest(
            url: Self.base, method: "POST",
            headers: [
                "AUTHORIZATION": "Bearer x", "cookie": "a=1", "host": "a.test:8443",
                "Content-Type": "text/plain", "X-Keep": "1"
            ],
            body: .data(Data("body".utf8)))
        request.connectTo = [IPAddress("127.0.0.1")!]
        let cross = try #require(HTTPRedirect(status: 307, headers: ["Location": "https://b.test:8443/"], url: Self.base, method: "POST"))
        let next = cross.request(after: request)
        #expect(next.headers.contains(name: "Authorization") == false)
        #expect(next.headers.contains(name: "Cookie") == false)
        #expect(next.headers.contains(name: "Host") == false)
        #expect(next.headers[first: "content-type"] == "text/plain")
        #expect(next.method == "POST")
        #expect(next.connectTo == nil)
        if case .data(let data)? = next.body { #expect(data == Data("body".utf8)) } else { Issue.record("307 dropped the body") }

        let same = try #require(HTTPRedirect(status: 303, headers: ["Location": "/done"], url: Self.base, method: "POST"))
        let after303 = same.request(after: request)
        #expect(after303.headers[first: "Authorization"] == "Bearer x")
        #expect(after303.headers[first: "Host"] == "a.test:8443")
        #expect(after303.headers.contains(name: "Content-Type") == false)
        #expect(after303.body == nil)
        #expect(after303.method == "GET")
    }
}
