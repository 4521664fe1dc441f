import Foundation
import Synchronization
import HTTPDNS
import TestSupport

/// Clients and resolvers wired to the suite's real nginx and unbound.
struct Fixture {
    let servers: TestServers
    let testCA: [Certificate]
    let otherCA: [Certificate]

    init() throws {
        servers = try TestServers.shared()
        testCA = try Certificate.certificates(contentsOf: servers.caCertificate)
        otherCA = try Certificate.certificates(contentsOf: servers.otherCACertificate)
    }

    /// System roots plus the test CA, as `--cacert` gives.
    var trust: TrustPolicy { .anchors(testCA) }

    /// unbound's DoH endpoint, reached through its bootstrap address.
    var endpoint: DoHEndpoint {
        DoHEndpoint(url: servers.dohURL, bootstrapAddresses: [IPAddress("127.0.0.1")!])
    }

    /// A DoH endpoint on a port nothing listens on.
    func deadEndpoint() throws -> DoHEndpoint {
        let port = try FreePort.tcp()
        return DoHEndpoint(url: URL(string: "https://dns.test:\(port)/dns-query")!, bootstrapAddresses: [IPAddress("127.0.0.1")!])
    }

    func resolver(endpoints: [DoHEndpoint]? = nil, fallback: Bool = false, method: DoHEndpoint.Method = .get) throws -> HostResolver {
        var endpoints = endpoints ?? [endpoint]
        for index in endpoints.indices { endpoints[index].method = method }
        let configuration = HostResolver.Configuration(endpoints: endpoints, requestTimeout: TestTimeScale.scaled(3), fallbackToSystemResolver: fallback)
        return try HostResolver(configuration: configuration, dohTrust: trust)
    }

    func client(trust: TrustPolicy? = nil, resolver: (any HostResolving)? = nil, version: HTTPVersionPreference = .http2) throws -> HTTPClient {
        try HTTPClient(
            configuration: HTTPClient.Configuration(trust: trust ?? self.trust, timeouts: .generous, httpVersion: version),
            resolver: resolver ?? self.resolver())
    }

    func url(_ host: String, _ path: String = "/") -> URL { servers.httpsURL(host, path: path) }

    /// CLI options for unbound's DoH endpoint: its host bootstrapped by `--resolve`, the test CA
    /// trusted.
    var dohOptions: [String] {
        [
            "--doh-url", servers.dohURL.absoluteString, "--resolve", "dns.test:\(servers.dohPort):127.0.0.1",
            "--cacert", servers.caCertificate.path
        ]
    }

    /// Runs the built `httpdns` without holding a cooperative thread (see `Command.runDetached`).
    func httpdns(_ arguments: [String], environment: [String: String]? = nil) async throws -> CommandResult {
        try await Command.runDetached(PackagePaths.builtProduct("httpdns"), arguments, environment: environment, timeout: 60)
    }

    /// Runs the built `httpdns` with its stderr sent into its stdout, one pipe, so that the text
    /// holds the two in the order they were written, as a terminal shows them.
    func httpdnsMerged(_ arguments: [String]) async throws -> CommandResult {
        try await Command.runDetached(
            URL(fileURLWithPath: "/bin/sh"), ["-c", #"exec "$0" "$@" 2>&1"#, PackagePaths.builtProduct("httpdns").path] + arguments,
            timeout: 60)
    }

    /// A new empty directory under the temporary directory (`httpdns-LABEL-UUID`); remove it after.
    func scratchDirectory(_ label: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// A trust policy no other call returns, so its pool starts cold.
    func freshTrust() -> TrustPolicy {
        // Repeating an anchor a different number of times changes the policy (and so the pool)
        // without changing what verifies.
        let serial = Self.trustSerial.add(1, ordering: .relaxed).newValue
        return .anchors(testCA + otherCA + Array(repeating: testCA[0], count: serial))
    }

    /// A trust policy that does not trust the test CA (the other CA is its only anchor), which no
    /// other call returns: a verification failure on a pool no other test shares.
    func freshDistrust() -> TrustPolicy {
        let serial = Self.trustSerial.add(1, ordering: .relaxed).newValue
        return TrustPolicy(anchors: .only(otherCA + Array(repeating: otherCA[0], count: serial)))
    }

    private static let trustSerial = Atomic<Int>(0)
}

extension HTTPResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
    var connectionNumber: String? { headers[first: "X-Connection"] }
}
