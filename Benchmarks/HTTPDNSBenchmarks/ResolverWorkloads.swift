// Issue 6, workloads 2-4: the resolver's speed (cached lookups, DoH lookups against the local unbound,
// a cold `httpdns fetch` through DoH), each beside its peer measured in the same run.
import Foundation
import HTTPDNS
import TestSupport
#if canImport(Glibc)
    import Glibc
#endif

enum ResolverWorkloads {
    /// Runs workloads 2, 3 and 4 and prints each figure beside its peer's, with the ratio.
    static func run(servers: TestServers, ca: [Certificate], lookups: Int) async throws {
        try await runCachedLookups(lookups: lookups)
        print("")

        try await CacheFileWorkloads.run(lookups: lookups)
        print("")

        let python = try DoHPeer.python()
        for width in [1, 16] {
            print("== DoH lookups of a.test (A, GET for both clients) against the local unbound, warm HTTP/2 connection, \(width) in flight (target 2x)")
            let count = width == 1 ? 1_000 : 4_000
            let peer = try DoHPeer.lookupsPerSecond(python: python, servers: servers, count: count, width: width)
            let ours = try await dohLookups(servers: servers, ca: ca, count: count, width: width)
            print(String(format: "   dnspython 2.8 + httpx/h2:    %8.0f lookups/s", peer))
            print(String(format: "   httpdns DoHClient:           %8.0f lookups/s   (%.2fx)", ours, ours / peer))
            print("")
        }

        print("== cold start: one fetch of https://a.test/ through DoH in a fresh process, 15 runs each, interleaved (target 1.3x)")
        let cold = try ColdStart.measure(servers: servers, runs: 15)
        print(String(format: "   curl --doh-url:              median %6.1f ms, fastest %6.1f ms", cold.curl.median * 1e3, cold.curl.fastest * 1e3))
        print(
            String(
                format: "   httpdns fetch --doh-url:     median %6.1f ms, fastest %6.1f ms   (%.2fx curl's median, %.2fx its fastest)",
                cold.ours.median * 1e3, cold.ours.fastest * 1e3, cold.ours.median / cold.curl.median, cold.ours.fastest / cold.curl.fastest))
    }

    // MARK: - Workload 2

    /// Workload 2: cached lookups by 1 and 2 tasks, with HTTPS records asked (the default) and not,
    /// of 10,000 names (more than the CPU caches hold: each hit reads its entry from memory) and of 100.
    static func runCachedLookups(lookups: Int) async throws {
        for names in [10_000, 100] {
            print("== cached resolution through HostResolver.resolve(host:port:), \(names == 100 ? "100" : "10,000") names cached, 7 rounds (target < 500 ns)")
            // Records on is the default; off is the peer, so the cost of carrying them reads in one run.
            for records in [true, false] {
                for tasks in [1, 2] {
                    let perLookup = try await cachedLookups(names: names, lookups: lookups, tasks: tasks, asksForServiceBindings: records)
                    print(
                        String(
                            format: "   %d task%@, HTTPS records %@: %5.0f ns per lookup on each, best round (median %5.0f); %4.0f ns of CPU per lookup   (%.1f M lookups/s in all)",
                            tasks, tasks == 1 ? " " : "s", records ? "on " : "off", perLookup.wall, perLookup.medianWall, perLookup.cpu, Double(tasks) * 1e3 / perLookup.wall))
                }
            }
        }
    }

    /// A transport that answers every DoH query (POST: the endpoint below asks for it) with one A
    /// record, and an HTTPS query with one ServiceMode record (h2, an IPv4 hint), so the cache can
    /// be filled.
    struct FixedTransport: DoHTransport {
        static let serviceBinding = ServiceBinding(
            priority: 1, targetName: "", parameters: ServiceParameters(alpnProtocols: ["h2"], ipv4Hints: [IPAddress("192.0.2.1")!]))

        func send(
            url: URL, method: String, headers: [(String, String)], body: Data?, connectTo: [IPAddress],
            timeout: TimeInterval, maxResponseBytes: Int
        ) async throws -> DoHHTTPResponse {
            var query = try DNSMessage(parsing: body ?? Data())
            query.isResponse = true
            if let question = query.questions.first, question.type == .a {
                query.answers = [DNSResourceRecord(name: question.name, type: .a, ttl: 3600, data: .a(IPAddress("192.0.2.1")!))]
            } else if let question = query.questions.first, question.type == .https {
                query.answers = [DNSResourceRecord(name: question.name, type: .https, ttl: 3600, data: .serviceBinding(Self.serviceBinding))]
            }
            return DoHHTTPResponse(status: 200, contentType: "application/dns-message", body: Data(try query.encoded()))
        }
    }

    /// Nanoseconds per cached lookup through the public API, with `names` names cached and `tasks`
    /// tasks looking up at once (`lookups` each per round, every name in turn from a different start).
    /// The machine is shared, so each round is timed apart and the best and the median are kept: the
    /// best is the one least disturbed by other processes.
    /// - Returns: `wall`: elapsed time over the lookups of one task (each task's latency per lookup);
    ///   `cpu`: the process's CPU time over all lookups, which other load on the machine moves less.
    /// - Parameter file: A cache file to configure (the hits must not touch it).
    /// - Parameter asksForServiceBindings: `HostResolver.Configuration.asksForServiceBindings`; with it
    ///   on every hit must carry the name's HTTPS record.
    static func cachedLookups(
        names: Int, lookups: Int, tasks: Int, rounds: Int = 7, file: URL? = nil, asksForServiceBindings: Bool = true
    ) async throws -> (wall: Double, medianWall: Double, cpu: Double) {
        var configuration = CacheFileWorkloads.configuration(file: file, capacity: names * 2)
        configuration.asksForServiceBindings = asksForServiceBindings
        configuration.serviceBindingWait = nil
        let resolver = try HostResolver(configuration: configuration, transport: FixedTransport())
        let hosts = (0..<names).map { "host\($0).example" }
        for host in hosts { _ = try await resolver.resolve(host: host, port: 443) }
        // The first hit of each name finds the records in the HTTPS cache and puts them in its entry.
        for host in hosts {
            let hit = try await resolver.resolve(host: host, port: 443)
            precondition(!asksForServiceBindings || hit.serviceBindings == [FixedTransport.serviceBinding])
        }
        var walls: [Double] = []
        var cpus: [Double] = []
        for _ in 0..<rounds {
            let cpuStart = processCPUNanoseconds()
            let start = DispatchTime.now().uptimeNanoseconds
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        var index = task * names / max(tasks, 1)
                        for _ in 0..<lookups {
                            let resolution = try await resolver.resolve(host: hosts[index], port: 443)
                            precondition(resolution.source == .cache && resolution.serviceBindings.isEmpty != asksForServiceBindings)
                            index = index + 1 == names ? 0 : index + 1
                        }
                    }
                }
                try await group.waitForAll()
            }
            walls.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(lookups))
            cpus.append(Double(processCPUNanoseconds() - cpuStart) / Double(lookups * tasks))
        }
        return (walls.min()!, ColdStart.median(walls), cpus.min()!)
    }

    /// User and system CPU time of this process so far, in nanoseconds.
    static func processCPUNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    // MARK: - Workload 3

    /// DoH lookups per second through `DoHClient` over the library's HTTP client, one warm HTTP/2
    /// connection, `width` lookups in flight.
    static func dohLookups(servers: TestServers, ca: [Certificate], count: Int, width: Int) async throws -> Double {
        let client = try HTTPClient(configuration: .init(trust: .anchors(ca)), resolver: SystemResolver())
        let doh = DoHClient(transport: client)
        let endpoint = DoHEndpoint(url: servers.dohURL, bootstrapAddresses: [IPAddress("127.0.0.1")!])
        @Sendable func lookup() async throws {
            let answer = try await doh.lookup("a.test", families: .ipv4, endpoint: endpoint, timeout: 10)
            guard case .addresses(let addresses, _) = answer, !addresses.isEmpty else {
                throw BenchmarkFailure("unexpected DoH answer for a.test: \(answer)")
            }
        }
        try await lookup() // warm the connection
        return try await Lanes.perSecond(count: count, width: width, lookup)
    }
}

/// The dnspython peer (scripts/doh-bench-peer.py) in a private venv (scripts/install-bench-deps.sh).
enum DoHPeer {
    /// The venv's python, installing dnspython, httpx and h2 into it first if needed.
    static func python() throws -> URL {
        let result = try Command.run(PackagePaths.scripts.appendingPathComponent("install-bench-deps.sh"), [], timeout: 600)
        guard result.status == 0, let path = result.stdoutText.split(separator: "\n").last else {
            throw BenchmarkFailure("scripts/install-bench-deps.sh failed: \(result.stderrText)")
        }
        return URL(fileURLWithPath: String(path))
    }

    static func lookupsPerSecond(python: URL, servers: TestServers, count: Int, width: Int) throws -> Double {
        let script = PackagePaths.scripts.appendingPathComponent("doh-bench-peer.py").path
        let result = try Command.run(
            python,
            [
                script, servers.dohURL.absoluteString, "127.0.0.1", servers.caCertificate.path,
                "a.test", String(count), String(width), "60", "--get"
            ], timeout: 120)
        guard result.status == 0, let rate = Double(result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw BenchmarkFailure("doh-bench-peer.py failed: \(result.stderrText)")
        }
        return rate
    }
}

/// Workload 4: wall time of a fresh `httpdns fetch` through DoH against `curl --doh-url`.
enum ColdStart {
    /// Median and fastest wall time, in seconds, of `runs` runs of each, alternating.
    static func measure(servers: TestServers, runs: Int) throws -> (ours: (median: Double, fastest: Double), curl: (median: Double, fastest: Double)) {
        let httpdns = PackagePaths.builtProduct("httpdns")
        guard FileManager.default.isExecutableFile(atPath: httpdns.path) else {
            throw BenchmarkFailure("no httpdns next to httpdns-bench: build every product first (swift build -c release)")
        }
        let curl = URL(fileURLWithPath: "/usr/bin/curl")
        let common = [
            "--doh-url", servers.dohURL.absoluteString, "--resolve", "dns.test:\(servers.dohPort):127.0.0.1",
            "--cacert", servers.caCertificate.path, "-s", "-o", "/dev/null", servers.httpsURL("a.test").absoluteString
        ]
        let oursArguments = ["fetch"] + common
        // A first run of each checks that it works (and warms the page cache for both).
        for (program, arguments) in [(httpdns, oursArguments), (curl, common)] {
            let result = try Command.run(program, arguments, timeout: 30)
            guard result.status == 0 else {
                throw BenchmarkFailure("\(program.lastPathComponent) \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderrText)")
            }
        }
        var ours: [Double] = []
        var theirs: [Double] = []
        for _ in 0..<runs {
            theirs.append(try wallTime(curl, common))
            ours.append(try wallTime(httpdns, oursArguments))
        }
        return ((median(ours), ours.min()!), (median(theirs), theirs.min()!))
    }

    /// Seconds from spawning `program` to reaping it (posix_spawn, output to /dev/null), so nothing of
    /// Foundation's `Process` machinery is counted.
    static func wallTime(_ program: URL, _ arguments: [String]) throws -> Double {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([program.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        let spawned = posix_spawn(&pid, program.path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw BenchmarkFailure("cannot start \(program.path): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        guard status == 0 else { throw BenchmarkFailure("\(program.lastPathComponent) exited with wait status \(status)") }
        return seconds
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}

/// A benchmark that cannot produce its figure, with the reason.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
