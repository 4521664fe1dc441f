// Issue 20: the SQLite cache file's cost: lookups that store answers, loading at start, and hits.
import Foundation
import HTTPDNS

enum CacheFileWorkloads {
    /// Runs the three and prints each beside its target.
    static func run(lookups: Int) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-bench-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        print("== 1,000 distinct names resolved one after another (in-process DoH answers), with and without --cache-file, 7 rounds (target 1.2x)")
        var without: [(wall: Double, cpu: Double, lookups: Double)] = []
        var with: [(wall: Double, cpu: Double, lookups: Double)] = []
        for round in 0..<7 {
            without.append(try await distinctNames(1_000, file: nil, prefix: "r\(round)"))
            with.append(try await distinctNames(1_000, file: directory.appendingPathComponent("distinct-\(round).sqlite"), prefix: "r\(round)"))
            try await waitForTheStoreToClose()
        }
        for (label, runs) in [("without a cache file:", without), ("with a cache file:   ", with)] {
            print(
                String(
                    format: "   %@ median %6.2f ms (best %6.2f); CPU of the process, writer included: median %6.2f ms (least %6.2f)",
                    label, ColdStart.median(runs.map(\.wall)) * 1e3, runs.map(\.wall).min()! * 1e3,
                    ColdStart.median(runs.map(\.cpu)) * 1e3, runs.map(\.cpu).min()! * 1e3))
        }
        print(
            String(
                format: "   lookups alone (the writer still at work): median %6.2f ms without, %6.2f ms with   (%.2fx)",
                ColdStart.median(without.map(\.lookups)) * 1e3, ColdStart.median(with.map(\.lookups)) * 1e3,
                ColdStart.median(with.map(\.lookups)) / ColdStart.median(without.map(\.lookups))))
        print(
            String(
                format: "   until the rows are on disk: %.2fx wall (medians), %.2fx wall (bests), %.2fx CPU (medians)",
                ColdStart.median(with.map(\.wall)) / ColdStart.median(without.map(\.wall)), with.map(\.wall).min()! / without.map(\.wall).min()!,
                ColdStart.median(with.map(\.cpu)) / ColdStart.median(without.map(\.cpu))))
        print("")

        print("== 100,000 names in the cache file loaded when a resolver is made, 5 rounds (target < 1 s)")
        let big = directory.appendingPathComponent("big.sqlite")
        try await fill(big, names: 100_000)
        var loads: [Double] = []
        for _ in 0..<5 {
            let start = DispatchTime.now().uptimeNanoseconds
            let resolver = try HostResolver(configuration: configuration(file: big, capacity: 100_000), transport: ResolverWorkloads.FixedTransport())
            loads.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            precondition(resolver.cachedCount == 100_000, "loaded \(resolver.cachedCount)")
        }
        print(String(format: "   median %6.0f ms, best %6.0f ms", ColdStart.median(loads) * 1e3, loads.min()! * 1e3))
        print("")

        print("== cached resolution with a cache file configured, 10,000 names, 1 task (target < 500 ns, as without)")
        let perLookup = try await ResolverWorkloads.cachedLookups(
            names: 10_000, lookups: lookups, tasks: 1,
            file: directory.appendingPathComponent("hits.sqlite"))
        print(String(format: "   %5.0f ns per lookup, best round (median %5.0f); %4.0f ns of CPU per lookup", perLookup.wall, perLookup.medianWall, perLookup.cpu))
    }

    /// The cache file `fill` writes and `immediate` reads.
    static let hitsFile = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-bench-hits.sqlite")

    /// One workload alone, for a profiler: `cached` (`lookups` hits, 1 task, one round; `cached-off`
    /// without HTTPS records), `distinct`
    /// or `distinct-file` (1,000 new names without or with a new cache file, `rounds` times);
    /// `fill` writes 10,000 names to `hitsFile` for `profileImmediate`.
    static func profile(_ workload: String, lookups: Int, rounds: Int) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-bench-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        switch workload {
        case "fill":
            let hosts = (0..<10_000).map { "host\($0).example" }
            try? FileManager.default.removeItem(at: hitsFile)
            let resolver = try HostResolver(configuration: configuration(file: hitsFile, capacity: 20_000), transport: ResolverWorkloads.FixedTransport())
            for host in hosts { _ = try await resolver.resolve(host: host, port: 443) }
            resolver.savePersistentCache()
            print("wrote \(hosts.count) names to \(hitsFile.path)")
        case "cached", "cached-off":
            let perLookup = try await ResolverWorkloads.cachedLookups(
                names: 10_000, lookups: lookups, tasks: 1, rounds: 1, asksForServiceBindings: workload == "cached")
            print(String(format: "cached resolution: %.0f ns per lookup, %.0f ns of CPU", perLookup.wall, perLookup.cpu))
        default:
            for round in 0..<rounds {
                let file = workload == "distinct-file" ? directory.appendingPathComponent("distinct-\(round).sqlite") : nil
                let run = try await distinctNames(1_000, file: file, prefix: "p\(round)")
                print(String(format: "1,000 distinct names: %.2f ms, %.2f ms of CPU", run.wall * 1e3, run.cpu * 1e3))
                try await waitForTheStoreToClose()
            }
        }
    }

    /// `lookups` hits through `resolveImmediately` on the calling thread, from the names `fill` wrote.
    /// Synchronous, and to be called before anything is awaited: it then starts no task and no
    /// dispatch thread, so it runs under valgrind, whose 3.19 stops at libdispatch's worker threads.
    static func profileImmediate(lookups: Int) throws {
        let hosts = (0..<10_000).map { "host\($0).example" }
        let resolver = try HostResolver(configuration: configuration(file: hitsFile, capacity: 20_000), transport: ResolverWorkloads.FixedTransport())
        precondition(resolver.cachedCount == hosts.count, "run --profile-resolver fill first (\(resolver.cachedCount) names loaded)")
        let cpu = ResolverWorkloads.processCPUNanoseconds()
        var index = 0
        for _ in 0..<lookups {
            let resolution = try resolver.resolveImmediately(host: hosts[index], port: 443)
            precondition(resolution?.source == .cache)
            index = index + 1 == hosts.count ? 0 : index + 1
        }
        print(String(format: "resolveImmediately hits: %.0f ns of CPU per lookup", Double(ResolverWorkloads.processCPUNanoseconds() - cpu) / Double(lookups)))
    }

    static func configuration(file: URL?, capacity: Int) -> HostResolver.Configuration {
        let endpoint = DoHEndpoint(url: URL(string: "https://dns.test/dns-query")!, bootstrapAddresses: [IPAddress("127.0.0.1")!], method: .post)
        var configuration = HostResolver.Configuration(endpoints: [endpoint], families: .ipv4, cacheCapacity: capacity)
        configuration.persistentCacheFile = file
        return configuration
    }

    /// Seconds (elapsed, and the process's CPU) to resolve `count` new names one after another, and
    /// (with a file) to have them written.
    /// `lookups`: elapsed seconds until the last lookup returned (the writer may still be writing).
    static func distinctNames(_ count: Int, file: URL?, prefix: String) async throws -> (wall: Double, cpu: Double, lookups: Double) {
        let resolver = try HostResolver(configuration: configuration(file: file, capacity: count * 2), transport: ResolverWorkloads.FixedTransport())
        let hosts = (0..<count).map { "\(prefix)-host\($0).example" }
        let cpu = ResolverWorkloads.processCPUNanoseconds()
        let start = DispatchTime.now().uptimeNanoseconds
        for host in hosts { _ = try await resolver.resolve(host: host, port: 443) }
        let lookups = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        resolver.savePersistentCache()
        return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, Double(ResolverWorkloads.processCPUNanoseconds() - cpu) / 1e9, lookups)
    }

    /// Lets the cache file of the resolver just released close (its writer holds it until its last
    /// scheduled write, within 50 ms; closing checkpoints the WAL into the file and syncs it), so that
    /// the next round does not pay for it.
    static func waitForTheStoreToClose() async throws {
        try await Task.sleep(for: .milliseconds(200))
    }

    /// A cache file holding `names` rows.
    static func fill(_ file: URL, names: Int) async throws {
        let resolver = try HostResolver(configuration: configuration(file: file, capacity: names), transport: ResolverWorkloads.FixedTransport())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<4 {
                group.addTask {
                    for index in stride(from: lane, to: names, by: 4) { _ = try await resolver.resolve(host: "big\(index).example", port: 443) }
                }
            }
            try await group.waitForAll()
        }
        resolver.savePersistentCache()
    }
}
