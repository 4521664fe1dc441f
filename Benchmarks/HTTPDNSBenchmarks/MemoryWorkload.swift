// Workload 5: memory over many keep-alive requests. Peak RSS (VmHWM) over the whole run, and RSS
// (VmRSS) after the first `checkpoint` requests against RSS after all of them: a steady state
// must not grow (target: within 5 MB).
import Foundation
import HTTPDNS
import TestSupport

enum MemoryWorkload {
    struct Report {
        let requests: Int
        let checkpoint: Int
        /// VmRSS in kB after `checkpoint` requests and after all of them.
        let rssAtCheckpoint: Int
        let rssAtEnd: Int
        /// VmHWM in kB at the end: the peak RSS since the workload started (reset through clear_refs).
        let peak: Int
        /// VmRSS in kB before the first request.
        let rssBefore: Int
        let seconds: Double
    }

    /// `VmRSS` and `VmHWM` of this process, in kB (/proc/self/status).
    static func residentSet() -> (current: Int, peak: Int) {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
        func value(_ key: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") }) else { return 0 }
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.map { $0.trimmingCharacters(in: .whitespaces) } ?? "") ?? 0
        }
        return (value("VmRSS"), value("VmHWM"))
    }

    /// `total` GETs of https://a.test/ through one client, `width` at a time.
    static func run(
        servers: TestServers, ca: [Certificate], total: Int, checkpoint: Int, width: Int,
        version: HTTPVersionPreference
    ) async throws -> Report {
        let client = try Ours.client(servers: servers, ca: ca, version: version)
        let request = HTTPRequest(url: servers.httpsURL("a.test"))
        // Writing 5 to clear_refs resets VmHWM (Linux 4.0+), so the peak is this workload's, not
        // the earlier workloads' or the test servers' setup.
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        let before = residentSet().current
        let start = DispatchTime.now().uptimeNanoseconds
        try await lanes(client: client, request: request, count: min(checkpoint, total), width: width)
        let atCheckpoint = residentSet().current
        try await lanes(client: client, request: request, count: max(0, total - checkpoint), width: width)
        let end = residentSet()
        return Report(
            requests: total, checkpoint: checkpoint, rssAtCheckpoint: atCheckpoint, rssAtEnd: end.current,
            peak: end.peak, rssBefore: before, seconds: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }

    private static func lanes(client: HTTPClient, request: HTTPRequest, count: Int, width: Int) async throws {
        try await Lanes.run(count: count, width: width) {
            let response = try await client.execute(request)
            guard response.status == 200 else { throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "HTTP \(response.status)"]) }
        }
    }

    static func print(_ report: Report, version: HTTPVersionPreference) {
        let growth = Double(report.rssAtEnd - report.rssAtCheckpoint) / 1024
        Swift.print("== memory: \(report.requests) requests, 16 concurrent, \(version == .http2 ? "HTTP/2" : "HTTP/1.1") (\(String(format: "%.1f", report.seconds)) s)")
        Swift.print(String(format: "   RSS before the first request:  %7.1f MB", Double(report.rssBefore) / 1024))
        Swift.print(String(format: "   RSS after %6d requests:     %7.1f MB", report.checkpoint, Double(report.rssAtCheckpoint) / 1024))
        Swift.print(String(format: "   RSS after %6d requests:     %7.1f MB   (%+.1f MB; target within 5 MB)", report.requests, Double(report.rssAtEnd) / 1024, growth))
        Swift.print(String(format: "   peak RSS (VmHWM) during the run: %5.1f MB", Double(report.peak) / 1024))
        Swift.print("")
    }
}
