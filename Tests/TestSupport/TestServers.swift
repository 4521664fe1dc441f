import Foundation

/// The real nginx and unbound that integration tests talk to, as started by
/// `scripts/test-servers.sh` (which documents the virtual hosts, the zone `test.` and the PKI).
///
/// - `https://NAME:httpsPort/` with NAME one of `a.test`, `www.a.test`, `b.test`, `localhost`,
///   `wrong.test` (presents the `other.test` certificate) and anything else (`default.test`);
///   every name resolves to 127.0.0.1 (and ::1 when `ipv6Available`).
/// - DNS-over-HTTPS at `dohURL` (`https://dns.test:dohPort/dns-query`, HTTP/2 only), reached at
///   127.0.0.1; `caCertificate` verifies both.
public struct TestServers: Sendable {
    /// Where the servers keep their configuration, logs, PKI and `servers.env`.
    public let directory: URL
    /// The TLS port of every virtual host (HTTP/1.1 and HTTP/2 by ALPN), on 127.0.0.1 and ::1.
    public let httpsPort: Int
    /// The same virtual hosts without TLS, chosen by the Host header.
    public let httpPort: Int
    /// unbound's DNS-over-HTTPS port on 127.0.0.1.
    public let dohPort: Int
    /// unbound's plain DNS port (UDP and TCP) on 127.0.0.1.
    public let dnsPort: Int
    /// `https://dns.test:<dohPort>/dns-query`; dns.test is at 127.0.0.1.
    public let dohURL: URL
    /// The PEM root CA ("httpdns Test Root CA") that signed every served certificate.
    public let caCertificate: URL
    /// A PEM root CA ("httpdns Other CA") that signed nothing the servers present.
    public let otherCACertificate: URL
    /// The PKI: `ca.pem`, `other-ca.pem`, and `NAME.pem` / `NAME.key` for every leaf.
    public let pkiDirectory: URL
    /// Whether nginx also listens on [::1].
    public let ipv6Available: Bool
    /// The 16 MiB file nginx serves at `/large`.
    public let largeFile: URL
    /// nginx's access log: one line per request with `sni=`, `host=`, `conn=` and `reqs=`.
    public let nginxAccessLog: URL
    /// The bodies POSTed to any virtual host's `/collect/...`: one line per request, its path, a
    /// space, then the body as it came (nginx writes it when the request is done).
    public let nginxBodyLog: URL
    /// unbound's log: one line per query it answered.
    public let unboundLog: URL
    /// Every `KEY=value` of `servers.env`.
    public let environment: [String: String]

    /// Reads the servers that `scripts/test-servers.sh start DIRECTORY` started.
    /// - Throws: `TestServersError.badEnvironment` when `servers.env` is missing or incomplete.
    public init(directory: URL) throws(TestServersError) {
        let file = directory.appendingPathComponent("servers.env")
        guard let text = try? String(contentsOf: file, encoding: .utf8) else {
            throw TestServersError.badEnvironment(file: file.path, key: "servers.env", value: nil)
        }
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }

        func string(_ key: String) throws(TestServersError) -> String {
            guard let value = values[key], !value.isEmpty else {
                throw TestServersError.badEnvironment(file: file.path, key: key, value: nil)
            }
            return value
        }
        func port(_ key: String) throws(TestServersError) -> Int {
            let value = try string(key)
            guard let port = Int(value), (1...65535).contains(port) else {
                throw TestServersError.badEnvironment(file: file.path, key: key, value: value)
            }
            return port
        }
        func path(_ key: String) throws(TestServersError) -> URL { URL(fileURLWithPath: try string(key)) }

        self.directory = directory
        httpsPort = try port("HTTPS_PORT")
        httpPort = try port("HTTP_PORT")
        dohPort = try port("DOH_PORT")
        dnsPort = try port("DNS_PORT")
        let doh = try string("DOH_URL")
        guard let dohURL = URL(string: doh) else {
            throw TestServersError.badEnvironment(file: file.path, key: "DOH_URL", value: doh)
        }
        self.dohURL = dohURL
        caCertificate = try path("CA_CERT")
        otherCACertificate = try path("OTHER_CA_CERT")
        pkiDirectory = try path("PKI_DIR")
        ipv6Available = try string("IPV6") == "1"
        largeFile = try path("LARGE_FILE")
        nginxAccessLog = try path("NGINX_ACCESS_LOG")
        nginxBodyLog = try path("NGINX_BODY_LOG")
        unboundLog = try path("UNBOUND_LOG")
        environment = values
    }

    /// The TLS port (nginx's svc.test block, on 127.0.0.1 and 127.0.0.51) that the HTTPS records of
    /// `port.svc.test`, `target.svc.test` and the other names of `write_port_records` name.
    public var serviceBindingPort: Int? { environment["SVCB_PORT"].flatMap { Int($0) } }

    /// `https://HOST:httpsPort/PATH` (`path` starts with "/").
    public func httpsURL(_ host: String, path: String = "/") -> URL {
        URL(string: "https://\(host):\(httpsPort)\(path)")!
    }

    /// `http://HOST:httpPort/PATH` (`path` starts with "/").
    public func httpURL(_ host: String, path: String = "/") -> URL {
        URL(string: "http://\(host):\(httpPort)\(path)")!
    }

    /// The PEM certificate and key of the leaf named `name` (`a.test`, `other-ca-a.test`, ...).
    public func leaf(_ name: String) -> (certificate: URL, key: URL) {
        (pkiDirectory.appendingPathComponent("\(name).pem"), pkiDirectory.appendingPathComponent("\(name).key"))
    }
}
