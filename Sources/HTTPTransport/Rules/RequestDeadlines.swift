import Foundation

/// Where one request's time limits (`Timeouts`) apply as it goes: resolving, the Happy Eyeballs
/// race, then the transfer, which gets what is left of the total (CURLOPT_TIMEOUT_MS). Every
/// deadline the client computes comes from here; `TimeoutMessage` words the failures.
struct RequestDeadlines {
    /// libcurl's connect limit when none is set (CURLOPT_CONNECTTIMEOUT's default), in seconds.
    static let libcurlConnectDefault: Double = 300

    /// The request's limits, as given (the request's own or the client's).
    let given: Timeouts
    /// When the request started.
    let begin: ContinuousClock.Instant

    /// The longest resolving may take, in seconds: the connect limit or the total, whichever is
    /// shorter (curl counts the name resolve in CURLOPT_CONNECTTIMEOUT's phase); nil: no limit.
    var resolveLimit: Double? { [given.connect, given.total].compactMap { $0 }.min() }

    /// The limits for what starts at `now`: the total less the time spent since `begin` (at least
    /// 1 ms, so that a spent total still fails as a time-out), the others as given. The connect
    /// limit is not shortened: a cold DoH lookup would otherwise leave a slow connection too
    /// little of it (`Timeouts.connect`).
    func remaining(at now: ContinuousClock.Instant) -> Timeouts {
        var limits = given
        if let total = given.total { limits.total = max(0.001, total - (now - begin).seconds) }
        return limits
    }

    /// The Happy Eyeballs race's limit under `limits`, in seconds: the connect limit (libcurl's
    /// default when none) within the total.
    static func raceLimit(_ limits: Timeouts) -> Double {
        min(limits.connect ?? libcurlConnectDefault, limits.total ?? .infinity)
    }

    /// A limit in seconds as libcurl's millisecond options take it (CURLOPT_TIMEOUT_MS,
    /// CURLOPT_CONNECTTIMEOUT_MS): rounded up, at least 1, at most `Int32.max`.
    static func curlMilliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 1 }
        return Int(min(seconds * 1000, Double(Int32.max)).rounded(.up))
    }

    /// The engine's verdict on a transfer libcurl may hold in a queue without timing it out (Documentation/LibcurlNotes.md #4)
    /// (waiting for a free connection under CURLMOPT_MAX_HOST_CONNECTIONS, or to multiplex on a
    /// connection another transfer is opening, CURLOPT_PIPEWAIT): past its total limit, or still
    /// without a connection past its connect limit (libcurl's default when none), both counted
    /// from its start. - Returns: the limit it passed, or nil while it is within both.
    static func queuedTransferLimitPassed(elapsed: Double, connect: Double?, total: Double?, waitingForConnection: Bool) -> Double? {
        if let total, elapsed > total { return total }
        let connect = connect ?? libcurlConnectDefault
        if waitingForConnection, elapsed > connect { return connect }
        return nil
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
