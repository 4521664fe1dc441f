// httpdns-bench: figures measured side by side in one run against the same real local servers the
// tests use (scripts/test-servers.sh). The machine is shared and noisy, so compare the ratios printed
// for each run rather than absolute numbers across runs.
//
//   swift build -c release && .build/release/httpdns-bench [--requests N] [--rounds R] [--memory-requests N]
//       [--memory-version h1|h2] [--no-urlsession] [--no-memory] [--lookups N]
//   ... --memory-only | --resolver-only | --cache-only | --dnssec-only: one group of workloads alone
//   ... --profile[-raw] h1|h2 | --profile[-raw]-concurrent h1|h2 [--on-executor] [--requests N]: one loop alone,
//       for perf record or valgrind (HTTPDNS_TEST_SERVERS_DIR: servers started beforehand; scripts/bench-instructions.sh)
//   ... --busy-core | --busy-core-cpu N: every keep-alive comparison again beside a spinning process
//   ... --profile-resolver cached|distinct|distinct-file|fill|immediate [--lookups N] [--rounds R]: one resolver
//       workload alone, for perf record (immediate, after fill: for valgrind --tool=callgrind)
import Foundation
import Synchronization
import HTTPDNS
import TestSupport
internal import CCurl
internal import CHTTPDNSShims

@main
struct Benchmarks {
    static func main() async throws {
        let arguments = CommandLine.arguments
        if arguments.contains(URLSessionPeer.childFlag) { return try await URLSessionPeer.runChild(arguments) }
        if arguments.contains(BusyLoop.childFlag) { BusyLoop.runChild(arguments) }
        if let problem = Usage.check(Array(arguments.dropFirst())) {
            if problem.isEmpty { print(Usage.text); return }
            FileHandle.standardError.write(Data("httpdns-bench: \(problem)\n\n\(Usage.text)\n".utf8))
            exit(2)
        }
        func flag(_ name: String) -> String? { arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil } }
        let requests = flag("--requests").flatMap(Int.init) ?? 2_000
        let rounds = flag("--rounds").flatMap(Int.init) ?? 3
        let lookups = flag("--lookups").flatMap(Int.init) ?? 300_000
        // --profile-resolver WORKLOAD: one resolver workload alone, no servers.
        if flag("--profile-resolver") == "immediate" {
            // Before anything is awaited: an await would hop to a dispatch worker thread.
            return try CacheFileWorkloads.profileImmediate(lookups: lookups)
        }
        if let workload = flag("--profile-resolver") {
            try await CacheFileWorkloads.profile(workload, lookups: lookups, rounds: rounds)
            return
        }
        // --cache-only: the cached lookups alone (ResolverWorkloads.swift). They need no server, so
        // none is started and the run is shorter.
        if arguments.contains("--cache-only") {
            try await ResolverWorkloads.runCachedLookups(lookups: lookups)
            print("")
            try await CacheFileWorkloads.run(lookups: lookups)
            return
        }
        let servers = try TestServers.shared()
        let ca = try Certificate.certificates(contentsOf: servers.caCertificate)
        // --profile-concurrent VERSION [--on-executor]: only this library's 16-concurrent workload, for perf record.
        if let value = flag("--profile-concurrent") {
            let version: HTTPVersionPreference = value == "h2" ? .http2 : .http1_1
            let cpu = ResolverWorkloads.processCPUNanoseconds()
            let rate = try await Ours.concurrent(
                servers: servers, ca: ca, count: requests, width: 16, version: version,
                onExecutor: arguments.contains("--on-executor"))
            print(
                String(
                    format: "httpdns HTTPClient 16 concurrent: %.0f req/s, %.1f µs of CPU per request, %d new connections",
                    rate, Double(ResolverWorkloads.processCPUNanoseconds() - cpu) / 1e3 / Double(requests), Ours.opened.load(ordering: .relaxed)))
            return
        }
        // --profile-raw-concurrent VERSION: the raw libcurl peer of that workload alone.
        if let value = flag("--profile-raw-concurrent") {
            let cpu = ResolverWorkloads.processCPUNanoseconds()
            let rate = try RawCurl.concurrent(servers: servers, count: requests, width: 16, http2: value == "h2")
            print(String(format: "raw libcurl multi 16 concurrent: %.0f req/s, %.1f µs of CPU per request", rate, Double(ResolverWorkloads.processCPUNanoseconds() - cpu) / 1e3 / Double(requests)))
            return
        }
        // --profile-raw VERSION: the reused blocking easy handle's sequential loop alone.
        if let value = flag("--profile-raw") {
            let cpu = ResolverWorkloads.processCPUNanoseconds()
            let rate = RawCurl.sequential(servers: servers, count: requests, http2: value == "h2")
            print(
                String(format: "reused blocking easy handle sequential: %.0f req/s, %.1f µs of CPU per request", rate, Double(ResolverWorkloads.processCPUNanoseconds() - cpu) / 1e3 / Double(requests))
            )
            return
        }
        // --profile VERSION [--on-executor]: only this library's sequential workload, for perf record.
        if let value = flag("--profile") {
            let version: HTTPVersionPreference = value == "h2" ? .http2 : .http1_1
            let cpu = ResolverWorkloads.processCPUNanoseconds()
            let rate = try await Ours.sequential(
                servers: servers, ca: ca, count: requests, version: version,
                onExecutor: arguments.contains("--on-executor"))
            print(String(format: "httpdns HTTPClient sequential: %.0f req/s, %.1f µs of CPU per request", rate, Double(ResolverWorkloads.processCPUNanoseconds() - cpu) / 1e3 / Double(requests)))
            return
        }
        print("httpdns-bench: \(requests) requests per workload; nginx https://a.test:\(servers.httpsPort), 2 cores shared")
        print("")
        // --memory-only [--memory-requests N]: only workload 5.
        let memoryRequests = flag("--memory-requests").flatMap(Int.init) ?? 100_000
        let memoryVersion: HTTPVersionPreference = flag("--memory-version") == "h1" ? .http1_1 : .http2
        if arguments.contains("--memory-only") {
            let report = try await MemoryWorkload.run(servers: servers, ca: ca, total: memoryRequests, checkpoint: min(10_000, memoryRequests / 10), width: 16, version: memoryVersion)
            MemoryWorkload.print(report, version: memoryVersion)
            return
        }
        // --dnssec-only: validated lookups beside unvalidated ones (DNSSECWorkloads.swift).
        if arguments.contains("--dnssec-only") {
            try await DNSSECWorkloads.run(servers: servers, ca: ca, lookups: lookups)
            return
        }
        // --resolver-only: workloads 2-4 (ResolverWorkloads.swift), and the DNSSEC ones.
        if arguments.contains("--resolver-only") {
            try await ResolverWorkloads.run(servers: servers, ca: ca, lookups: lookups)
            print("")
            try await DNSSECWorkloads.run(servers: servers, ca: ca, lookups: lookups)
            return
        }

        // --keep-alive-only: the sequential and 16-concurrent comparisons alone.
        let keepAliveOnly = arguments.contains("--keep-alive-only")
        if !keepAliveOnly {
            print("== cold start: 16 concurrent HTTP/2 requests on an empty pool (raw libcurl multi)")
            for pipewait in [false, true] {
                let connections = RawCurl.coldStartConnections(servers: servers, count: 16, pipewait: pipewait)
                print("   CURLOPT_PIPEWAIT=\(pipewait ? 1 : 0): \(connections) connections opened")
            }
            print("")

            print("== cold start: 50 concurrent HTTP/1.1 requests, each on a new TLS connection")
            let coldOurs = try await Ours.coldConnections(servers: servers, ca: ca, count: 50)
            let coldCurl = try CurlCLI.parallel(servers: servers, count: 50, width: 50, http2: false)
            print(String(format: "   curl --parallel-max 50:      %8.3f s", 50 / coldCurl))
            print(String(format: "   httpdns HTTPClient:          %8.3f s   (%.2fx curl's time)", coldOurs, coldOurs / (50 / coldCurl)))
            print("")
        }

        // --busy-core: every keep-alive comparison again beside a spinning process (BusyLoop.swift).
        let busyCPU = flag("--busy-core-cpu").flatMap(Int.init)
        var table = KeepAliveTable(busyLoop: arguments.contains("--busy-core") || busyCPU != nil ? BusyLoop(cpu: busyCPU) : nil)
        if let busyLoop = table.busyLoop { print("busy core: each keep-alive comparison is measured idle, then beside \(busyLoop.description)\n") }
        for version in [HTTPVersionPreference.http1_1, .http2] {
            let name = version == .http2 ? "HTTP/2" : "HTTP/1.1"
            print("== sequential requests, 1 in flight, keep-alive, \(name)")
            let blocking = "reused blocking easy handle"
            let sequential = try await table.compare(
                workload: "sequential, \(name)", caller: "global executor", peer: blocking, rounds: rounds, count: requests / rounds,
                peer: { RawCurl.sequential(servers: servers, count: requests / rounds, http2: version == .http2) },
                ours: { try await Ours.sequential(servers: servers, ca: ca, count: requests / rounds, version: version) })
            let ours = sequential.idle.ours
            print(String(format: "   reused blocking easy handle: %8.0f req/s   %5.0f µs CPU per request", sequential.idle.peer, sequential.idle.peerCPU))
            print(String(format: "   httpdns HTTPClient:          %8.0f req/s   %5.0f µs CPU per request   (%.2fx, median of %d rounds)", ours, sequential.idle.oursCPU, sequential.idle.ratio, rounds))
            if let busy = sequential.busy { print(KeepAliveTable.busyLine(busy)) }
            let onLoop = try await table.compare(
                workload: "sequential, \(name)", caller: "`client.executor`", peer: blocking, rounds: rounds, count: requests / rounds,
                peer: { RawCurl.sequential(servers: servers, count: requests / rounds, http2: version == .http2) },
                ours: { try await Ours.sequential(servers: servers, ca: ca, count: requests / rounds, version: version, onExecutor: true) })
            print(String(format: "   reused blocking easy handle: %8.0f req/s   %5.0f µs CPU per request", onLoop.idle.peer, onLoop.idle.peerCPU))
            print(
                String(
                    format: "   httpdns, caller on executor: %8.0f req/s   %5.0f µs CPU per request   (%.2fx, median of %d rounds)", onLoop.idle.ours, onLoop.idle.oursCPU, onLoop.idle.ratio, rounds))
            if let busy = onLoop.busy { print(KeepAliveTable.busyLine(busy)) }
            if !arguments.contains("--no-urlsession") {
                let peer = try URLSessionPeer.measure(servers: servers, count: requests, width: 1)
                print(String(format: "   URLSession:                  %8.0f req/s   (httpdns is %.2fx)", peer.rate, ours / peer.rate) + "; nginx logged \"\(peer.requestLine)\"")
            }
            print("")
            print("== 16 concurrent, \(name)")
            let workload = "16 concurrent, \(name)"
            let concurrent = try await table.compare(
                workload: workload, caller: "global executor", peer: "`curl --parallel-max 16`", rounds: rounds, count: requests * 2,
                peer: { try CurlCLI.parallel(servers: servers, count: requests * 2, width: 16, http2: version == .http2) },
                ours: { try await Ours.concurrent(servers: servers, ca: ca, count: requests * 2, width: 16, version: version) })
            let oursConcurrent = concurrent.idle.ours
            let opened = Ours.opened.exchange(0, ordering: .relaxed)
            print(String(format: "   curl --parallel-max 16:      %8.0f req/s   %5.0f µs CPU per request", concurrent.idle.peer, concurrent.idle.peerCPU))
            print(
                String(
                    format: "   httpdns HTTPClient:          %8.0f req/s   %5.0f µs CPU per request   (%.2fx, median of %d rounds), %d new connections", oursConcurrent, concurrent.idle.oursCPU,
                    concurrent.idle.ratio, rounds, opened))
            if let busy = concurrent.busy { print(KeepAliveTable.busyLine(busy)) }
            // The ceiling for anything built on libcurl, measured beside the two.
            let rawMulti = "raw libcurl multi, 16 reused easy handles"
            let ceiling = try await table.compare(
                workload: workload, caller: "global executor", peer: rawMulti, rounds: rounds, count: requests * 2,
                peer: { try RawCurl.concurrent(servers: servers, count: requests * 2, width: 16, http2: version == .http2) },
                ours: { try await Ours.concurrent(servers: servers, ca: ca, count: requests * 2, width: 16, version: version) })
            print(
                String(
                    format: "   libcurl multi, 16 reused easy handles, one thread (no API): %8.0f req/s   %5.0f µs CPU per request = %.2fx curl --parallel; httpdns is %.2fx of it",
                    ceiling.idle.peer, ceiling.idle.peerCPU, ceiling.idle.peer / concurrent.idle.peer, ceiling.idle.ratio))
            if let busy = ceiling.busy { print(KeepAliveTable.busyLine(busy)) }
            let concurrentOnLoop = try await table.compare(
                workload: workload, caller: "`client.executor`", peer: rawMulti, rounds: rounds, count: requests * 2,
                peer: { try RawCurl.concurrent(servers: servers, count: requests * 2, width: 16, http2: version == .http2) },
                ours: { try await Ours.concurrent(servers: servers, ca: ca, count: requests * 2, width: 16, version: version, onExecutor: true) })
            _ = Ours.opened.exchange(0, ordering: .relaxed)
            print(
                String(
                    format: "   httpdns, callers on executor: %8.0f req/s   %5.0f µs CPU per request = %.2fx curl --parallel; %.2fx the raw multi's rate (%.0f µs CPU there)",
                    concurrentOnLoop.idle.ours, concurrentOnLoop.idle.oursCPU, concurrentOnLoop.idle.ours / concurrent.idle.peer, concurrentOnLoop.idle.ratio, concurrentOnLoop.idle.peerCPU))
            if let busy = concurrentOnLoop.busy { print(KeepAliveTable.busyLine(busy)) }
            if !arguments.contains("--no-urlsession") {
                // URLSession picks the version itself (HTTP/2 by ALPN): the line nginx logged shows which.
                let peer = try URLSessionPeer.measure(servers: servers, count: requests, width: 16)
                print(
                    String(format: "   URLSession:                  %8.0f req/s   (httpdns is %.2fx)", peer.rate, oursConcurrent / peer.rate)
                        + "; nginx logged \"\(peer.requestLine)\"; \(peer.verification)")
            }
            print("")
        }
        print("== keep-alive ratios (this library against each peer; CPU per request: this library's against the peer's)")
        print(table.markdown())
        print("")
        if keepAliveOnly { return }

        if !arguments.contains("--no-memory") {
            let report = try await MemoryWorkload.run(servers: servers, ca: ca, total: memoryRequests, checkpoint: min(10_000, memoryRequests / 10), width: 16, version: memoryVersion)
            MemoryWorkload.print(report, version: memoryVersion)
        }

        try await ResolverWorkloads.run(servers: servers, ca: ca, lookups: lookups)
    }
}

/// The peers built straight on libcurl.
enum RawCurl {
    static func configure(_ easy: UnsafeMutableRawPointer, servers: TestServers, http2: Bool) {
        _ = servers.httpsURL("a.test").absoluteString.withCString { httpdns_easy_setopt_ptr(easy, CURLOPT_URL, $0) }
        _ = servers.caCertificate.path.withCString { httpdns_easy_setopt_ptr(easy, CURLOPT_CAINFO, $0) }
        _ = httpdns_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, http2 ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1)
        _ = httpdns_easy_setopt_write_function(easy, CURLOPT_WRITEFUNCTION, { _, size, count, _ in size * count })
        _ = httpdns_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
    }

    static func resolveList(_ servers: TestServers) -> UnsafeMutablePointer<curl_slist>? {
        curl_slist_append(nil, "a.test:\(servers.httpsPort):127.0.0.1")
    }

    /// One easy handle reused for every request: the floor of what libcurl allows sequentially.
    static func sequential(servers: TestServers, count: Int, http2: Bool) -> Double {
        let easy = curl_easy_init()!
        let list = resolveList(servers)
        configure(easy, servers: servers, http2: http2)
        _ = httpdns_easy_setopt_ptr(easy, CURLOPT_RESOLVE, list)
        _ = curl_easy_perform(easy) // warm the connection
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<count { _ = curl_easy_perform(easy) }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        curl_easy_cleanup(easy)
        curl_slist_free_all(list)
        return Double(count) / seconds
    }

    /// `width` easy handles configured once and kept busy on one multi handle by one thread
    /// (curl_multi_perform + curl_multi_poll), each re-added as soon as its transfer is done, until
    /// `count` have completed: the most libcurl itself allows for this workload from one thread, with
    /// nothing spent on a handle's set-up, an API or a thread hand-off. It bounds what any library on
    /// libcurl can reach here (the curl CLI adds its own per-URL work on top).
    /// - Throws: `BenchmarkFailure` when a transfer fails or answers other than 200 (a failure must
    ///   not count as a fast request). Its CPU figure, like the curl tool's (which includes start-up),
    ///   includes setting up the handles and the warm-up that opens the connections.
    static func concurrent(servers: TestServers, count: Int, width: Int, http2: Bool) throws -> Double {
        let multi = curl_multi_init()!
        let list = resolveList(servers)
        _ = httpdns_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, 64)
        var handles: [UnsafeMutableRawPointer] = []
        for _ in 0..<width {
            let easy = curl_easy_init()!
            configure(easy, servers: servers, http2: http2)
            _ = httpdns_easy_setopt_ptr(easy, CURLOPT_RESOLVE, list)
            _ = httpdns_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1)
            handles.append(easy)
        }
        var failures: [String] = []
        func run(_ total: Int) {
            var started = 0, completed = 0
            for easy in handles where started < total {
                curl_multi_add_handle(multi, easy)
                started += 1
            }
            var running: Int32 = 1
            while completed < total {
                curl_multi_perform(multi, &running)
                var remaining: Int32 = 0
                while let message = curl_multi_info_read(multi, &remaining) {
                    guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                    var status = 0
                    _ = httpdns_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
                    let result = message.pointee.data.result
                    if result != CURLE_OK || status != 200, failures.count < 3 {
                        failures.append("\(String(cString: curl_easy_strerror(result))), HTTP \(status)")
                    }
                    curl_multi_remove_handle(multi, easy)
                    completed += 1
                    if started < total {
                        curl_multi_add_handle(multi, easy)
                        started += 1
                    }
                }
                if completed < total { curl_multi_poll(multi, nil, 0, 100, nil) }
            }
        }
        run(width) // warm: open the connections
        let start = DispatchTime.now().uptimeNanoseconds
        run(count)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        for easy in handles { curl_easy_cleanup(easy) }
        curl_multi_cleanup(multi)
        curl_slist_free_all(list)
        guard failures.isEmpty else { throw BenchmarkFailure("raw libcurl transfers failed: \(failures.joined(separator: "; "))") }
        return Double(count) / seconds
    }

    /// Connections a cold multi handle opens for `count` simultaneous HTTP/2 requests.
    static func coldStartConnections(servers: TestServers, count: Int, pipewait: Bool) -> Int {
        let multi = curl_multi_init()!
        let list = resolveList(servers)
        var handles: [UnsafeMutableRawPointer] = []
        for _ in 0..<count {
            let easy = curl_easy_init()!
            configure(easy, servers: servers, http2: true)
            _ = httpdns_easy_setopt_ptr(easy, CURLOPT_RESOLVE, list)
            _ = httpdns_easy_setopt_long(easy, CURLOPT_PIPEWAIT, pipewait ? 1 : 0)
            curl_multi_add_handle(multi, easy)
            handles.append(easy)
        }
        var running: Int32 = 1
        while running > 0 {
            curl_multi_perform(multi, &running)
            if running > 0 { curl_multi_poll(multi, nil, 0, 100, nil) }
        }
        var connections = 0
        for easy in handles {
            var opened = 0
            _ = httpdns_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &opened)
            connections += opened
            curl_multi_remove_handle(multi, easy)
            curl_easy_cleanup(easy)
        }
        curl_multi_cleanup(multi)
        curl_slist_free_all(list)
        return connections
    }
}

/// This library through its public API.
enum Ours {
    /// Connections opened by `concurrent` (CURLINFO_NUM_CONNECTS > 0), to tell connection churn apart from per-request cost.
    static let opened = Atomic<Int>(0)

    static func client(servers: TestServers, ca: [Certificate], version: HTTPVersionPreference) throws -> HTTPClient {
        let resolver = StaticHostResolver(entries: [.init(host: "a.test", port: servers.httpsPort, addresses: [IPAddress("127.0.0.1")!])], fallback: nil)
        return try HTTPClient(configuration: .init(trust: .anchors(ca), httpVersion: version), resolver: resolver)
    }

    /// - Parameter onExecutor: the caller runs on the client's executor (`HTTPClient.executor`)
    ///   instead of the global one.
    static func sequential(
        servers: TestServers, ca: [Certificate], count: Int, version: HTTPVersionPreference,
        onExecutor: Bool = false
    ) async throws -> Double {
        let client = try client(servers: servers, ca: ca, version: version)
        let request = HTTPRequest(url: servers.httpsURL("a.test"))
        _ = try await client.execute(request)
        return try await withTaskExecutorPreference(onExecutor ? client.executor : nil) {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<count { _ = try await client.execute(request) }
            return Double(count) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
    }

    static func concurrent(
        servers: TestServers, ca: [Certificate], count: Int, width: Int, version: HTTPVersionPreference,
        onExecutor: Bool = false
    ) async throws -> Double {
        let client = try client(servers: servers, ca: ca, version: version)
        let request = HTTPRequest(url: servers.httpsURL("a.test"))
        // Warm `width` at once, as the raw multi peer does, so the connections are open before the
        // clock starts and the figure is per request, not per connection. Four turns a lane: when
        // a thread is slow to start its lane (under valgrind), the first turn's requests overlap
        // too little for the pool to open all `width`.
        try await Lanes.run(count: width * 4, width: width) { _ = try await client.execute(request) }
        // The lanes are child tasks: they inherit the executor preference.
        return try await withTaskExecutorPreference(onExecutor ? client.executor : nil) {
            let start = DispatchTime.now().uptimeNanoseconds
            try await Lanes.run(count: count, width: width) {
                let response = try await client.execute(request)
                if !response.connection.reusedConnection { Ours.opened.add(1, ordering: .relaxed) }
            }
            return Double(count) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
    }

    /// Seconds for `count` simultaneous requests on a cold pool (one new connection each).
    static func coldConnections(servers: TestServers, ca: [Certificate], count: Int) async throws -> Double {
        // A policy of its own, so the pool (and its TLS session cache) starts empty.
        let trust = TrustPolicy.anchors(ca + Array(repeating: ca[0], count: 3))
        let resolver = StaticHostResolver(entries: [.init(host: "a.test", port: servers.httpsPort, addresses: [IPAddress("127.0.0.1")!])], fallback: nil)
        // No per-host limit: each request opens a connection, as each of curl's does (with the default
        // of 16 the 50 requests would share 16 connections and measure something else).
        var configuration = HTTPClient.Configuration(trust: trust, httpVersion: .http1_1)
        configuration.maximumConnectionsPerHost = nil
        let client = try HTTPClient(configuration: configuration, resolver: resolver)
        let request = HTTPRequest(url: servers.httpsURL("a.test"))
        let start = DispatchTime.now().uptimeNanoseconds
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<count { group.addTask { _ = try await client.execute(request) } }
            try await group.waitForAll()
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}

/// The curl command-line tool with --parallel.
enum CurlCLI {
    static func parallel(servers: TestServers, count: Int, width: Int, http2: Bool) throws -> Double {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-bench-\(getpid()).curlrc")
        var lines = ""
        for _ in 0..<count { lines += "url = \"\(servers.httpsURL("a.test").absoluteString)\"\noutput = \"/dev/null\"\n" }
        try lines.write(to: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: config) }
        let start = DispatchTime.now().uptimeNanoseconds
        let result = try Command.run(
            URL(fileURLWithPath: "/usr/bin/curl"),
            [
                "-s", "--parallel", "--parallel-max", String(width), http2 ? "--http2" : "--http1.1",
                "--resolve", "a.test:\(servers.httpsPort):127.0.0.1", "--cacert", servers.caCertificate.path,
                "-K", config.path
            ], timeout: 600)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        guard result.status == 0 else { throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "curl failed: \(result.stderrText)"]) }
        return Double(count) / seconds
    }
}
