import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// The time source cache expiry is measured against. Injected so tests can move time without sleeping.
public protocol ResolverClock: Sendable {
    /// Seconds since an arbitrary fixed origin; never goes backwards.
    func now() -> TimeInterval

    /// Returns when `seconds` have passed on this clock (RFC 8767's client response timer waits here).
    /// The default sleeps for real (`Task.sleep`); a test clock returns when its time is moved on.
    /// - Throws: `CancellationError` when the task is cancelled first.
    func sleep(for seconds: TimeInterval) async throws
}

extension ResolverClock {
    public func sleep(for seconds: TimeInterval) async throws {
        try await sleepForSeconds(seconds)
    }
}

/// `Task.sleep` for `seconds`: 0 when negative or NaN, until cancelled when infinite. A `Duration`
/// made from an infinite or very large number of seconds traps, so a long sleep is taken in parts.
func sleepForSeconds(_ seconds: TimeInterval) async throws {
    var left = seconds.isNaN ? 0 : max(0, seconds)
    repeat {
        let part = min(left, 1e9) // about 31 years
        try await Task.sleep(for: .seconds(part))
        left -= part
    } while left > 0
}

/// The system's monotonic clock.
///
/// Reads `CLOCK_BOOTTIME` rather than `CLOCK_MONOTONIC`: both are monotonic, but only `CLOCK_BOOTTIME`
/// keeps counting while the machine is suspended, and a TTL is a span of real time, so an answer cached
/// before a suspend must not outlive its TTL after resume.
public struct MonotonicClock: ResolverClock {
    public init() {}

    public func now() -> TimeInterval { Self.now() }

    static func now() -> TimeInterval {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return TimeInterval(time.tv_sec) + TimeInterval(time.tv_nsec) / 1_000_000_000
    }
}
