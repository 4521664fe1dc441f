import Foundation
import HTTPDNSCore
import Synchronization
import TLSTrust

/// POSTs pin reports as JSON (RFC 7469 §3) to their pin set's `reportURL`, at most once per
/// interval for the same host, presented chain and URL (TrustKit's rate limit), in the background.
final class PinReportUploader: Sendable {
    static let shared = PinReportUploader()

    /// When each report key was last sent, by `now()`.
    private let sent = LockedValue<[String: Date]>([:])
    private let now: @Sendable () -> Date

    init(now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
    }

    /// True when the report was queued; false when an identical one went out within `interval`.
    @discardableResult
    func upload(_ report: PinReport, to url: URL, client: HTTPClient, interval: Double) -> Bool {
        let key = ([report.host, String(report.port), url.absoluteString] + report.presentedChain.map(\.publicKeyPin.description)).joined(separator: "|")
        let moment = now()
        let due = sent.withLock { sent -> Bool in
            if let last = sent[key], moment.timeIntervalSince(last) < interval { return false }
            sent[key] = moment
            // Bound the table: forget reports older than the interval.
            if sent.count > 1_000 { sent = sent.filter { moment.timeIntervalSince($0.value) < interval } }
            return true
        }
        guard due else { return false }
        var request = HTTPRequest(url: url, method: "POST", headers: ["Content-Type": "application/json"], body: .data(report.jsonBody()))
        request.timeouts = Timeouts(connect: 10, total: 30)
        Task.detached {
            // Best effort: a report that cannot be delivered is dropped.
            _ = try? await client.execute(request)
        }
        return true
    }
}
