// Workload 1's FoundationNetworking peer: URLSession against the same nginx.
//
// On Linux URLSession can neither be given a custom CA (URLSessionCertificateAuthorityInfoFile is
// Android-only) nor be told to connect elsewhere, so it runs as a child process (this binary,
// re-executed with `--urlsession-peer`) in a private mount namespace (`unshare -m`, root) where
// the test CA bundle is bind-mounted over /etc/ssl/certs/ca-certificates.crt (libcurl's default
// CAINFO on Debian) and a hosts file mapping the test names to 127.0.0.1 over /etc/hosts. The
// network namespace stays the host's, so nginx on loopback is reachable. Before measuring, the
// child checks that verification is really on: a.test must answer, wrong.test (a certificate for
// another name) and self-signed.test (a root not in the bundle) must be refused.
import Foundation
import FoundationNetworking
import TestSupport

enum URLSessionPeer {
    static let childFlag = "--urlsession-peer"

    struct Measurement {
        /// Requests per second.
        let rate: Double
        /// The request line nginx logged for the last request (it names the HTTP version).
        let requestLine: String
        /// What the child reported about its verification checks.
        let verification: String
    }

    enum Failure: Error, CustomStringConvertible {
        case child(String)
        var description: String {
            switch self {
            case .child(let text): "URLSession peer failed: \(text)"
            }
        }
    }

    /// Runs `count` GETs of https://a.test:PORT/ through URLSession, `width` at a time, in a child
    /// process inside a mount namespace (see the file comment).
    static func measure(servers: TestServers, count: Int, width: Int) throws -> Measurement {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-bench-ns-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let hosts = directory.appendingPathComponent("hosts")
        try "127.0.0.1 localhost a.test wrong.test self-signed.test\n".write(to: hosts, atomically: true, encoding: .utf8)
        let binary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let script = """
            set -e
            mount --bind '\(servers.caCertificate.path)' /etc/ssl/certs/ca-certificates.crt
            mount --bind '\(hosts.path)' /etc/hosts
            exec '\(binary)' \(childFlag) \(servers.httpsPort) \(count) \(width)
            """
        let result = try Command.run(
            URL(fileURLWithPath: "/usr/bin/unshare"),
            ["-m", "--propagation", "private", "/bin/bash", "-c", script], timeout: 600)
        guard result.status == 0 else { throw Failure.child("exit \(result.status): \(result.stderrText)") }
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        guard let rateLine = lines.first(where: { $0.hasPrefix("rate ") }), let rate = Double(rateLine.dropFirst(5)) else {
            throw Failure.child("no rate in \(result.stdoutText)")
        }
        let log = (try? String(contentsOf: servers.nginxAccessLog, encoding: .utf8)) ?? ""
        let last = log.split(separator: "\n").last { $0.contains("host=a.test") }.map(String.init) ?? ""
        let requestLine = last.split(separator: "\"").dropFirst().first.map(String.init) ?? "?"
        return Measurement(
            rate: rate, requestLine: requestLine,
            verification: lines.filter { $0.hasPrefix("verified ") }.joined(separator: "; "))
    }

    /// The child: `--urlsession-peer PORT COUNT WIDTH`. Prints `verified ...` lines, then `rate R`.
    static func runChild(_ arguments: [String]) async throws {
        guard let index = arguments.firstIndex(of: childFlag), arguments.count > index + 3,
            let port = Int(arguments[index + 1]), let count = Int(arguments[index + 2]), let width = Int(arguments[index + 3])
        else {
            throw Failure.child("usage: \(childFlag) PORT COUNT WIDTH")
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = width
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration)
        let url = URL(string: "https://a.test:\(port)/")!

        // Verification must be on: the right name passes, a wrong name and an unknown root fail.
        let body = try await fetch(session, url)
        guard body == Data("vhost=a.test\n".utf8) else { throw Failure.child("a.test answered \(String(decoding: body, as: UTF8.self))") }
        for refused in ["wrong.test", "self-signed.test"] {
            do {
                _ = try await fetch(session, URL(string: "https://\(refused):\(port)/")!)
                throw Failure.child("\(refused) was accepted: certificate verification is off")
            } catch let error as URLError {
                print("verified \(refused) refused (URLError \(error.code.rawValue): \(error.localizedDescription))")
            }
        }

        let start = DispatchTime.now().uptimeNanoseconds
        try await Lanes.run(count: count, width: width) { _ = try await fetch(session, url) }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        print("rate \(Double(count) / seconds)")
    }

    private static func fetch(_ session: URLSession, _ url: URL) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: url) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else if let status = (response as? HTTPURLResponse)?.statusCode, status != 200 {
                    continuation.resume(throwing: Failure.child("HTTP \(status) from \(url)"))
                } else {
                    continuation.resume(returning: data ?? Data())
                }
            }.resume()
        }
    }
}
