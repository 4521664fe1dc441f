import Foundation
import Synchronization
import Testing
import HTTPDNS
import TestSupport

/// NAT64 synthesis (RFC 6052) and prefix discovery (RFC 7050) on an IPv6-only network: a namespace
/// of the test's own with an IPv6 default route and none for IPv4.
///
/// In-process, the resolver probes its families on a thread in the namespace and asks the suite's
/// DoH server from the test process. End to end, `httpdns` runs in the namespace (`ip netns exec`,
/// which mounts `/etc/netns/NAME/resolv.conf` over `/etc/resolv.conf`) beside an unbound whose
/// dns64 module answers `ipv4only.arpa` from an auth-zone, and connects to the synthesized address,
/// which the test puts on the namespace's loopback with an HTTP server on it (no translator: the
/// address is the server's own, as a NAT64 would make it look).
@Suite("NAT64 on an IPv6-only network (test namespace)", .serialized)
struct NAT64Tests {
    let fixture: Fixture

    init() throws { fixture = try Fixture() }

    /// A namespace whose only default route is IPv6 (v0 fd23::1/64, via fd23::2).
    func ipv6OnlyNamespace() async throws -> NetworkNamespace {
        let namespace = try NetworkNamespace()
        try await namespace.batch([
            "link add v0 type veth peer name v1", "link set v0 addrgenmode none", "link set v1 addrgenmode none", "link set v0 up", "link set v1 up",
            "address add fd23::1/64 dev v0 nodad",
            "route add default via fd23::2 dev v0"
        ])
        return namespace
    }

    /// A resolver asking the suite's DoH server, with `nat64`, whose families were probed in `namespace`.
    func resolver(nat64: NAT64Synthesis, discovery: NAT64PrefixDiscovery = NAT64PrefixDiscovery(), probedIn namespace: NetworkNamespace) async throws -> HostResolver {
        var configuration = HostResolver.Configuration(endpoints: [fixture.endpoint], requestTimeout: TestTimeScale.scaled(3), fallbackToSystemResolver: false)
        configuration.nat64 = nat64
        configuration.nat64Discovery = discovery
        let resolver = try HostResolver(configuration: configuration, dohTrust: fixture.trust)
        #expect(try await namespace.enter { resolver.reprobeFamilies() } == .ipv6)
        return resolver
    }

    /// Answers `ipv4only.arpa` as a DNS64 with `prefix` would, and counts the questions.
    final class FakeDNS64: HostResolving {
        let addresses: [IPAddress]
        let questions = Mutex(0)
        init(addresses: [IPAddress]) { self.addresses = addresses }
        func resolve(host: String, port: Int) async throws -> HostResolution {
            guard host == NAT64PrefixDiscovery.wellKnownName else { throw ResolutionError.nameNotFound(host: host, negativeTTL: nil) }
            questions.withLock { $0 += 1 }
            return HostResolution(host: host, addresses: addresses, ttl: nil, source: .system)
        }
    }

    @Test("an IPv4-only name gets its A records in the prefix; a name with AAAA keeps them; an .ipv4 lookup is left alone")
    func synthesizesWithAGivenPrefix() async throws {
        let namespace = try await ipv6OnlyNamespace()
        defer { namespace.remove() }
        let resolver = try await resolver(nat64: .prefix(.wellKnown), probedIn: namespace)
        let v4only = try await resolver.resolve(host: "v4only.test", port: 443)
        #expect(v4only.addresses == [IPAddress("64:ff9b::7f00:1")!])
        #expect(v4only.nat64Prefix == .wellKnown)
        // The cache keeps the answer as given; the hit is synthesized again.
        #expect(try resolver.resolveImmediately(host: "v4only.test", port: 443)?.addresses == [IPAddress("64:ff9b::7f00:1")!])
        let dual = try await resolver.resolve(host: "a.test", port: 443)
        #expect(dual.addresses == [IPAddress("::1")!])
        #expect(dual.nat64Prefix == nil)
        #expect(try await resolver.resolve(host: "v4only.test", port: 443, families: .ipv4).addresses == [IPAddress("127.0.0.1")!])
        #expect(try await resolver.resolve(host: "192.0.2.33", port: 443).addresses == [IPAddress("64:ff9b::c000:221")!])
    }

    @Test("discover: the prefix is read from ipv4only.arpa's AAAA records (a /64 here), asked once, and again after a network change")
    func discoversThePrefix() async throws {
        let namespace = try await ipv6OnlyNamespace()
        defer { namespace.remove() }
        let prefix = try #require(NAT64Prefix("2001:db8:122:344::/64"))
        let answers = NAT64PrefixDiscovery.wellKnownAddresses.compactMap(prefix.synthesize)
        let dns64 = FakeDNS64(addresses: answers)
        let resolver = try await resolver(nat64: .discover, discovery: NAT64PrefixDiscovery(resolver: dns64), probedIn: namespace)
        #expect(await resolver.nat64Prefix() == prefix)
        #expect(try await resolver.resolve(host: "v4only.test", port: 443).addresses == [IPAddress("2001:db8:122:344:7f:0:100:0")!])
        #expect(try resolver.resolveImmediately(host: "v4only.test", port: 443)?.nat64Prefix == prefix)
        #expect(dns64.questions.withLock { $0 } == 1)
        resolver.networkChanged(NetworkChange(events: [.messagesLost]))
        #expect(try resolver.resolveImmediately(host: "v4only.test", port: 443) == nil)
        #expect(await resolver.nat64Prefix() == prefix)
        #expect(dns64.questions.withLock { $0 } == 2)
    }

    @Test("discover with no DNS64 (no AAAA for ipv4only.arpa): nothing is synthesized, the A records are returned")
    func noDNS64() async throws {
        let namespace = try await ipv6OnlyNamespace()
        defer { namespace.remove() }
        let resolver = try await resolver(nat64: .discover, discovery: NAT64PrefixDiscovery(resolver: FakeDNS64(addresses: [])), probedIn: namespace)
        #expect(await resolver.nat64Prefix() == nil)
        let resolution = try await resolver.resolve(host: "v4only.test", port: 443)
        #expect(resolution.addresses == [IPAddress("127.0.0.1")!])
        #expect(resolution.nat64Prefix == nil)
    }

    @Test("with an IPv4 default route as well, nothing is synthesized")
    func dualStackIsLeftAlone() async throws {
        let namespace = try await ipv6OnlyNamespace()
        defer { namespace.remove() }
        let resolver = try await resolver(nat64: .prefix(.wellKnown), probedIn: namespace)
        try await namespace.batch(["address add 10.23.0.1/24 dev v0", "route add default via 10.23.0.2 dev v0"])
        #expect(try await namespace.enter { resolver.reprobeFamilies() } == .both)
        #expect(try await resolver.resolve(host: "v4only.test", port: 443).addresses == [IPAddress("127.0.0.1")!])
    }

    @Test("RFC 7050 §3: the well-known addresses are found at each RFC 6052 length; other AAAA records give nothing")
    func prefixesFromAnswers() throws {
        for text in ["64:ff9b::/96", "2001:db8::/32", "2001:db8:100::/40", "2001:db8:122::/48", "2001:db8:122:300::/56", "2001:db8:122:344::/64"] {
            let prefix = try #require(NAT64Prefix(text))
            let answers = NAT64PrefixDiscovery.wellKnownAddresses.compactMap(prefix.synthesize)
            #expect(NAT64PrefixDiscovery.prefixes(in: answers) == [prefix], "\(text)")
        }
        #expect(NAT64PrefixDiscovery.prefixes(in: [IPAddress("2001:db8::1")!, IPAddress("192.0.0.170")!]).isEmpty)
    }

    /// `ipv4only.arpa` as an authoritative zone for unbound's iterator (`for-upstream`), so the
    /// dns64 module synthesizes its AAAA records from the two A records, as a network's DNS64 does
    /// (a `local-data` answer would skip the modules).
    static let ipv4onlyZone = """
        $ORIGIN ipv4only.arpa.
        @ 3600 IN SOA localhost. nobody.invalid. 1 3600 600 86400 300
        @ 3600 IN NS localhost.
        @ 3600 IN A 192.0.0.170
        @ 3600 IN A 192.0.0.171

        """

    static func unboundConfiguration(_ directory: URL) -> String {
        """
        server:
            interface: ::1
            port: 53
            do-daemonize: no
            use-syslog: no
            logfile: ""
            chroot: ""
            username: ""
            pidfile: ""
            directory: "\(directory.path)"
            module-config: "dns64 iterator"
            dns64-prefix: 64:ff9b::/96
            access-control: ::1/128 allow
            do-not-query-localhost: no
            verbosity: 1
        auth-zone:
            name: "ipv4only.arpa."
            zonefile: "\(directory.path)/ipv4only.zone"
            for-downstream: no
            for-upstream: yes
            fallback-enabled: no

        """
    }

    /// Runs `httpdns arguments` in `namespace` beside unbound's DNS64 on [::1]:53 (the namespace's
    /// resolv.conf) and an HTTP server on [64:ff9b::c000:221]:8080 (192.0.2.33 synthesized in the
    /// Well-Known Prefix, on the namespace's loopback) serving `/hello.txt`.
    func inIPv6OnlyNetwork(_ namespace: NetworkNamespace, _ arguments: [String]) async throws -> CommandResult {
        let directory = try fixture.scratchDirectory("nat64")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("www"), withIntermediateDirectories: true)
        try "through nat64\n".write(to: directory.appendingPathComponent("www/hello.txt"), atomically: true, encoding: .utf8)
        try Self.ipv4onlyZone.write(to: directory.appendingPathComponent("ipv4only.zone"), atomically: true, encoding: .utf8)
        try Self.unboundConfiguration(directory).write(to: directory.appendingPathComponent("unbound.conf"), atomically: true, encoding: .utf8)
        // ip netns exec mounts /etc/netns/NAME/resolv.conf over /etc/resolv.conf for what it runs.
        let netnsEtc = URL(fileURLWithPath: "/etc/netns")
        let etc = netnsEtc.appendingPathComponent(namespace.name)
        try FileManager.default.createDirectory(at: etc, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(at: etc)
            if (try? FileManager.default.contentsOfDirectory(atPath: netnsEtc.path))?.isEmpty == true { try? FileManager.default.removeItem(at: netnsEtc) }
        }
        try "nameserver ::1\noptions timeout:2 attempts:2\n".write(to: etc.appendingPathComponent("resolv.conf"), atomically: true, encoding: .utf8)
        try await namespace.ip("address", "add", "64:ff9b::c000:221/128", "dev", "lo")
        let path = directory.path
        let script = """
            /usr/sbin/unbound -d -c '\(path)/unbound.conf' >'\(path)/unbound.log' 2>&1 </dev/null &
            dns=$!
            python3 -m http.server --bind 64:ff9b::c000:221 --directory '\(path)/www' 8080 >'\(path)/http.log' 2>&1 </dev/null &
            web=$!
            for _ in $(seq 200); do
                grep -q 'start of service' '\(path)/unbound.log' && ss -Hltn 'sport = :8080' | grep -q 8080 && break
                sleep 0.05
            done
            "$@"
            status=$?
            # SIGKILL: the test process may hand its children SIGTERM blocked.
            kill -KILL $dns $web; wait $dns $web 2>/dev/null
            exit $status
            """
        return try await Command.runDetached(
            URL(fileURLWithPath: "/usr/sbin/ip"),
            ["netns", "exec", namespace.name, "/bin/bash", "-c", script, "bash", PackagePaths.builtProduct("httpdns").path] + arguments, timeout: 60)
    }

    @Test("end to end: httpdns in the namespace discovers 64:ff9b::/96 through unbound's dns64 and resolves an IPv4-only name into it")
    func resolveDiscovers() async throws {
        let namespace = try await ipv6OnlyNamespace()
        defer { namespace.remove() }
        let result = try await inIPv6OnlyNetwork(namespace, ["resolve", "-v", "--nat64", "discover", "--resolve", "v4only.test:*:192.0.2.33", "v4only.test"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "v4only.test 64:ff9b::c000:221 ttl=- source=static nat64=64:ff9b::/96\n")
        #expect(result.stderrText.contains("* nat64: prefix 64:ff9b::/96, discovered through ipv4only.arpa (RFC 7050); no IPv4 route: IPv4-only names are synthesized"))
    }

    @Test("end to end: fetch connects to an IPv4-only name through the synthesized address")
    func fetchConnects() async throws {
        let namespace = try await ipv6OnlyNamespace()
        defer { namespace.remove() }
        let result = try await inIPv6OnlyNetwork(
            namespace, ["fetch", "-v", "--nat64", "discover", "--resolve", "v4only.test:8080:192.0.2.33", "http://v4only.test:8080/hello.txt"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "through nat64\n")
        #expect(result.stderrText.contains("64:ff9b::c000:221"), "\(result.stderrText)")
        #expect(result.stderrText.contains("synthesized in NAT64 prefix 64:ff9b::/96 (no IPv4 route)"), "\(result.stderrText)")
    }

    @Test("end to end: probe's first line says the addresses were synthesized, and the address answers")
    func probeSaysSo() async throws {
        let namespace = try await ipv6OnlyNamespace()
        defer { namespace.remove() }
        let result = try await inIPv6OnlyNetwork(
            namespace, ["probe", "--nat64", "discover", "--resolve", "v4only.test:8080:192.0.2.33", "http://v4only.test:8080/hello.txt"])
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.first == "# v4only.test: 64:ff9b::c000:221 (source static, synthesized in NAT64 prefix 64:ff9b::/96)", "\(result.stdoutText)\(result.stderrText)")
        #expect(lines.contains { $0.hasPrefix("64:ff9b::c000:221 ok") }, "\(result.stdoutText)\(result.stderrText)")
    }
}
