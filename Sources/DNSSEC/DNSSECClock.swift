#if canImport(Glibc)
    import Glibc
#endif

/// The wall clock signature validity windows are checked against (RFC 4034 §3.1.5). Injected so tests
/// can judge signatures at any moment without waiting or re-signing.
public protocol DNSSECClock: Sendable {
    /// Seconds since 1970-01-01 00:00:00 UTC.
    func secondsSince1970() -> Int64
}

/// The system's real-time clock (`CLOCK_REALTIME`).
public struct SystemDNSSECClock: DNSSECClock {
    /// The system clock.
    public init() {}

    /// Seconds since 1970-01-01 UTC, from `clock_gettime(CLOCK_REALTIME)`.
    public func secondsSince1970() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec)
    }
}

/// A clock that always reads the same moment, for tests and for judging data as of a given time.
public struct FixedDNSSECClock: DNSSECClock {
    /// The moment, in seconds since 1970-01-01 UTC.
    public var now: Int64

    /// A clock stopped at `now` (seconds since 1970-01-01 UTC).
    public init(_ now: Int64) {
        self.now = now
    }

    /// `now`.
    public func secondsSince1970() -> Int64 { now }
}
