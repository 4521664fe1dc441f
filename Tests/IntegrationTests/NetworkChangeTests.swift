import Foundation
import Synchronization
import Testing
import HTTPDNS
import TestSupport

/// Network changes seen through rtnetlink in a namespace of the test's own: a veth pair whose two
/// ends are both in it, addresses moved between them, default routes added. The monitor (and the
/// watcher's family probe) run on a thread moved into the namespace; the resolver and the client
/// stay in the test process's namespace and reach the suite's servers on loopback.
@Suite("network changes (rtnetlink in a test namespace)", .serialized)
struct NetworkChangeTests {
    let fixture: Fixture

    init() throws { fixture = try Fixture() }

    /// Changes a handler receives, waited for one at a time.
    final class Changes: Sendable {
        private let stream: AsyncStream<NetworkChange>
        let continuation: AsyncStream<NetworkChange>.Continuation
        private let seen = Mutex<[NetworkChange]>([])

        init() { (stream, continuation) = AsyncStream.makeStream() }

        func record(_ change: NetworkChange) {
            seen.withLock { $0.append(change) }
            continuation.yield(change)
        }

        /// The first change (after those already taken) for which `matches` holds, within `limit` seconds.
        func next(within limit: TimeInterval = 10, where matches: @escaping @Sendable (NetworkChange) -> Bool) async -> NetworkChange? {
            await withTaskGroup(of: NetworkChange?.self) { group in
                group.addTask { [stream] in
                    for await change in stream where matches(change) { return change }
                    return nil
                }
                group.addTask {
                    try? await Task.sleep(for: .seconds(limit))
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
        }
    }

    /// A namespace with a veth pair `v0`/`v1`, both up, without IPv6 link-local addresses.
    func namespaceWithVethPair() async throws -> (NetworkNamespace, v0: Int, v1: Int) {
        let namespace = try NetworkNamespace()
        // No link-local addresses: their duplicate address detection ends a second or so after the
        // link comes up, with a message that would be a change of its own in the middle of a test.
        try await namespace.batch([
            "link add v0 type veth peer name v1", "link set v0 addrgenmode none", "link set v1 addrgenmode none", "link set v0 up", "link set v1 up"
        ])
        return (namespace, try await index(of: "v0", in: namespace), try await index(of: "v1", in: namespace))
    }

    func index(of interface: String, in namespace: NetworkNamespace) async throws -> Int {
        let line = try await namespace.ip("-o", "link", "show", interface).stdoutText
        return try #require(Int(line.prefix { $0 != ":" }))
    }

    @Test("an address moved from one interface to another is one change: removed, then added, with its prefix route")
    func addressMoveIsOneChange() async throws {
        let (namespace, v0, v1) = try await namespaceWithVethPair()
        defer { namespace.remove() }
        let changes = Changes()
        let monitor = try await namespace.enter { try NetworkMonitor(quietPeriod: 0.4) { changes.record($0) } }
        defer { monitor.stop() }
        let address = IPAddress("10.23.0.1")!
        try await namespace.ip("address", "add", "10.23.0.1/24", "dev", "v0")
        let added = await changes.next { $0.events.contains(.addressAdded(address, prefixLength: 24, interfaceIndex: v0)) }
        #expect(added != nil)
        #expect(
            added?.events.contains { if case .routeAdded(let route) = $0 { route.destination == IPAddress("10.23.0.0") && route.prefixLength == 24 && route.interfaceIndex == v0 } else { false } }
                == true)

        // One ip process for both, so they land within one quiet period.
        try await namespace.batch(["address del 10.23.0.1/24 dev v0", "address add 10.23.0.1/24 dev v1"])
        let moved = try #require(await changes.next { $0.events.contains(.addressRemoved(address, prefixLength: 24, interfaceIndex: v0)) })
        let removal = try #require(moved.events.firstIndex(of: .addressRemoved(address, prefixLength: 24, interfaceIndex: v0)))
        let addition = try #require(moved.events.firstIndex(of: .addressAdded(address, prefixLength: 24, interfaceIndex: v1)), "\(moved.events)")
        #expect(removal < addition)
        #expect(!moved.touchesDefaultRoute)
    }

    @Test("a default route added, then moved to another gateway and interface, is reported with its gateway")
    func defaultRouteChanges() async throws {
        let (namespace, v0, v1) = try await namespaceWithVethPair()
        defer { namespace.remove() }
        try await namespace.ip("address", "add", "10.23.0.1/24", "dev", "v0")
        try await namespace.ip("address", "add", "10.23.1.1/24", "dev", "v1")
        let changes = Changes()
        let monitor = try await namespace.enter { try NetworkMonitor(quietPeriod: 0.3) { changes.record($0) } }
        defer { monitor.stop() }
        try await namespace.ip("route", "add", "default", "via", "10.23.0.2", "dev", "v0")
        let first = NetworkChange.Route(family: .ipv4, destination: nil, prefixLength: 0, gateway: IPAddress("10.23.0.2"), interfaceIndex: v0)
        let added = await changes.next { $0.events.contains(.routeAdded(first)) }
        #expect(added?.touchesDefaultRoute == true)
        try await namespace.ip("route", "replace", "default", "via", "10.23.1.2", "dev", "v1")
        let second = NetworkChange.Route(family: .ipv4, destination: nil, prefixLength: 0, gateway: IPAddress("10.23.1.2"), interfaceIndex: v1)
        let replaced = await changes.next { $0.events.contains(.routeAdded(second)) }
        #expect(replaced?.touchesDefaultRoute == true)
        #expect(second.description == "default via 10.23.1.2 dev #\(v1)")
    }

    @Test("a released monitor stops: its thread ends and nothing more is reported")
    func releasedMonitorIsSilent() async throws {
        let (namespace, _, _) = try await namespaceWithVethPair()
        defer { namespace.remove() }
        let changes = Changes()
        var monitor: NetworkMonitor? = try await namespace.enter { try NetworkMonitor(quietPeriod: 0.2) { changes.record($0) } }
        #expect(monitor != nil)
        monitor = nil
        try await namespace.ip("address", "add", "10.23.0.1/24", "dev", "v0")
        #expect(await changes.next(within: 1.5) { _ in true } == nil)
    }

    @Test("a stopped monitor reports nothing more")
    func stoppedMonitorIsSilent() async throws {
        let (namespace, _, _) = try await namespaceWithVethPair()
        defer { namespace.remove() }
        let changes = Changes()
        let monitor = try await namespace.enter { try NetworkMonitor(quietPeriod: 0.2) { changes.record($0) } }
        monitor.stop()
        monitor.stop()
        try await namespace.ip("address", "add", "10.23.0.1/24", "dev", "v0")
        #expect(await changes.next(within: 1.5) { _ in true } == nil)
    }
}

/// What a resolver told its observer: network changes, and the names providers answered.
final class NetworkChangeObserver: ResolverObserver {
    let families = Mutex<[AddressFamilies]>([])
    let answered = Mutex<[String]>([])

    func networkChanged(_ change: NetworkChange, families: AddressFamilies, policy: NetworkChangePolicy) {
        self.families.withLock { $0.append(families) }
        answered.withLock { $0.append("-- \(policy.rawValue)") }
    }

    func providerAnswered(host: String, provider: String, endpoint: URL, latency: TimeInterval, answer: ProviderAnswer) {
        answered.withLock { $0.append(host) }
    }

    /// The names answered after the last network change, each once, in order.
    var answeredSinceChange: [String] {
        let all = answered.withLock { $0 }
        let start = (all.lastIndex { $0.hasPrefix("-- ") } ?? -1) + 1
        var names: [String] = []
        for name in all[start...] where !names.contains(name) { names.append(name) }
        return names
    }
}

extension NetworkChangeTests {
    func resolver(policy: NetworkChangePolicy, families: AddressFamilies = .both, preResolve: [String] = [], observer: NetworkChangeObserver) throws -> HostResolver {
        var configuration = HostResolver.Configuration(endpoints: [fixture.endpoint], families: families, requestTimeout: TestTimeScale.scaled(3), fallbackToSystemResolver: false)
        configuration.networkChangePolicy = policy
        configuration.preResolveHosts = preResolve
        configuration.observer = observer
        return try HostResolver(configuration: configuration, dohTrust: fixture.trust)
    }

    /// Gives the namespace an IPv6 default route (and the address its gateway needs), the change
    /// every watcher test makes.
    func addIPv6DefaultRoute(_ namespace: NetworkNamespace) async throws {
        try await namespace.batch(["address add fd23::1/64 dev v0 nodad", "route add default via fd23::2 dev v0"])
    }

    @Test("flush: the cache is emptied, the families are probed again in the namespace (.auto: IPv6 only now), the client's idle connection is not reused")
    func flushPolicy() async throws {
        let (namespace, _, _) = try await namespaceWithVethPair()
        defer { namespace.remove() }
        let observer = NetworkChangeObserver()
        let resolver = try resolver(policy: .flush, families: .auto, observer: observer)
        let client = try fixture.client(trust: fixture.freshTrust(), resolver: resolver)
        let changes = Changes()
        let watcher = try await namespace.enter { try NetworkChangeWatcher(resolver: resolver, clients: [client], quietPeriod: 0.3) { changes.record($0) } }
        defer { watcher.stop() }
        // The namespace has no default route of either family: .auto asks for both.
        #expect(try await resolver.resolve(host: "a.test", port: 443, families: .auto).addresses.count == 2)
        _ = try await client.execute(HTTPRequest(url: fixture.url("a.test")))
        #expect(try await client.execute(HTTPRequest(url: fixture.url("a.test"))).connection.reusedConnection)
        #expect(resolver.cachedResolution(host: "a.test", families: .both) != nil)

        try await addIPv6DefaultRoute(namespace)
        let change = try #require(await changes.next { $0.touchesDefaultRoute })
        #expect(change.events.contains { $0.family == .ipv6 })
        #expect(resolver.cachedCount == 0)
        #expect(observer.families.withLock { $0.last } == .ipv6)
        #expect(try await resolver.resolve(host: "a.test", port: 443, families: .auto).addresses == [IPAddress("::1")!])
        let after = try await client.execute(HTTPRequest(url: fixture.url("a.test")))
        #expect(after.status == 200)
        #expect(!after.connection.reusedConnection)
    }

    @Test("reresolve: the names cached before the change are cached again after it, the pre-resolve list first")
    func reresolvePolicy() async throws {
        let (namespace, _, _) = try await namespaceWithVethPair()
        defer { namespace.remove() }
        let observer = NetworkChangeObserver()
        let resolver = try resolver(policy: .reresolve, preResolve: ["b.test"], observer: observer)
        await resolver.waitForPreResolution()
        for host in ["www.a.test", "a.test"] { _ = try await resolver.resolve(host: host, port: 443) }
        let changes = Changes()
        let watcher = try await namespace.enter { try NetworkChangeWatcher(resolver: resolver, quietPeriod: 0.3) { changes.record($0) } }
        defer { watcher.stop() }

        try await addIPv6DefaultRoute(namespace)
        #expect(await changes.next { $0.touchesDefaultRoute } != nil)
        #expect(await resolver.waitForNetworkChangeReresolution(within: 30))
        // The pre-resolve list's names before the others (which are resolved side by side).
        let order = observer.answeredSinceChange
        #expect(order.first == "b.test")
        #expect(Set(order.dropFirst()) == ["a.test", "www.a.test"])
        for host in ["a.test", "www.a.test", "b.test"] {
            let cached = try #require(resolver.cachedResolution(host: host), "\(host)")
            #expect(cached.source == .cache)
        }
    }

    @Test("none: the cache is kept; the families are still probed again")
    func nonePolicy() async throws {
        let (namespace, _, _) = try await namespaceWithVethPair()
        defer { namespace.remove() }
        let observer = NetworkChangeObserver()
        let resolver = try resolver(policy: .none, observer: observer)
        _ = try await resolver.resolve(host: "a.test", port: 443)
        let changes = Changes()
        let watcher = try await namespace.enter { try NetworkChangeWatcher(resolver: resolver, quietPeriod: 0.3) { changes.record($0) } }
        defer { watcher.stop() }
        try await addIPv6DefaultRoute(namespace)
        #expect(await changes.next { $0.touchesDefaultRoute } != nil)
        #expect(resolver.cachedResolution(host: "a.test") != nil)
        #expect(observer.families.withLock { $0.last } == .ipv6)
    }
}
