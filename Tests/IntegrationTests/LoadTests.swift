import Foundation
import Testing
import HTTPDNS
import TestSupport

/// 1,000 concurrent requests through one client against nginx, counting the process's sockets and
/// threads from /proc.
///
/// The rules, exactly:
/// - Sockets: the requests go to 127.0.0.50, an address nginx listens on for these tests alone, so the
///   process's TCP sockets to it (its /proc/self/fd sockets whose /proc/net/tcp peer is
///   127.0.0.50:PORT) are this test's. There are none before; after `closeIdleConnections()` there are
///   none again. Between the two, libcurl keeps the idle ones for reuse: as many as it opened, which
///   the client's default `maximumConnectionsPerHost` holds to 16 (without it, HTTP/2 opened one for
///   every request that found the open connections' streams taken: 64+ for this burst).
/// - All descriptors: nothing else runs in the process (see below), so the whole /proc/self/fd count
///   returns to its starting value, give or take 4 for files a library opens once on first use and
///   keeps (measured: +1 on the first run, 0 on the second); a leak of one descriptor per request
///   (1,000) or per connection (hundreds) is far above that.
/// - Threads: /proc/self/task, sampled every 10 ms during the run, never exceeds its starting count
///   plus 8 (measured: +0): the transfers share the one transfer thread and the cooperative pool (one
///   thread per core); a thread per request or per connection would add hundreds.
///
/// They run only with `HTTPDNS_LOAD_TESTS=1`, which `scripts/test.sh` sets for a second `swift test`
/// process of their own: run alongside the rest of the suite, 1,000 TLS handshakes on the shared
/// transfer thread and nginx's one worker (two shared cores) starve its timing-sensitive tests.
@Suite(
    "Load", .serialized,
    .enabled(
        if: ProcessInfo.processInfo.environment["HTTPDNS_LOAD_TESTS"] == "1",
        "HTTPDNS_LOAD_TESTS=1 runs them, alone: scripts/test.sh does"))
struct LoadTests {
    static let address = "127.0.0.50"
    static let requests = 1_000

    @Test("1,000 concurrent requests complete, their sockets all close and threads stay bounded", arguments: [HTTPVersionPreference.http1_1, .http2])
    func thousandConcurrentRequests(version: HTTPVersionPreference) async throws {
        let fixture = try Fixture()
        let port = fixture.servers.httpsPort
        let client = try fixture.client(trust: fixture.freshTrust(), version: version)
        var request = HTTPRequest(url: fixture.url("a.test"))
        request.connectTo = [IPAddress(Self.address)!]
        // 1,000 TLS handshakes on one transfer thread, on two shared cores: the last waits seconds.
        request.timeouts = Timeouts(connect: 30, total: 60)

        #expect(try ProcessProbe.sockets(to: Self.address, port: port) == 0)
        let descriptorsBefore = try ProcessProbe.descriptorCount()
        let threadsBefore = try ProcessProbe.threadCount()
        let sampler = Task.detached {
            var peak = threadsBefore
            while !Task.isCancelled {
                if let count = try? ProcessProbe.threadCount() { peak = max(peak, count) }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return peak
        }

        let start = ContinuousClock.now
        let bodies: [String: Int]
        do {
            bodies = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<Self.requests { group.addTask { [request] in try await client.execute(request).text } }
                var bodies: [String: Int] = [:]
                for try await body in group { bodies[body, default: 0] += 1 }
                return bodies
            }
        } catch {
            // A failed run must not fail the other version's too: its first check finds no socket
            // to 127.0.0.50, which this client's idle connections would be.
            sampler.cancel()
            await Self.closeIdleConnections(of: client)
            throw error
        }
        let elapsed = ContinuousClock.now - start
        sampler.cancel()
        let peakThreads = await sampler.value
        #expect(bodies == ["vhost=a.test\n": Self.requests], "completed in \(elapsed)")

        let idle = try ProcessProbe.sockets(to: Self.address, port: port)
        #expect(idle >= 1, "the pool keeps idle connections for reuse")
        #expect(idle <= 16, "at most maximumConnectionsPerHost (16) connections for \(Self.requests) requests")
        #expect(await client.closeIdleConnections())
        #expect(try ProcessProbe.sockets(to: Self.address, port: port) == 0, "\(idle) idle sockets before closing")
        #expect(try ProcessProbe.descriptorCount() <= descriptorsBefore + 4)
        #expect(peakThreads <= threadsBefore + 8, "threads: \(threadsBefore) before, \(peakThreads) at most")

        // The pool works again after closing: a new connection.
        let again = try await client.execute(request)
        #expect(again.connection.reusedConnection == false)
        #expect(await client.closeIdleConnections())
    }

    /// Closes `client`'s idle connections once its cancelled transfers are out of the pool (up to 10 s).
    static func closeIdleConnections(of client: HTTPClient) async {
        let deadline = ContinuousClock.now + .seconds(10)
        while await !client.closeIdleConnections(), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// What /proc says about this process.
enum ProcessProbe {
    static func descriptorCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }

    static func threadCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
    }

    /// This process's TCP sockets whose peer is `address:port` (IPv4), in any state that still holds a
    /// descriptor.
    static func sockets(to address: String, port: Int) throws -> Int {
        var inodes: Set<String> = []
        for name in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
                target.hasPrefix("socket:[")
            else { continue }
            inodes.insert(String(target.dropFirst(8).dropLast()))
        }
        // /proc/net/tcp writes an IPv4 address as its 32-bit value in host byte order, in hex.
        let octets = address.split(separator: ".").compactMap { UInt32($0) }
        let value = octets.reversed().reduce(UInt32(0)) { $0 << 8 | $1 }
        let peer = String(format: "%08X:%04X", value, port)
        // Read to the end: procfs files report size 0, and a read sized by it may stop at one page.
        guard let file = FileHandle(forReadingAtPath: "/proc/net/tcp") else { throw POSIXError(.ENOENT) }
        defer { try? file.close() }
        let table = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        return table.split(separator: "\n").dropFirst().filter { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            return fields.count > 9 && fields[2] == peer && inodes.contains(String(fields[9]))
        }.count
    }
}
