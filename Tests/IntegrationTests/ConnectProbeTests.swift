import Foundation
import Testing
import HTTPDNS
@testable import HTTPTransport
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

extension ResolverIntegrationSuites {
    /// Address ranking from TCP-connect probes and from libcurl's own connections, against nginx: a
    /// refused and a black-holed address go last, so a client that does not race (libcurl's
    /// sequential attempts, which give a black hole half the connect limit) never waits for them.
    @Suite("Connect probes and ranking without a race")
    struct ConnectProbeTests {
        let fixture: Fixture
        init() throws { fixture = try Fixture() }

        var port: Int { fixture.servers.httpsPort }

        /// A client that does not race, with its own ranking and a 20 s connect limit (libcurl alone
        /// gives a black-holed first address of two half of it).
        func client(_ addresses: [String], probing probed: [String: Int] = [:]) throws -> (HTTPClient, AddressRanking) {
            let ranking = AddressRanking()
            var configuration = HTTPClient.Configuration(trust: fixture.trust, timeouts: Timeouts(connect: 20, total: 30))
            configuration.racesAddresses = false
            configuration.addressRanking = ranking
            configuration.probedPorts = probed
            return (try HTTPClient(configuration: configuration, resolver: MutableResolver(addresses: addresses.map { IPAddress($0)! })), ranking)
        }

        @Test("a probe connects to every address at once: the listening one is timed, the refused and the black-holed ones fail within the limit and go last")
        func probeOutcomes() async throws {
            let hole = try HappyEyeballsTests.blackHole("127.0.0.31", port: port)
            defer { hole.forEach { close($0) } }
            let ranking = AddressRanking()
            let addresses = ["127.0.0.31", "127.0.0.32", "127.0.0.1"].map { IPAddress($0)! }
            let start = ContinuousClock.now
            let results = await ConnectProbe.probe(addresses, port: port, timeout: 1, reportingTo: ranking)
            #expect(ContinuousClock.now - start < .seconds(TestTimeScale.scaled(3)), "the probe outlived its 1 s limit")
            #expect(results.map(\.address) == addresses)
            #expect(results[0].connectTime == nil, "black hole")
            #expect(results[1].connectTime == nil, "refused: nothing listens on 127.0.0.32")
            let live = try #require(results[2].connectTime)
            #expect(live > 0 && live < 1)
            let ranked = ranking.ranked(addresses, port: port)
            #expect(ranked.map(\.address) == [addresses[2], addresses[0], addresses[1]])
            #expect(ranked[0].placement == .measured(connectTime: live))
            guard case .backingOff(failures: 1, _) = ranked[1].placement else {
                Issue.record("the black hole is not backing off: \(ranked[1])")
                return
            }
        }

        @Test("probeConnections ranks a black-holed first address last: the next request, with libcurl trying addresses in order, never waits for it")
        func explicitProbe() async throws {
            let hole = try HappyEyeballsTests.blackHole("127.0.0.33", port: port)
            defer { hole.forEach { close($0) } }
            let (client, _) = try client(["127.0.0.33", "127.0.0.1"])
            let results = try await client.probeConnections(host: "a.test", port: port, timeout: 1)
            #expect(results.map(\.connectTime).map { $0 != nil } == [false, true])
            let start = ContinuousClock.now
            let response = try await client.execute(HTTPRequest(url: fixture.url("a.test")))
            #expect(response.connection.remoteAddress == "127.0.0.1")
            #expect((response.connection.timing?.connect ?? 99) < 1, "libcurl tried the black hole first")
            #expect(ContinuousClock.now - start < .seconds(TestTimeScale.scaled(5)))
        }

        @Test("probedPorts probes a listed host's addresses in the background after it resolves; later requests start with the live address")
        func backgroundProbe() async throws {
            let hole = try HappyEyeballsTests.blackHole("127.0.0.34", port: port)
            defer { hole.forEach { close($0) } }
            // The live address first, so the first request does not wait while the probe runs.
            let (client, ranking) = try client(["127.0.0.1", "127.0.0.34"], probing: ["a.test": port])
            _ = try await client.execute(HTTPRequest(url: fixture.url("a.test")))
            let black = IPAddress("127.0.0.34")!
            // The probe's limit is the connect limit, at most 5 s: its black hole fails then.
            let deadline = ContinuousClock.now + .seconds(TestTimeScale.scaled(15))
            while ranking.record(for: black, port: port) == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            let record = try #require(ranking.record(for: black, port: port), "the background probe reported nothing")
            #expect(record.consecutiveFailures == 1)
            #expect(ranking.order([black, IPAddress("127.0.0.1")!], port: port) == [IPAddress("127.0.0.1")!, black])
            #expect(ranking.claimProbes([black], port: port).isEmpty, "probed within the minute: not again")
        }

        @Test("without a race, libcurl's own connections are learned: a refused first address goes last, the one that connected is timed")
        func learnsLibcurlConnections() async throws {
            let (client, ranking) = try client(["127.0.0.35", "127.0.0.1"])
            let response = try await client.execute(HTTPRequest(url: fixture.url("a.test")))
            #expect(response.connection.remoteAddress == "127.0.0.1")
            #expect(ranking.record(for: IPAddress("127.0.0.35")!, port: port)?.consecutiveFailures == 1)
            #expect(ranking.record(for: IPAddress("127.0.0.1")!, port: port)?.connectTime != nil)
            #expect(ranking.order([IPAddress("127.0.0.35")!, IPAddress("127.0.0.1")!], port: port).first == IPAddress("127.0.0.1")!)
        }

        @Test("probe prints each address's rank and why, and --json carries it: a refused address is last, failed once")
        func cliRank() async throws {
            let url = fixture.url("a.test").absoluteString
            let resolve = ["--resolve", "a.test:\(port):127.0.0.36,127.0.0.1", "--cacert", fixture.servers.caCertificate.path]
            let text = try await fixture.httpdns(["probe", url] + resolve)
            #expect(text.status == 1, "\(text.stdoutText)\(text.stderrText)")
            let lines = text.stdoutText.split(separator: "\n").map(String.init)
            let rank = try #require(lines.first { $0.hasPrefix("# rank (TCP connect to each): ") }, "\(text.stdoutText)")
            #expect(rank.contains("1. 127.0.0.1 connect "), "\(rank)")
            #expect(rank.contains("; 2. 127.0.0.36 failed once, last for "), "\(rank)")
            let json = try await fixture.httpdns(["probe", "--json", url] + resolve)
            let objects = try json.stdoutText.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
            #expect(objects.count == 2, "\(json.stdoutText)")
            for object in objects {
                let rank = try #require(object["rank"] as? [String: Any], "\(object)")
                if object["address"] as? String == "127.0.0.1" {
                    #expect(rank["position"] as? Int == 1)
                    #expect((rank["connect_ms"] as? Double ?? 0) > 0)
                    #expect(rank["failures"] as? Int == 0)
                } else {
                    #expect(rank["position"] as? Int == 2)
                    #expect(rank["failures"] as? Int == 1)
                    #expect((rank["back_off_s"] as? Double ?? 0) > 0)
                    #expect(rank["connect_ms"] is NSNull)
                }
            }
        }
    }
}
