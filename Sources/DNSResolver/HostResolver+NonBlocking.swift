import Dispatch
import Foundation
import HTTPDNSCore

extension HostResolver {
    /// The answer for `host` at once, never waiting: an IP literal, a static entry, or the cached
    /// answer (a stale one when `maximumStaleness` or `serveStale` allows it, with `isStale` set); on
    /// a miss, or with a stale or nearly expired answer, it starts a background lookup (shared with any
    /// under way), so that a later call finds the answer. Returns nil when nothing is known yet.
    ///
    /// Replaces the vendor SDKs' non-blocking lookups: Alibaba EMAS HTTPDNS's
    /// `resolveHostSyncNonBlocking:byIpType:` (iOS) / `getHttpDnsResultForHostSyncNonBlocking`
    /// (Android), and Tencent Cloud HTTPDNS's `getAddrByName` (Android, `MSDKDnsResolver`) with
    /// `DnsConfig.Builder.setUseExpiredIpEnable(true)`, which answers from the cache at once ("0;0"
    /// when nothing is cached) and looks up in the background. As with theirs, the caller falls back
    /// to its own resolution when nil comes back. A cached both-families answer also answers an
    /// IPv4-only or IPv6-only call with its addresses of that family.
    ///
    /// - Parameters:
    ///   - host: A host name or IP literal, as for `resolve(host:port:families:)`.
    ///   - port: The port the caller will connect to (static entries are per port).
    ///   - families: The families wanted; default the configured `families`.
    /// - Returns: The answer, or nil (a lookup has then been started).
    /// - Throws: `ResolutionError.invalidHostName`; a cached `.nameNotFound` or `.noAddresses`.
    public func resolveWithoutWaiting(host: String, port: Int = 443, families: AddressFamilies? = nil) throws -> HostResolution? {
        switch try answerAtOnce(host: host, port: port, families: families ?? configuration.families) {
        case .hit(let resolution, _):
            return resolution
        case .answered(let answer):
            return answer.resolution
        case .bypassed:
            return nil
        case .miss(let key, let started, let stale):
            configuration.observer?.cacheMiss(host: key.name)
            refreshInBackground(LookupCoalescer.Key(cacheKey: key, port: port), reason: stale == nil ? .miss : .stale)
            guard let stale else { return nil }
            return serve(stale, started: started, reason: .withoutWaiting).reported(to: configuration.observer)
        }
    }

    /// Resolves `host` and blocks the calling thread until the answer comes or `timeout` seconds pass,
    /// for callers that are not async (a C callback, a synchronous API). A cached answer returns at
    /// once without leaving the thread. After a timeout the lookup goes on and fills the cache; the
    /// observer is not told of a stale answer it gets then (the caller never had it).
    ///
    /// Replaces the vendor SDKs' synchronous lookups: Alibaba EMAS HTTPDNS's
    /// `resolveHostSync:byIpType:` (iOS) / `getHttpDnsResultForHostSync` (Android), and Tencent Cloud
    /// HTTPDNS's `getAddrByName` (Android, `MSDKDnsResolver`) as it works by default.
    ///
    /// - Warning: Blocks a thread. Never call it from async code or a Swift concurrency executor's
    ///   thread (it could wait on work that needs that thread); `await resolve(host:port:)` there.
    /// - Parameters:
    ///   - timeout: The longest wait, in seconds: 0 or more (0: only an answer known at once),
    ///     `.infinity` for no limit. Serve-stale's client response timer may answer sooner.
    /// - Returns: As `resolve(host:port:families:)`.
    /// - Throws: `InvalidDurationError` (setting `resolveBlocking(timeout:)`) when `timeout` is negative
    ///   or NaN (nothing is looked up);
    ///   otherwise as `resolve(host:port:families:)`, and `ResolutionError.resolverUnavailable`
    ///   saying "no answer within N s" when the timeout passed first.
    public func resolveBlocking(host: String, port: Int = 443, families: AddressFamilies? = nil, timeout: TimeInterval) throws -> HostResolution {
        try InvalidDurationError.check(timeout, .nonNegativeOrInfinity, setting: "resolveBlocking(timeout:)")
        let families = families ?? configuration.families
        let miss: (key: ResolutionCache.Key, started: TimeInterval, stale: Answer?)
        switch try answerAtOnce(host: host, port: port, families: families) {
        case .hit(let resolution, _):
            return resolution
        case .answered(let answer):
            return answer.resolution
        case .bypassed(let name, let families, let started):
            return try wait(for: timeout, host: name) { try await self.systemLookup(name, port: port, families: families, started: started) }
        case .miss(let key, let started, let stale):
            miss = (key, started, stale)
        }
        let served = try wait(for: timeout, host: miss.key.name) {
            try await self.providerLookup(miss.key, port: port, started: miss.started, stale: miss.stale)
        }
        return served.reported(to: configuration.observer)
    }

    /// What `body` returns or throws, if it does within `timeout` seconds of this blocked thread.
    /// - Throws: `ResolutionError.resolverUnavailable` for `host` when the time passed first; what
    ///   `body` returns after that is dropped.
    private func wait<T: Sendable>(for timeout: TimeInterval, host: String, _ body: @escaping @Sendable () async throws -> T) throws -> T {
        let delivery = LockedValue(BlockingDelivery<T>.waiting)
        let done = DispatchSemaphore(value: 0)
        // Not cancelled on a timeout: a task cancelled before it reached the lookup would never start it.
        Task {
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            let delivered = delivery.withLock { state -> Bool in
                guard case .waiting = state else { return false }
                state = .finished(result)
                return true
            }
            if delivered { done.signal() }
        }
        _ = done.wait(timeout: timeout.isFinite ? .now() + timeout : .distantFuture)
        // Decided under the lock: either the answer came in time and is the caller's, or it is dropped.
        let result = delivery.withLock { state -> Result<T, any Error>? in
            if case .finished(let result) = state { return result }
            state = .abandoned
            return nil
        }
        guard let result else {
            // Only this wait ends: the lookup carries on and fills the cache.
            throw ResolutionError.resolverUnavailable(host: host, reasons: ["no answer within \(Self.seconds(timeout)) s (the lookup goes on in the background)"])
        }
        return try result.get()
    }

    /// Where a blocked caller's answer stands: awaited, come, or come too late (dropped).
    private enum BlockingDelivery<T> {
        case waiting
        case finished(Result<T, any Error>)
        case abandoned
    }

    /// `seconds` for a message: whole numbers without a fraction.
    static func seconds(_ seconds: TimeInterval) -> String {
        seconds == seconds.rounded() && seconds < 1e15 ? String(Int(seconds)) : String(seconds)
    }
}
