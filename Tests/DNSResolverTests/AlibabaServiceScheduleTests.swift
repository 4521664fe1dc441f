@testable import DNSResolver
import Foundation
import HTTPDNSCore
import Synchronization
import Testing
import TestSupport

/// Alibaba's scheduling API ("调度服务接口"): the request, its HMAC-MD5 signature (checked against
/// Python's `hmac`), the answer, and when the list is asked for again.
@Suite("Alibaba service schedule")
struct AlibabaServiceScheduleTests {
    static let startup = [IPAddress("203.107.1.1")!, IPAddress("203.107.1.97")!]

    /// A clock the test moves.
    final class TestClock: Sendable {
        let now = Mutex(Date(timeIntervalSince1970: 1_700_000_000))
        func advance(_ seconds: TimeInterval) { now.withLock { $0 += seconds } }
    }

    static func json(_ text: String, status: Int = 200) -> DoHHTTPResponse {
        DoHHTTPResponse(status: status, contentType: "application/json", body: Data(text.utf8))
    }

    @Test("the request: /ACCOUNT/ss?region=, and signed n, t (now + 300 s) and s = HMAC-MD5(secret, 'n-secret-t') as Python computes it")
    func request() throws {
        let unsigned = AlibabaServiceSchedule(accountID: "100000", startupAddresses: Self.startup, region: .chinaMainland)
        let url = unsigned.requestURL(now: Date(timeIntervalSince1970: 1_632_912_072))
        #expect(url.absoluteString == "https://resolvers.httpdns.aliyuncs.com/100000/ss?region=cn")
        let signed = AlibabaServiceSchedule(accountID: "100000", startupAddresses: Self.startup, secret: "s3cret")
        let items = URLComponents(url: signed.requestURL(now: Date(timeIntervalSince1970: 1_632_912_072), nonce: "abcdef2345"), resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(items.map(\.name) == ["region", "n", "t", "s"])
        #expect(items.prefix(3).map { $0.value ?? "" } == ["global", "abcdef2345", "1632912372"])
        #expect(items.last?.value == (try PythonCrypto.hmacMD5(key: "s3cret", input: "abcdef2345-s3cret-1632912372")))
        let random = URLComponents(url: signed.requestURL(now: Date()), resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "n" }?.value ?? ""
        #expect(random.count == 16 && random.allSatisfy(\.isHexDigit))
    }

    @Test(
        "the answer: IPv4 then IPv6 service IPs; disable, an empty list, a wrong family or garbage are typed failures",
        arguments: [
            (#"{"service_ip":["1.1.1.1","1.1.1.2"],"service_ipv6":["2400:3200::1"]}"#, ""),
            (#"{"service_status":"disable"}"#, "disabled for this account"),
            (#"{"service_ip":[],"service_ipv6":[]}"#, "lists no service IP"),
            (#"{"service_ip":["2400:3200::1"]}"#, "not an IPv4 address"),
            (#"{"service_ip":"1.1.1.1"}"#, "is not a list"),
            ("<html>", "malformed JSON")
        ])
    func answer(body: String, failure: String) throws {
        let url = URL(string: "https://resolvers.httpdns.aliyuncs.com")!
        if failure.isEmpty {
            #expect(try AlibabaServiceSchedule.parse(Data(body.utf8), endpoint: url) == ["1.1.1.1", "1.1.1.2", "2400:3200::1"].map { IPAddress($0)! })
        } else {
            let error = try #require(throws: ProviderFailure.self) { try AlibabaServiceSchedule.parse(Data(body.utf8), endpoint: url) }
            #expect("\(error)".contains(failure), "\(error)")
        }
    }

    @Test("asked of the startup IPs first, kept for 8 hours, then asked of the service IPs; after a failure of all service IPs, asked again")
    func refresh() async throws {
        let clock = TestClock()
        let schedule = AlibabaServiceSchedule(accountID: "1", startupAddresses: Self.startup, now: { clock.now.withLock { $0 } })
        let transport = FakeDoHTransport { _ in Self.json(#"{"service_ip":["10.1.1.1","10.1.1.2"]}"#) }
        let first = try await schedule.addresses(transport: transport, timeout: 5)
        #expect(first == [IPAddress("10.1.1.1")!, IPAddress("10.1.1.2")!])
        #expect(transport.requests.map(\.connectTo) == [Self.startup])
        #expect(transport.requests.first?.url.host() == "resolvers.httpdns.aliyuncs.com")
        clock.advance(8 * 3_600 - 1)
        _ = try await schedule.addresses(transport: transport, timeout: 5)
        #expect(transport.requests.count == 1)
        clock.advance(1)
        _ = try await schedule.addresses(transport: transport, timeout: 5)
        #expect(transport.requests.last?.connectTo == first)
        schedule.serviceFailed()
        _ = try await schedule.addresses(transport: transport, timeout: 5)
        #expect(transport.requests.count == 3)
    }

    @Test("when the service IPs fail the startup IPs are asked; when all fail, a doubling back-off, the old list kept meanwhile")
    func fallbackAndBackOff() async throws {
        let clock = TestClock()
        let schedule = AlibabaServiceSchedule(accountID: "1", startupAddresses: Self.startup, now: { clock.now.withLock { $0 } })
        let failing = Mutex(false)
        let transport = FakeDoHTransport { request in
            if failing.withLock({ $0 }) { throw URLError(.cannotConnectToHost) }
            if request.connectTo == Self.startup { return Self.json(#"{"service_ip":["10.2.2.2"]}"#) }
            throw URLError(.cannotConnectToHost)
        }
        #expect(try await schedule.addresses(transport: transport, timeout: 5) == [IPAddress("10.2.2.2")!])
        schedule.serviceFailed()
        // The service IP fails, the startup IPs answer.
        #expect(try await schedule.addresses(transport: transport, timeout: 5) == [IPAddress("10.2.2.2")!])
        #expect(transport.requests.map(\.connectTo) == [Self.startup, [IPAddress("10.2.2.2")!], Self.startup])
        failing.withLock { $0 = true }
        schedule.serviceFailed()
        #expect(try await schedule.addresses(transport: transport, timeout: 5) == [IPAddress("10.2.2.2")!]) // the old list, while backing off
        #expect(transport.requests.count == 5)
        _ = try await schedule.addresses(transport: transport, timeout: 5)
        #expect(transport.requests.count == 5, "within the 1-s back-off nothing is asked")
        clock.advance(1)
        _ = try await schedule.addresses(transport: transport, timeout: 5)
        #expect(transport.requests.count == 7, "after it, both lists again")

        let empty = AlibabaServiceSchedule(accountID: "1", startupAddresses: Self.startup, now: { clock.now.withLock { $0 } })
        let error = try await #require(throws: ProviderFailure.self) { try await empty.addresses(transport: transport, timeout: 5) }
        #expect("\(error)".contains("no service IPs") && "\(error)".contains("asked again after 1 s"), "\(error)")
    }

    @Test("an endpoint with a schedule resolves at the service IPs under the service host, and a transport failure marks them failed")
    func endpointUsesSchedule() async throws {
        let schedule = AlibabaServiceSchedule(accountID: "100000", startupAddresses: Self.startup)
        let down = Mutex(false)
        let transport = FakeDoHTransport { request in
            if request.url.path.hasSuffix("/ss") { return Self.json(#"{"service_ip":["10.3.3.3"]}"#) }
            if down.withLock({ $0 }) { throw URLError(.timedOut) }
            return Self.json(#"{"code":"success","mode":"0","data":{"answers":[{"dn":"a.test","v4":{"ips":["192.0.2.9"],"ttl":60}}]}}"#)
        }
        let endpoint = AlibabaHTTPDNSV2Endpoint(schedule: schedule)
        #expect(endpoint.url.absoluteString == "https://resolvers.httpdns.aliyuncs.com")
        #expect(try await endpoint.lookup("a.test", families: .ipv4, transport: transport, timeout: 5) == .addresses([IPAddress("192.0.2.9")!], ttl: 60))
        let resolve = try #require(transport.requests.last)
        #expect(resolve.url.path == "/v2/d" && resolve.connectTo == [IPAddress("10.3.3.3")!])
        down.withLock { $0 = true }
        await #expect(throws: ProviderFailure.self) { try await endpoint.lookup("a.test", families: .ipv4, transport: transport, timeout: 5) }
        down.withLock { $0 = false }
        _ = try await endpoint.lookup("a.test", families: .ipv4, transport: transport, timeout: 5)
        #expect(transport.requests.filter { $0.url.path.hasSuffix("/ss") }.count == 2, "the failure made the list due")
    }

    @Test("the iOS SDK's own example request (HttpdnsScheduleExecutor.m) has this path and region; its platform, sdk_version, sid and net are tracing parameters")
    func iOSSDKExample() throws {
        let example = try #require(URLComponents(string: "https://203.107.1.1/100000/ss?region=global&platform=ios&sdk_version=3.1.7&sid=LpmJIA2CUoi4&net=wifi"))
        let schedule = AlibabaServiceSchedule(accountID: "100000", startupAddresses: Self.startup)
        let ours = try #require(URLComponents(url: schedule.requestURL(now: Date()), resolvingAgainstBaseURL: false))
        #expect(ours.path == example.path)
        #expect(ours.queryItems == example.queryItems?.filter { $0.name == "region" })
    }
}
