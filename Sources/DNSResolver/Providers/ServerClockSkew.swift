import Foundation
import Synchronization

/// How far each vendor service's clock is ahead of this machine's, learned from the `Date` field of
/// its responses, so that signatures that expire (`t`, `exp`) are reckoned by the clock that judges
/// them. Alibaba's documents allow 150 s of skew and say to correct from `Date` ("服务IP调度接口":
/// "客户端和服务器时间偏移需小于150秒,您可以根据响应头中的Date进行校准").
///
/// Kept per endpoint URL, for the process (the local clock is the process's): one service's clock
/// never moves another's signatures.
final class ServerClockSkew: Sendable {
    /// The process's store, which the endpoints use.
    static let shared = ServerClockSkew()

    /// A measured skew under this many seconds is recorded as none: `Date` has one-second
    /// resolution and the answer spent a round trip on the way.
    static let noise: TimeInterval = 5

    private let skews = Mutex<[String: TimeInterval]>([:])

    /// Seconds `endpoint`'s clock is ahead of this machine's (negative: behind); 0 until learned.
    func skew(for endpoint: URL) -> TimeInterval {
        skews.withLock { $0[endpoint.absoluteString] ?? 0 }
    }

    /// Records the skew that `dateField` (a `Date` header received at `now`) shows, and returns the
    /// skew now recorded: unchanged when the field is absent or not an HTTP date.
    @discardableResult
    func learn(dateField: String?, for endpoint: URL, now: Date) -> TimeInterval {
        let key = endpoint.absoluteString
        guard let serverTime = HTTPDate.parse(dateField) else { return skews.withLock { $0[key] ?? 0 } }
        let measured = serverTime.timeIntervalSince(now).rounded()
        let skew = abs(measured) < Self.noise ? 0 : measured
        skews.withLock { $0[key] = skew }
        return skew
    }
}
