// A bounded loop of real requests for LeakSanitizer (scripts/sanitize.sh leaks): IP-direct HTTPS
// through a DoH resolver against the test servers (scripts/test-servers.sh), cold and warm, HTTP/1.1
// and HTTP/2, failures included, and the CLI's fetch in-process. Built with -sanitize=address; at
// exit LeakSanitizer reports memory no longer reachable. Exits 1 if a request did not end as expected.
//
//   httpdns-leakcheck --doh-url URL --cacert FILE --port HTTPS_PORT [--requests N]
import Foundation
import FuzzedCLI
import HTTPDNS

let arguments = CommandLine.arguments
func option(_ name: String) -> String? { arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil } }
guard let dohURL = option("--doh-url").flatMap(URL.init(string:)), let caPath = option("--cacert"), let port = option("--port") else {
    FileHandle.standardError.write(Data("usage: httpdns-leakcheck --doh-url URL --cacert FILE --port HTTPS_PORT [--requests N]\n".utf8))
    exit(2)
}
let requests = option("--requests").flatMap(Int.init) ?? 1_000
let ca = try Certificate.certificates(contentsOf: URL(fileURLWithPath: caPath))
let dohPort = dohURL.port.map(String.init) ?? "443"
let quiet = Console(output: { _ in }, error: { _ in })

var done = 0, ok = 0, expectedFailures = 0, unexpected: [String] = []
// Rounds of 100 requests, each round with a new resolver and client: cold DoH lookups, new
// connections and TLS sessions, then keep-alive reuse; the HTTP version alternates per round.
while done < requests {
    let round = done / 100
    let resolver = try HostResolver(
        configuration: {
            var configuration = HostResolver.Configuration(endpoints: [DoHEndpoint(url: dohURL, bootstrapAddresses: [IPAddress("127.0.0.1")!])])
            configuration.fallbackToSystemResolver = false
            return configuration
        }(),
        dohTrust: .anchors(ca))
    let client = try HTTPClient(configuration: .init(trust: .anchors(ca), httpVersion: round % 2 == 0 ? .http2 : .http1_1), resolver: resolver)
    for index in 0..<min(100, requests - done) {
        done += 1
        switch index % 25 {
        case 5:
            // The CLI end to end in-process: options, its own resolver and client, output to a sink.
            let status = await HTTPDNSTool.run(
                [
                    "fetch", "-s", "--doh-url", dohURL.absoluteString, "--resolve", "dns.test:\(dohPort):127.0.0.1",
                    "--cacert", caPath, "https://www.a.test:\(port)/"
                ], console: quiet)
            if status == 0 { ok += 1 } else { unexpected.append("CLI fetch exited \(status)") }
        case 10:
            // NXDOMAIN: the resolution error path.
            do {
                _ = try await client.execute(HTTPRequest(url: URL(string: "https://missing.test:\(port)/")!))
                unexpected.append("missing.test answered")
            } catch { expectedFailures += 1 }
        case 20:
            // A certificate that does not match the name: the TLS failure path.
            do {
                var request = HTTPRequest(url: URL(string: "https://a.test:\(port)/")!)
                request.headers.add(name: "X-Leakcheck", value: String(index))
                _ = try await HTTPClient(configuration: .init(trust: .system), resolver: resolver).execute(request)
                unexpected.append("a.test verified against the system roots")
            } catch { expectedFailures += 1 }
        default:
            do {
                let response = try await client.execute(HTTPRequest(url: URL(string: "https://a.test:\(port)/")!))
                if response.status == 200 { ok += 1 } else { unexpected.append("status \(response.status)") }
            } catch {
                unexpected.append("\(error)")
            }
        }
    }
}
print("httpdns-leakcheck: \(done) requests: \(ok) succeeded, \(expectedFailures) failed as expected, \(unexpected.count) unexpected")
for line in Set(unexpected).sorted().prefix(10) { print("  unexpected: \(line)") }
// LeakSanitizer reports from an exit handler and ends the process with _exit: flush first.
fflush(nil) // every stream
exit(unexpected.isEmpty ? 0 : 1)
