@testable import DNSResolver
import Foundation
import HTTPDNSCore
import Testing
import TestSupport

/// The `Date` field (RFC 9110 §5.6.7) and the skew the Alibaba endpoints learn from it.
@Suite("Server clock skew")
struct ServerClockSkewTests {
    @Test(
        "the three HTTP date forms give the same time; anything else is nil",
        arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"])
    func httpDateForms(field: String) {
        #expect(HTTPDate.parse(field) == Date(timeIntervalSince1970: 784_111_777))
    }

    @Test(
        "malformed dates are nil, never a guess",
        arguments: [
            "", "yesterday", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 30 Feb 2024 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:49 GMT", "Sun, 06 Nov 1969 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMT extra"
        ])
    func malformedDates(field: String) {
        #expect(HTTPDate.parse(field) == nil)
    }

    @Test("a leap day and the end of a year convert exactly")
    func calendarEdges() {
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 00:00:00 GMT") == Date(timeIntervalSince1970: 1_709_164_800))
        #expect(HTTPDate.parse("Fri, 31 Dec 2038 23:59:59 GMT") == Date(timeIntervalSince1970: 2_177_452_799))
    }

    @Test("a skew under 5 s is none; a larger one is kept per endpoint; a missing or bad Date changes nothing")
    func learning() {
        let clock = ServerClockSkew()
        let a = URL(string: "https://a.test")!
        let b = URL(string: "https://b.test")!
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(clock.learn(dateField: "Tue, 14 Nov 2023 22:13:23 GMT", for: a, now: now) == 0) // 3 s ahead
        #expect(clock.learn(dateField: "Tue, 14 Nov 2023 23:13:20 GMT", for: a, now: now) == 3_600)
        #expect(clock.skew(for: a) == 3_600)
        #expect(clock.skew(for: b) == 0)
        #expect(clock.learn(dateField: nil, for: a, now: now) == 3_600)
        #expect(clock.learn(dateField: "garbage", for: a, now: now) == 3_600)
        #expect(clock.learn(dateField: "Tue, 14 Nov 2023 21:13:20 GMT", for: b, now: now) == -3_600)
    }

    /// A server whose clock is `ahead` seconds ahead of ours: it refuses an `exp`/`t` already past by
    /// its clock with 403, and sends its `Date` on every answer.
    static func skewedServer(ahead: TimeInterval, expiry: String, body: String) -> FakeDoHTransport {
        FakeDoHTransport { request in
            let serverNow = Date().addingTimeInterval(ahead)
            let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            let sent = items.first { $0.name == expiry }?.value.flatMap(TimeInterval.init) ?? 0
            let date = Self.imfFixdate(serverNow)
            guard sent > serverNow.timeIntervalSince1970 else {
                return DoHHTTPResponse(status: 403, contentType: "application/json", body: Data(#"{"code":"SignatureExpired"}"#.utf8), date: date)
            }
            return DoHHTTPResponse(status: 200, contentType: "application/json", body: Data(body.utf8), date: date)
        }
    }

    static func imfFixdate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    @Test("/v2/d against a server 2 hours ahead: the first request is refused, asked again once with the learned skew, then right the first time")
    func v2LearnsFromDate() async throws {
        let url = URL(string: "https://skew-v2.test")!
        let transport = Self.skewedServer(
            ahead: 7_200, expiry: "exp", body: #"{"code":"success","mode":"0","data":{"answers":[{"dn":"a.test","v4":{"ips":["192.0.2.1"],"ttl":60}}]}}"#)
        let endpoint = AlibabaHTTPDNSV2Endpoint(url: url, accountID: "1")
        #expect(try await endpoint.lookup("a.test", families: .ipv4, transport: transport, timeout: 5) == .addresses([IPAddress("192.0.2.1")!], ttl: 60))
        #expect(transport.requests.count == 2)
        #expect(try await endpoint.lookup("a.test", families: .ipv4, transport: transport, timeout: 5) == .addresses([IPAddress("192.0.2.1")!], ttl: 60))
        #expect(transport.requests.count == 3)
    }

    @Test("sign_d against a server 2 hours ahead is corrected the same way; with the correction off, the 403 stands and is asked once")
    func v1LearnsFromDate() async throws {
        let body = #"{"host":"a.test","ips":["192.0.2.2"],"ttl":60}"#
        let learning = Self.skewedServer(ahead: 7_200, expiry: "t", body: body)
        let endpoint = AlibabaHTTPDNSEndpoint(url: URL(string: "https://skew-v1.test")!, accountID: "1", secret: "s")
        #expect(try await endpoint.lookup("a.test", families: .ipv4, transport: learning, timeout: 5) == .addresses([IPAddress("192.0.2.2")!], ttl: 60))
        #expect(learning.requests.count == 2)

        let fixed = Self.skewedServer(ahead: 7_200, expiry: "t", body: body)
        var stubborn = AlibabaHTTPDNSEndpoint(url: URL(string: "https://skew-v1-off.test")!, accountID: "1", secret: "s")
        stubborn.correctsClockFromResponses = false
        let error = try await #require(throws: ProviderFailure.self) { try await stubborn.lookup("a.test", families: .ipv4, transport: fixed, timeout: 5) }
        #expect("\(error)".contains("HTTP 403"))
        #expect(fixed.requests.count == 1)
    }

    @Test("a 403 whose Date shows no new skew is not asked again")
    func noRetryWithoutNewSkew() async throws {
        let transport = FakeDoHTransport { _ in
            DoHHTTPResponse(status: 403, contentType: "application/json", body: Data(#"{"code":"InvalidSignature"}"#.utf8), date: Self.imfFixdate(Date()))
        }
        let endpoint = AlibabaHTTPDNSV2Endpoint(url: URL(string: "https://skew-none.test")!, accountID: "1", secret: "00")
        let error = try await #require(throws: ProviderFailure.self) { try await endpoint.lookup("a.test", families: .ipv4, transport: transport, timeout: 5) }
        #expect("\(error)".contains("InvalidSignature"))
        #expect(transport.requests.count == 1)
    }
}
