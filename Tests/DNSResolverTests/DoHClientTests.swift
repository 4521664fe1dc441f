@testable import DNSResolver
import Foundation
import HTTPDNSCore
import Testing

@Suite("DoHClient")
struct DoHClientTests {
    static let url = URL(string: "https://dns.test:8443/dns-query")!
    static let post = DoHEndpoint(url: url, bootstrapAddresses: [IPAddress("192.0.2.53")!, IPAddress("2001:db8::53")!], method: .post)
    static let get = DoHEndpoint(url: url, bootstrapAddresses: [IPAddress("192.0.2.53")!], method: .get)
    static let zone = FakeZone(hosts: [
        "both.test": .init(ipv4: ["192.0.2.1", "192.0.2.2"], ipv6: ["2001:db8::1"], ttl: 300),
        "v4only.test": .init(ipv4: ["192.0.2.4"], ttl: 120),
        "none.test": .init()
    ])

    private func lookup(
        _ name: String, families: AddressFamilies = .both, endpoint: DoHEndpoint = post,
        transport: FakeDoHTransport, maxResponseBytes: Int = 65_535
    ) async throws(DoHClient.Failure) -> DoHClient.Answer {
        let client = DoHClient(transport: transport, maxResponseBytes: maxResponseBytes)
        return try await client.lookup(name, families: families, endpoint: endpoint, timeout: 3)
    }

    private func failure(_ body: @Sendable @escaping (FakeDoHTransport.Request) -> DoHHTTPResponse) async -> DoHClient.Failure? {
        let transport = FakeDoHTransport { body($0) }
        do {
            _ = try await lookup("both.test", families: .ipv4, transport: transport)
            return nil
        } catch {
            return error
        }
    }

    // MARK: Requests

    @Test func getCarriesTheQueryAsBase64URLWithoutPadding() async throws {
        let transport = FakeDoHTransport(zone: Self.zone)
        _ = try await lookup("both.test", families: .ipv4, endpoint: Self.get, transport: transport)
        let request = try #require(transport.requests.first)
        let components = try #require(URLComponents(url: request.url, resolvingAgainstBaseURL: false))
        let dns = try #require(components.queryItems?.first { $0.name == "dns" }?.value)
        #expect(components.path == "/dns-query")
        #expect(components.queryItems?.count == 1)
        #expect(!dns.contains("=") && !dns.contains("+") && !dns.contains("/"))
        let query = try #require(DNSFixture.decodeBase64URL(dns))
        #expect(DNSFixture.question(of: query)?.name == "both.test")
        #expect(DNSFixture.question(of: query)?.type == DNSFixture.typeA)
        #expect(query[0] == 0 && query[1] == 0, "RFC 8484 §4.1: ID 0 so HTTP caches see equal queries")
        #expect(query.count % 128 == 0, "EDNS padding to 128 octets (RFC 8467)")
    }

    @Test func getSendsAcceptAndNoBody() async throws {
        let transport = FakeDoHTransport(zone: Self.zone)
        _ = try await lookup("both.test", families: .ipv4, endpoint: Self.get, transport: transport)
        let request = try #require(transport.requests.first)
        #expect(request.method == "GET")
        #expect(request.body == nil)
        #expect(request.header("Accept") == "application/dns-message")
        #expect(request.header("Content-Type") == nil)
    }

    @Test func base64URLUsesTheURLSafeAlphabetWithoutPadding() {
        #expect(DoHClient.base64URL([0xFB, 0xFF]) == "-_8")
        #expect(DoHClient.base64URL([0xFB, 0xFF, 0xBF]) == "-_-_")
    }

    @Test func postSendsTheQueryAsADNSMessageBody() async throws {
        let transport = FakeDoHTransport(zone: Self.zone)
        _ = try await lookup("both.test", families: .ipv6, transport: transport)
        let request = try #require(transport.requests.first)
        #expect(request.method == "POST")
        #expect(request.url == Self.url)
        #expect(request.header("Content-Type") == "application/dns-message")
        #expect(request.header("Accept") == "application/dns-message")
        let body = try #require(request.body)
        #expect(DNSFixture.question(of: Array(body))?.name == "both.test")
        #expect(DNSFixture.question(of: Array(body))?.type == DNSFixture.typeAAAA)
    }

    @Test func requestsGoToTheBootstrapAddressesWithTheTimeoutAndSizeCap() async throws {
        let transport = FakeDoHTransport(zone: Self.zone)
        _ = try await lookup("both.test", families: .ipv4, transport: transport, maxResponseBytes: 4096)
        let request = try #require(transport.requests.first)
        #expect(request.connectTo == Self.post.bootstrapAddresses)
        #expect(request.timeout == 3)
        #expect(request.maxResponseBytes == 4096)
    }

    @Test func bothFamiliesAreAskedInParallel() async throws {
        let gate = Gate()
        let transport = FakeDoHTransport { request in
            await gate.wait()
            return Self.zone.respond(to: request.query)
        }
        let client = DoHClient(transport: transport)
        async let answer = client.lookup("both.test", families: .both, endpoint: Self.post, timeout: 3)
        // Both requests are out before either is answered.
        #expect(await eventually { transport.requests.count == 2 })
        gate.open()
        _ = try await answer
        #expect(Set(transport.requests.compactMap { $0.question?.type }) == [DNSFixture.typeA, DNSFixture.typeAAAA])
    }

    @Test func onlyARecordsAreAskedForIPv4() async throws {
        let transport = FakeDoHTransport(zone: Self.zone)
        _ = try await lookup("both.test", families: .ipv4, transport: transport)
        #expect(transport.requests.compactMap { $0.question?.type } == [DNSFixture.typeA])
    }

    // MARK: Answers

    @Test func addressesListIPv6FirstWithTheLesserTTL() async throws {
        let transport = FakeDoHTransport { request in
            let question = request.question!
            let answers: [DNSFixture.Record] =
                question.type == DNSFixture.typeA
                ? [.a("both.test", "192.0.2.1", ttl: 60), .a("both.test", "192.0.2.2", ttl: 60)]
                : [.aaaa("both.test", "2001:db8::1", ttl: 300)]
            return .dns(DNSFixture.response(to: request.query, answers: answers))
        }
        let answer = try await lookup("both.test", transport: transport)
        #expect(
            answer
                == .addresses(
                    [IPAddress("2001:db8::1")!, IPAddress("192.0.2.1")!, IPAddress("192.0.2.2")!], ttl: 60))
    }

    @Test func addressesAtTheEndOfACNAMEChainAreUsed() async throws {
        let transport = FakeDoHTransport { request in
            .dns(
                DNSFixture.response(
                    to: request.query,
                    answers: [
                        .cname("www.test", "edge.test", ttl: 30), .a("edge.test", "192.0.2.9", ttl: 600)
                    ]))
        }
        let answer = try await lookup("www.test", families: .ipv4, transport: transport)
        #expect(answer == .addresses([IPAddress("192.0.2.9")!], ttl: 30))
    }

    @Test func noDataForOneFamilyStillGivesTheOthersAddresses() async throws {
        let answer = try await lookup("v4only.test", transport: FakeDoHTransport(zone: Self.zone))
        #expect(answer == .addresses([IPAddress("192.0.2.4")!], ttl: 120))
    }

    @Test func oneFamilysAddressesSurviveTheOtherFailingWithAShortTTL() async throws {
        let transport = FakeDoHTransport { request in
            request.question?.type == DNSFixture.typeAAAA
                ? .dns(DNSFixture.response(to: request.query, code: .serverFailure))
                : Self.zone.respond(to: request.query)
        }
        let answer = try await lookup("both.test", transport: transport)
        #expect(answer == .addresses([IPAddress("192.0.2.1")!, IPAddress("192.0.2.2")!], ttl: DoHClient.partialAnswerTTLCap))
    }

    @Test func noDataForBothFamiliesIsNoAddresses() async throws {
        let answer = try await lookup("none.test", transport: FakeDoHTransport(zone: Self.zone))
        #expect(answer == .noAddresses(negativeTTL: 60))
    }

    @Test func nxdomainIsNameNotFoundWithTheSOANegativeTTL() async throws {
        let answer = try await lookup("missing.test", transport: FakeDoHTransport(zone: Self.zone))
        #expect(answer == .nameNotFound(negativeTTL: 60))
    }

    @Test func nxdomainWithoutSOAHasNoNegativeTTL() async throws {
        var zone = Self.zone
        zone.negativeTTL = nil
        let answer = try await lookup("missing.test", transport: FakeDoHTransport(zone: zone))
        #expect(answer == .nameNotFound(negativeTTL: nil))
    }

    @Test func aContentTypeWithParametersIsAccepted() async throws {
        let transport = FakeDoHTransport { request in
            var response = Self.zone.respond(to: request.query)
            response.contentType = "Application/DNS-Message; charset=binary"
            return response
        }
        let answer = try await lookup("v4only.test", families: .ipv4, transport: transport)
        #expect(answer == .addresses([IPAddress("192.0.2.4")!], ttl: 120))
    }

    // MARK: HTTP caching (RFC 8484 §5.1)

    @Test func anHTTPCachesAgeIsTakenOffEveryTTL() async throws {
        let transport = FakeDoHTransport { request in
            var response = Self.zone.respond(to: request.query)
            response.age = 100
            return response
        }
        // both.test: 300 s for both families; missing.test: NXDOMAIN, SOA MINIMUM 60 s.
        #expect(
            try await lookup("both.test", endpoint: Self.get, transport: transport)
                == .addresses([IPAddress("2001:db8::1")!, IPAddress("192.0.2.1")!, IPAddress("192.0.2.2")!], ttl: 200))
        #expect(try await lookup("none.test", endpoint: Self.get, transport: transport) == .noAddresses(negativeTTL: 0))
        #expect(try await lookup("missing.test", endpoint: Self.get, transport: transport) == .nameNotFound(negativeTTL: 0))
    }

    @Test func anAgeBeyondTheTTLLeavesZeroAndNoAgeLeavesTheTTL() async throws {
        let aged = FakeDoHTransport { request in
            var response = Self.zone.respond(to: request.query)
            response.age = 86_400
            return response
        }
        #expect(try await lookup("v4only.test", families: .ipv4, transport: aged) == .addresses([IPAddress("192.0.2.4")!], ttl: 0))
        let fresh = FakeDoHTransport(zone: Self.zone)
        #expect(try await lookup("v4only.test", families: .ipv4, transport: fresh) == .addresses([IPAddress("192.0.2.4")!], ttl: 120))
    }

    @Test(
        arguments: [
            ("120", 120.0), (" 7 ", 7), ("0", 0), ("99999999999", 2_147_483_648), ("2147483649", 2_147_483_648)
        ] as [(String, TimeInterval)])
    func ageFieldIsDeltaSeconds(field: String, seconds: TimeInterval) {
        #expect(DoHHTTPResponse.age(fromField: field) == seconds)
    }

    @Test(arguments: [nil, "", "-1", "1.5", "abc", "12a", "+3", "\u{0663}"] as [String?])
    func anAgeFieldThatIsNotDeltaSecondsIsIgnored(field: String?) {
        #expect(DoHHTTPResponse.age(fromField: field) == nil)
    }

    // MARK: Endpoint failures

    @Test func http500IsAnEndpointFailureNamingTheStatusAndWhatTheServerSaid() async {
        let text = await failure { _ in DoHHTTPResponse(status: 500, contentType: "text/plain", body: Data("oops".utf8)) }
        #expect(text?.description == #"https://dns.test:8443/dns-query: HTTP 500: "oops""#)
        let page = await failure { _ in DoHHTTPResponse(status: 502, contentType: "text/html", body: Data("<html><h1>502 Bad Gateway</h1></html>".utf8)) }
        #expect(page?.description == "https://dns.test:8443/dns-query: HTTP 502")
    }

    // The second is shown without its terminal escapes.
    @Test(arguments: [("text/html", "text/html"), ("text/plain\u{1B}[31mRED\u{7}", "text/plain?[31mRED?")])
    func aWrongContentTypeIsAnEndpointFailure(contentType: String, shown: String) async {
        let failure = await failure { request in
            var response = Self.zone.respond(to: request.query)
            response.contentType = contentType
            return response
        }
        #expect(
            failure?.description
                == "https://dns.test:8443/dns-query: unexpected Content-Type '\(shown)' (expected application/dns-message)")
    }

    @Test func aMissingContentTypeIsAnEndpointFailure() async {
        let failure = await failure { request in
            var response = Self.zone.respond(to: request.query)
            response.contentType = nil
            return response
        }
        #expect(failure?.description == "https://dns.test:8443/dns-query: no Content-Type (expected application/dns-message)")
    }

    @Test func aGarbageBodyIsAnEndpointFailure() async {
        let failure = await failure { _ in .dns(Data([0xDE, 0xAD, 0xBE, 0xEF])) }
        #expect(failure?.description.hasPrefix("https://dns.test:8443/dns-query: malformed DNS response: ") == true)
    }

    @Test func anAnswerToAnotherQuestionIsAnEndpointFailure() async {
        let failure = await failure { request in
            // Addresses for another name, as a confused or hostile server might send.
            let other = Array(DNSFixture.encode(name: "evil.test")) + [0, 1, 0, 1]
            let query = Array(request.query[0..<12]) + other
            return .dns(DNSFixture.response(to: query, answers: [.a("evil.test", "203.0.113.66", ttl: 60)]))
        }
        #expect(failure?.description.hasPrefix("https://dns.test:8443/dns-query: malformed DNS response: ") == true)
    }

    @Test func aBodyOverTheSizeCapIsAnEndpointFailure() async {
        let transport = FakeDoHTransport { request in
            // A transport that failed to enforce the cap: the client checks again.
            .dns(Self.zone.respond(to: request.query).body + Data(count: 600))
        }
        do {
            _ = try await lookup("both.test", families: .ipv4, transport: transport, maxResponseBytes: 512)
            Issue.record("an oversized response was accepted")
        } catch {
            #expect(error.description.hasSuffix("exceeds the 512-byte limit"))
            #expect(transport.requests.first?.maxResponseBytes == 512)
        }
    }

    @Test(arguments: [(DNSFixture.ResponseCode.serverFailure, "SERVFAIL"), (.refused, "REFUSED")])
    func anErrorResponseCodeIsAnEndpointFailure(code: DNSFixture.ResponseCode, name: String) async {
        let failure = await failure { request in .dns(DNSFixture.response(to: request.query, code: code)) }
        #expect(failure?.description == "https://dns.test:8443/dns-query: DNS \(name)")
    }

    @Test func aTruncatedResponseIsAnEndpointFailure() async {
        let failure = await failure { request in
            .dns(DNSFixture.response(to: request.query, answers: [.a("both.test", "192.0.2.1", ttl: 60)], truncated: true))
        }
        #expect(failure?.description == "https://dns.test:8443/dns-query: truncated DNS response (TC)")
    }

    @Test func aTransportErrorIsAnEndpointFailureWithItsMessage() async {
        let transport = FakeDoHTransport { _ in throw TransportFailure(description: "connection refused\nto 192.0.2.53") }
        do {
            _ = try await lookup("both.test", families: .ipv4, transport: transport)
            Issue.record("expected a failure")
        } catch {
            // Kept whole: a transport message of several lines (a pin mismatch's chain) stays readable.
            #expect(error == .endpointFailed(Self.url, reason: "connection refused\nto 192.0.2.53"))
        }
    }

    @Test func differentFailuresPerFamilyAreBothReported() async {
        let transport = FakeDoHTransport { request in
            request.question?.type == DNSFixture.typeA
                ? DoHHTTPResponse(status: 502, contentType: nil, body: Data())
                : .dns(DNSFixture.response(to: request.query, code: .serverFailure))
        }
        do {
            _ = try await lookup("both.test", transport: transport)
            Issue.record("expected a failure")
        } catch {
            #expect(error.description == "https://dns.test:8443/dns-query: AAAA: DNS SERVFAIL; A: HTTP 502")
        }
    }

    @Test func aNameThatCannotBeQueriedIsInvalidWithoutAsking() async {
        let transport = FakeDoHTransport(zone: Self.zone)
        do {
            _ = try await lookup("bücher.test", transport: transport)
            Issue.record("expected a failure")
        } catch {
            guard case .invalidName("bücher.test", _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
        }
        #expect(transport.requests.isEmpty)
    }
}
