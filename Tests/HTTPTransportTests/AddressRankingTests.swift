import Foundation
import HTTPDNSCore
@testable import HTTPTransport
import Synchronization
import Testing

/// `AddressRanking`: the order it gives from connect times, failures and lost races, and its back-off.
@Suite("Address ranking")
struct AddressRankingTests {
    final class Clock: Sendable {
        let now = Mutex<TimeInterval>(1_000)
        func advance(_ seconds: TimeInterval) { now.withLock { $0 += seconds } }
    }

    static let a = IPAddress("192.0.2.1")!
    static let b = IPAddress("192.0.2.2")!
    static let c = IPAddress("2001:db8::3")!

    @Test("unknown addresses keep the resolver's order; a measured one goes before them, the faster first")
    func connectTimes() {
        let ranking = AddressRanking(clock: { 0 })
        #expect(ranking.order([Self.a, Self.b, Self.c], port: 443) == [Self.a, Self.b, Self.c])
        ranking.report(.connected(0.080), address: Self.c, port: 443)
        ranking.report(.connected(0.020), address: Self.b, port: 443)
        #expect(ranking.order([Self.a, Self.b, Self.c], port: 443) == [Self.b, Self.c, Self.a])
        #expect(ranking.order([Self.a, Self.b, Self.c], port: 8443) == [Self.a, Self.b, Self.c], "kept per port")
    }

    @Test("the connect time is smoothed: one slow sample moves it a quarter of the way")
    func smoothing() {
        let ranking = AddressRanking(clock: { 0 })
        ranking.report(.connected(0.010), address: Self.a, port: 443)
        ranking.report(.connected(0.090), address: Self.a, port: 443)
        #expect(abs((ranking.record(for: Self.a, port: 443)?.connectTime ?? 0) - 0.030) < 1e-9)
    }

    @Test("a failure goes last for 5 s, then 10 s, doubling; a success ends it at once")
    func backOff() {
        let clock = Clock()
        let ranking = AddressRanking(clock: { clock.now.withLock { $0 } })
        ranking.report(.connected(0.001), address: Self.a, port: 443)
        ranking.report(.failed, address: Self.a, port: 443)
        #expect(ranking.order([Self.a, Self.b], port: 443) == [Self.b, Self.a])
        clock.advance(5)
        #expect(ranking.order([Self.a, Self.b], port: 443) == [Self.a, Self.b], "the back-off is over; its connect time counts again")
        ranking.report(.failed, address: Self.a, port: 443)
        clock.advance(9)
        #expect(ranking.order([Self.a, Self.b], port: 443) == [Self.b, Self.a])
        #expect(ranking.record(for: Self.a, port: 443)?.consecutiveFailures == 2)
        ranking.report(.connected(0.002), address: Self.a, port: 443)
        #expect(ranking.order([Self.a, Self.b], port: 443) == [Self.a, Self.b])
        #expect(ranking.record(for: Self.a, port: 443)?.backOffUntil == nil)
    }

    @Test("an address beaten by a later attempt counts as at least as slow as it waited")
    func beaten() {
        let ranking = AddressRanking(clock: { 0 })
        ranking.report(.beaten(pendingFor: 0.260), address: Self.a, port: 443)
        ranking.report(.connected(0.004), address: Self.b, port: 443)
        #expect(ranking.order([Self.a, Self.b], port: 443) == [Self.b, Self.a])
    }

    @Test("past its capacity the table drops records not reported for 10 minutes and not in back-off, and keeps the rest")
    func boundedTable() {
        let clock = Clock()
        let ranking = AddressRanking(clock: { clock.now.withLock { $0 } })
        ranking.report(.failed, address: Self.a, port: 443)
        for index in 0..<AddressRanking.capacity {
            ranking.report(.connected(0.01), address: IPAddress(bytes: [10, UInt8(index >> 16 & 0xFF), UInt8(index >> 8 & 0xFF), UInt8(index & 0xFF)])!, port: 443)
        }
        clock.advance(601)
        ranking.report(.connected(0.01), address: Self.b, port: 443)
        #expect(ranking.record(for: IPAddress("10.0.0.1")!, port: 443) == nil)
        #expect(ranking.record(for: Self.b, port: 443) != nil)
        #expect(ranking.record(for: Self.a, port: 443) == nil, "its 5 s back-off is long over")
        ranking.report(.failed, address: Self.c, port: 443)
        #expect(ranking.record(for: Self.c, port: 443)?.consecutiveFailures == 1)
    }

    @Test("ranked gives each address its place and why: measured by connect time, then unmeasured, then those in back-off with the time left")
    func rankedReasons() {
        let clock = Clock()
        let ranking = AddressRanking(clock: { clock.now.withLock { $0 } })
        ranking.report(.connected(0.004), address: Self.b, port: 443)
        ranking.report(.failed, address: Self.a, port: 443)
        ranking.report(.failed, address: Self.a, port: 443)
        clock.advance(2)
        let ranked = ranking.ranked([Self.a, Self.b, Self.c], port: 443)
        #expect(ranked.map(\.address) == [Self.b, Self.c, Self.a])
        #expect(ranked.map(\.rank) == [1, 2, 3])
        #expect(ranked[0].placement == .measured(connectTime: 0.004))
        #expect(ranked[1].placement == .unmeasured)
        #expect(ranked[2].placement == .backingOff(failures: 2, remaining: 8), "the second failure's back-off is 10 s, 2 s of it gone")
        #expect(ranking.order([Self.a, Self.b, Self.c], port: 443) == ranked.map(\.address))
    }

    @Test("an address is claimed for a background probe once a minute per port")
    func probeClaims() {
        let clock = Clock()
        let ranking = AddressRanking(clock: { clock.now.withLock { $0 } })
        #expect(ranking.claimProbes([Self.a, Self.b, Self.a], port: 443) == [Self.a, Self.b])
        #expect(ranking.claimProbes([Self.a, Self.b, Self.c], port: 443) == [Self.c])
        #expect(ranking.claimProbes([Self.a], port: 8443) == [Self.a], "kept per port")
        clock.advance(AddressRanking.probeInterval)
        #expect(ranking.claimProbes([Self.a, Self.b], port: 443) == [Self.a, Self.b])
    }

    @Test("a new connection libcurl made alone teaches its connect time, and that the same family's addresses before it failed; a reused one teaches nothing")
    func learnsFromLibcurlConnections() {
        let ranking = AddressRanking(clock: { 0 })
        let offered = [Self.a, Self.c, Self.b]
        var report = ConnectionReport(remoteAddress: "192.0.2.2", reusedConnection: false)
        report.timing = TransferTiming(connect: 0.012, tlsHandshake: 0.02, firstByte: 0.03, total: 0.04)
        ranking.learn(from: report, offered: offered, port: 443)
        #expect(ranking.record(for: Self.b, port: 443)?.connectTime == 0.012)
        #expect(ranking.record(for: Self.a, port: 443)?.consecutiveFailures == 1, "libcurl tried the IPv4 address before it")
        #expect(ranking.record(for: Self.c, port: 443) == nil, "the other family may have been raced: nothing is known of it")

        let reused = AddressRanking(clock: { 0 })
        report.reusedConnection = true
        reused.learn(from: report, offered: offered, port: 443)
        #expect(reused.record(for: Self.b, port: 443) == nil)
        report.reusedConnection = false
        report.remoteAddress = "198.51.100.9"
        reused.learn(from: report, offered: offered, port: 443)
        #expect(reused.record(for: IPAddress("198.51.100.9")!, port: 443) == nil, "an address that was not offered (a proxy's)")
    }

    @Test("a request no address accepted (curl 7) marks each offered address failed; a time-out or TLS failure marks none")
    func learnsFromFailures() {
        let ranking = AddressRanking(clock: { 0 })
        ranking.learn(from: HTTPClientError(kind: .timedOut, message: "t"), offered: [Self.a], port: 443)
        ranking.learn(from: HTTPClientError(kind: .tlsHandshakeFailed, message: "t"), offered: [Self.a], port: 443)
        #expect(ranking.record(for: Self.a, port: 443) == nil)
        ranking.learn(from: HTTPClientError(kind: .couldNotConnect, message: "refused"), offered: [Self.a, Self.b, Self.a], port: 443)
        #expect(ranking.record(for: Self.a, port: 443)?.consecutiveFailures == 1)
        #expect(ranking.record(for: Self.b, port: 443)?.consecutiveFailures == 1)
    }
}
