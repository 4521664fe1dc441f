import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The HTTPDNS provider stand-in (`scripts/provider-test-server.py`, written from the vendors' public
/// API docs): JSON DoH, Alibaba-style and DNSPod-style HTTPDNS over HTTPS on a free loopback port, with
/// the `dns.test` certificate of the suite's PKI. One per test process, started on first use.
public struct ProviderTestServer: Sendable {
    public let port: Int
    /// `https://dns.test:PORT`: reach it with bootstrap address 127.0.0.1.
    public let baseURL: URL
    /// One line per request received, `GET PATH?QUERY`.
    public let requestLog: URL
    public let accountID = "100000"
    /// An account served by a clock two hours ahead of the real one (its `Date` header shows it),
    /// as for a client whose clock is two hours behind.
    public let skewedAccountID = "300000"
    public let secret = "test-secret"
    public let keyID = "42"
    public let aesKey = "0123456789abcdef"
    /// The documents' example DES key (10 bytes, of which DES uses the first 8).
    public let desKey = "dnspodpass"
    /// The `/v2/d` signing secret and AES key, as hex.
    public let v2Secret = "00112233445566778899aabbccddeeff"
    public let v2AESKey = "000102030405060708090a0b0c0d0e0f"
    /// The HTTPS entry's token.
    public let token = "711886787"

    /// `baseURL` with `path` appended (e.g. `/fault/429`).
    public func url(_ path: String = "") -> URL { URL(string: baseURL.absoluteString + path)! }

    /// The request lines logged so far that contain `text`.
    public func requests(containing text: String) -> [String] {
        ((try? String(contentsOf: requestLog, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init).filter { $0.contains(text) }
    }

    /// Starts the server the first time (after the nginx/unbound servers, whose PKI it uses), off the
    /// cooperative pool.
    public static func shared() async throws -> ProviderTestServer {
        try await BackgroundScript.once(state) { try start() }
    }

    private static let state = Mutex<Task<ProviderTestServer, any Error>?>(nil)

    private static func start() throws -> ProviderTestServer {
        let servers = try TestServers.shared()
        let leaf = servers.leaf("dns.test")
        let log = servers.directory.appendingPathComponent("provider-requests.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let port = try BackgroundScript.start("provider-test-server.py", in: servers.directory) { _ in
            ["--cert", leaf.certificate.path, "--key", leaf.key.path, "--log", log.path]
        }
        return ProviderTestServer(port: port, baseURL: URL(string: "https://dns.test:\(port)")!, requestLog: log)
    }
}
