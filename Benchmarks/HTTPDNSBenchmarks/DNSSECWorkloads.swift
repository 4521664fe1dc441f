// Issue 25, item 7: what DNSSEC validation costs: a cold validated lookup (queries, round trips on
// the critical path, CPU) beside an unvalidated one, and cached lookups with and without
// validation, against unbound serving the zones scripts/dnssec-zones.sh signs at server start.
import Foundation
import HTTPDNS
import TestSupport

enum DNSSECWorkloads {
    /// Runs both comparisons and prints them.
    static func run(servers: TestServers, ca: [Certificate], lookups: Int) async throws {
        let anchors = try anchors(servers)
        let client = try HTTPClient(configuration: .init(trust: .anchors(ca)), resolver: SystemResolver())
        let endpoint = DoHEndpoint(url: servers.dohURL, bootstrapAddresses: [IPAddress("127.0.0.1")!])
        print("== cold lookup of www.signed.dnssec.test (A and AAAA, a signed child of the anchor's zone), new resolver each time, warm HTTP/2 connection, 31 runs")
        for policy in [HostResolver.DNSSECSettings.Policy.off, .require] {
            let cold = try await coldLookups(client: client, endpoint: endpoint, anchors: anchors, policy: policy, runs: 31, delay: .zero)
            // 20 ms before each query, as a network's round trip: queries sent together overlap and
            // those that wait for an answer do not, which loopback's 0.3 ms under load cannot show.
            let far = try await coldLookups(client: client, endpoint: endpoint, anchors: anchors, policy: policy, runs: 11, delay: .milliseconds(20))
            print(
                String(
                    format: "   dnssec %@: %d queries; median %5.0f µs wall, %5.0f µs of CPU per lookup; with 20 ms per query: %d round trips, %3.0f ms",
                    policy.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0), cold.queries, cold.medianWall * 1e6, cold.cpu * 1e6, far.roundTrips,
                    far.medianWall * 1e3))
        }
        print("")
        print("== cached resolution of 2,000 validated wildcard names (hN.wild.signed.dnssec.test), 7 rounds (target < 500 ns)")
        // Workload 2's own figure in the same run, for the machine's load at the time; without HTTPS
        // records, which a validated name never carries.
        let baseline = try await ResolverWorkloads.cachedLookups(names: 10_000, lookups: lookups, tasks: 1, asksForServiceBindings: false)
        print(String(format: "   workload 2 (10,000 .example names, unvalidated): %5.0f ns per lookup, best round; %4.0f ns of CPU", baseline.wall, baseline.cpu))
        for policy in [HostResolver.DNSSECSettings.Policy.off, .require] {
            let cached = try await cachedLookups(client: client, endpoint: endpoint, anchors: anchors, policy: policy, names: 2_000, lookups: lookups)
            print(
                String(
                    format: "   dnssec %@: %5.0f ns per lookup, best round (median %5.0f); %4.0f ns of CPU per lookup",
                    policy.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0), cached.wall, cached.medianWall, cached.cpu))
        }
    }

    static func anchors(_ servers: TestServers) throws -> [TrustAnchor] {
        guard let file = servers.environment["DNSSEC_ANCHOR"] else { throw BenchmarkFailure("servers.env has no DNSSEC_ANCHOR") }
        return try TrustAnchor.parse(String(contentsOfFile: file, encoding: .utf8), source: file)
    }

    static func resolver(
        client: any DoHTransport, endpoint: DoHEndpoint, anchors: [TrustAnchor], policy: HostResolver.DNSSECSettings.Policy, capacity: Int = 1_000
    ) throws -> HostResolver {
        var configuration = HostResolver.Configuration(endpoints: [endpoint], requestTimeout: 10, fallbackToSystemResolver: false, cacheCapacity: capacity)
        configuration.dnssec = HostResolver.DNSSECSettings(policy: policy, trustAnchors: anchors)
        return try HostResolver(configuration: configuration, transport: client)
    }

    /// A cold lookup with a new resolver each run (nothing cached, the chain neither), over the one
    /// warm connection of `client`, each query sent `delay` late.
    static func coldLookups(
        client: any DoHTransport, endpoint: DoHEndpoint, anchors: [TrustAnchor], policy: HostResolver.DNSSECSettings.Policy, runs: Int, delay: Duration
    ) async throws -> (queries: Int, roundTrips: Int, medianWall: Double, cpu: Double) {
        _ = try await resolver(client: client, endpoint: endpoint, anchors: anchors, policy: .off).resolve(host: "www.signed.dnssec.test", port: 443)
        var walls: [Double] = []
        var cpus: [Double] = []
        var queries = 0
        var roundTrips = 0
        for _ in 0..<runs {
            let timing = TimingDoHTransport(client, delay: delay)
            let resolver = try resolver(client: timing, endpoint: endpoint, anchors: anchors, policy: policy)
            let cpuStart = ResolverWorkloads.processCPUNanoseconds()
            let start = DispatchTime.now().uptimeNanoseconds
            let resolution = try await resolver.resolve(host: "www.signed.dnssec.test", port: 443)
            walls.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            cpus.append(Double(ResolverWorkloads.processCPUNanoseconds() - cpuStart) / 1e9)
            guard resolution.dnssec == (policy == .off ? nil : .secure) else { throw BenchmarkFailure("unexpected outcome \(String(describing: resolution.dnssec))") }
            queries = timing.spans.count
            roundTrips = timing.spans.roundTrips
        }
        return (queries, roundTrips, ColdStart.median(walls), ColdStart.median(cpus))
    }

    /// Cached lookups as `ResolverWorkloads.cachedLookups` makes them (one task), of names answered
    /// by unbound's signed wildcard, validated or not.
    static func cachedLookups(
        client: any DoHTransport, endpoint: DoHEndpoint, anchors: [TrustAnchor], policy: HostResolver.DNSSECSettings.Policy, names: Int, lookups: Int,
        rounds: Int = 7
    ) async throws -> (wall: Double, medianWall: Double, cpu: Double) {
        let resolver = try resolver(client: client, endpoint: endpoint, anchors: anchors, policy: policy, capacity: names * 2)
        let hosts = (0..<names).map { "h\($0).wild.signed.dnssec.test" }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<16 {
                group.addTask {
                    for index in stride(from: lane, to: names, by: 16) { _ = try await resolver.resolve(host: hosts[index], port: 443) }
                }
            }
            try await group.waitForAll()
        }
        var walls: [Double] = []
        var cpus: [Double] = []
        for _ in 0..<rounds {
            let cpuStart = ResolverWorkloads.processCPUNanoseconds()
            let start = DispatchTime.now().uptimeNanoseconds
            var index = 0
            for _ in 0..<lookups {
                let resolution = try await resolver.resolve(host: hosts[index], port: 443)
                precondition(resolution.source == .cache && (policy == .off || resolution.dnssec == .secure))
                index = index + 1 == names ? 0 : index + 1
            }
            walls.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(lookups))
            cpus.append(Double(ResolverWorkloads.processCPUNanoseconds() - cpuStart) / Double(lookups))
        }
        return (walls.min()!, ColdStart.median(walls), cpus.min()!)
    }
}
