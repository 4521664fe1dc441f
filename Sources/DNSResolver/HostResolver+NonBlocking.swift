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
    /// `resolveHostSyncNonBlocking` (iOS) / `getHttpDnsResultForHostSyncNonBlocking` (Android) and
    /// Tencent HTTPDNS's `getAddrByNameAsync`; as theirs, the caller falls back to its own resolution
    /// when nil comes back.
    ///
    /// - Parameters:
    ///   - host: A host name or IP literal, as for `resolve(host:port:families:)`.
    ///   - port: The port the caller will connect to (static entries are per port).
    ///   - families: The families wanted; default the configured `families`.
    /// - Returns: The answer, or nil (a lookup has then been started).
    /// - Throws: `ResolutionError.invalidHostName`; a cached `.nameNotFound` or `.noAddresses`.
    public func resolveWithoutWaiting(host: String, port: Int = 443, families: AddressFamilies? = nil) throws -> HostResolution? {
        switch try answerAtOnce(host: host, port: port, families: families ?? configuration.families) {
        case .answered(let answer):
            return answer.resolution
        case .bypassed:
            return nil
        case .miss(let key, let started, let stale):
            configuration.observer?.cacheMiss(host: key.name)
            refreshInBackground(LookupCoalescer.Key(cacheKey: key, port: port), reason: stale == nil ? .miss : .stale)
            guard let stale else { return nil }
            return serve(stale, started: started, reason: .withoutWaiting)
        }
    }

    /// Resolves `host` and blocks the calling thread until the answer comes or `timeout` seconds pass,
    /// for callers that are not async (a C callback, a synchronous API). A cached answer returns at
    /// once without leaving the thread. After a timeout the lookup goes on and fills the cache.
    ///
    /// Replaces the vendor SDKs' synchronous lookups: Alibaba EMAS HTTPDNS's `resolveHostSync`
    /// (iOS) / `getHttpDnsResultForHostSync` (Android) and Tencent HTTPDNS's `getAddrByName`.
    ///
    /// - Warning: Blocks a thread. Never call it from async code or a Swift concurrency executor's
    ///   thread (it could wait on work that needs that thread); `await resolve(host:port:)` there.
    /// - Parameters:
    ///   - timeout: The longest wait, in seconds (serve-stale's client response timer may answer sooner).
    /// - Returns: As `resolve(host:port:families:)`.
    /// - Throws: As `resolve(host:port:families:)`; `ResolutionError.resolverUnavailable` saying
    ///   "no answer within N s" when the timeout passed first.
    public func resolveBlocking(host: String, port: Int = 443, families: AddressFamilies? = nil, timeout: TimeInterval) throws -> HostResolution {
        let families = families ?? configuration.families
        if case .answered(let answer) = try answerAtOnce(host: host, port: port, families: families) { return answer.resolution }
        let outcome = LockedValue<Result<HostResolution, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        // Not cancelled on a timeout: a task cancelled before it reached the lookup would never start it.
        Task {
            let result: Result<HostResolution, any Error>
            do { result = .success(try await self.resolve(host: host, port: port, families: families)) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        guard done.wait(timeout: .now() + max(0, timeout)) == .success, let result = outcome.withLock({ $0 }) else {
            // Only this wait ends: the lookup carries on and fills the cache.
            let name = HostName.normalize(host) ?? host
            throw ResolutionError.resolverUnavailable(host: name, reasons: ["no answer within \(Self.seconds(timeout)) s (the lookup goes on in the background)"])
        }
        return try result.get()
    }

    /// `seconds` for a message: whole numbers without a fraction.
    static func seconds(_ seconds: TimeInterval) -> String {
        seconds == seconds.rounded() && seconds < 1e15 ? String(Int(seconds)) : String(seconds)
    }
}
