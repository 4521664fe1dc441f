import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import Testing
import HTTPDNS
@testable import HTTPTransport
import TestSupport

/// Keep-alive sockets stay in the transfer engine's epoll set while idle ("parked"), so taking a
/// pooled connection costs no system call; an idle connection the server closes must leave the set
/// (else the loop would wake for it for ever), and libcurl's sockets must not reach child processes.
@Suite("Idle keep-alive sockets")
struct ParkedSocketTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    /// A client on a pool of its own whose idle sockets the transfer thread parks: a request that
    /// is over leaves its idle socket parked in the set.
    func client(proxy: ProxyPolicy = .none) throws -> (HTTPClient, PoolDescriptor) {
        try fixture.clientOnOwnPool(proxy: proxy)
    }

    /// A request after which the pool's connection is parked, and its socket. nginx closes idle
    /// connections at once while it runs short of them (the load suite opens a thousand for a
    /// few seconds), which takes a parked socket out of the set; so tries for up to 15 s (scaled by
    /// `TestTimeScale`).
    func parkedConnection(_ client: HTTPClient, _ pool: PoolDescriptor, path: String = "/") async throws -> Int32? {
        let deadline = ContinuousClock.now + .seconds(TestTimeScale.scaled(15))
        repeat {
            _ = try await client.execute(fixture.loopbackRequest(path))
            let state = (await TransferEngine.shared.watchedSockets(of: pool))
            if state.parked.count == 1, state.watched == state.parked { return state.parked[0] }
            try await Task.sleep(for: .milliseconds(200))
        } while ContinuousClock.now < deadline
        return nil
    }

    @Test("an idle keep-alive socket stays registered and the next request takes the same one back")
    func parkedSocketIsTakenBack() async throws {
        let (client, pool) = try client()
        var takenBack = false
        for _ in 0..<10 where !takenBack {
            let socket = try #require(try await parkedConnection(client, pool), "no connection was parked after a request")
            let next = try await client.execute(fixture.loopbackRequest())
            #expect(next.text == "vhost=a.test\n")
            let parked = await TransferEngine.shared.watchedSockets(of: pool).parked
            takenBack = next.connection.reusedConnection && parked == [socket]
        }
        #expect(takenBack, "a reused connection's socket was parked again")
    }

    @Test("a parked socket leaves the epoll set when the server closes its connection, and the next request connects anew")
    func closedParkedSocketLeaves() async throws {
        let (client, pool) = try client()
        // nginx closes the connection a second after /keepalive/short: the close is an event on
        // the parked socket, which takes it out of the set (else the loop would wake for it for ever).
        _ = try #require(try await parkedConnection(client, pool, path: "/keepalive/short"), "no connection was parked after a request")
        let deadline = ContinuousClock.now + .seconds(TestTimeScale.scaled(6))
        while ContinuousClock.now < deadline, !(await TransferEngine.shared.watchedSockets(of: pool)).watched.isEmpty {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect((await TransferEngine.shared.watchedSockets(of: pool)).watched.isEmpty, "the closed connection left the epoll set")
        let next = try await client.execute(fixture.loopbackRequest())
        #expect(next.text == "vhost=a.test\n")
        #expect(next.connection.reusedConnection == false, "the closed connection was not reused")
    }

    @Test("a pool in which libcurl resolves a name (a proxy's host) parks no socket from then on")
    func noParkingAfterLibcurlResolves() async throws {
        let proxy = try await ProxyTestServer.shared()
        let (client, pool) = try client(proxy: .variables(["https_proxy": proxy.url.absoluteString]))
        // connectTo goes IP-direct, past the proxy.
        _ = try #require(try await parkedConnection(client, pool), "no connection was parked after a request")

        let proxied = try await client.execute(HTTPRequest(url: fixture.url("b.test")))
        #expect(proxied.text == "vhost=b.test\n")
        #expect(proxied.connection.proxy == proxy.url)
        let after = (await TransferEngine.shared.watchedSockets(of: pool))
        #expect(after.parks == false)
        #expect(after.parked.isEmpty, "the parked socket was taken out: \(after)")

        let again = try await client.execute(fixture.loopbackRequest())
        #expect(again.text == "vhost=a.test\n")
        #expect((await TransferEngine.shared.watchedSockets(of: pool)).watched.isEmpty, "nothing is parked any more")
    }

    @Test("libcurl's sockets are close-on-exec: a child process does not inherit a pooled connection")
    func socketsAreNotInherited() async throws {
        let (client, pool) = try client()
        let socket = try #require(try await parkedConnection(client, pool), "no connection was parked after a request")
        let pooled = try #require(Self.linkTarget(of: socket))
        #expect(pooled.hasPrefix("socket:["))
        // The control: a socket opened without SOCK_CLOEXEC does reach the child, so the listing
        // would show an inherited connection.
        let inheritable = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(inheritable >= 0)
        defer { close(inheritable) }
        let control = try #require(Self.linkTarget(of: inheritable))

        let listing = try Self.childFileDescriptors()
        #expect(listing.contains(control), "the control socket is inherited: \(listing)")
        #expect(!listing.contains(pooled), "the pooled connection \(pooled) reached the child: \(listing)")
    }

    static func linkTarget(of fd: Int32) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")
    }

    /// What `ls -l /proc/self/fd` prints in a child started by posix_spawn, which (unlike
    /// Foundation's `Process`) closes nothing but close-on-exec descriptors.
    static func childFileDescriptors() throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-fds-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let arguments = ["/bin/ls", "-l", "/proc/self/fd/"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, "/bin/ls", &actions, nil, &argv, environ)
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EINVAL) }
        var exit: Int32 = 0
        while waitpid(pid, &exit, 0) < 0, errno == EINTR {}
        return try String(contentsOfFile: output, encoding: .utf8)
    }
}
