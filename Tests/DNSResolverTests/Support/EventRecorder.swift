import DNSResolver
import Foundation
import HTTPDNSCore
import Synchronization

/// A `ResolverObserver` that keeps one line per event, to assert on.
final class EventRecorder: ResolverObserver {
    private let log = LockedValue<[String]>([])
    var events: [String] { log.withLock { $0 } }
    private func add(_ line: String) { log.withLock { $0.append(line) } }

    func cacheHit(host: String, resolution: HostResolution) { add("hit \(host)") }
    func negativeCacheHit(host: String, error: ResolutionError) { add("negative hit \(host)") }
    func cacheMiss(host: String) { add("miss \(host)") }
    func staleAnswerServed(host: String, resolution: HostResolution, expiredFor: TimeInterval) { add("stale \(host) \(Int(expiredFor))") }
    func refreshStarted(host: String, reason: RefreshReason) { add("refresh \(host) \(reason.rawValue)") }
    func providerAnswered(host: String, provider: String, endpoint: URL, latency: TimeInterval, answer: DoHClient.Answer) { add("answer \(host) \(provider) \(endpoint.host() ?? "")") }
    func endpointFailed(host: String, provider: String, endpoint: URL, reason: String, latency: TimeInterval) { add("failed \(host) \(endpoint.host() ?? "")") }
    func endpointSkipped(host: String, endpoint: URL, consecutiveFailures: Int, retryAfter: TimeInterval) { add("skipped \(host) \(endpoint.host() ?? "") \(consecutiveFailures)") }
    func fellBackToSystemResolver(host: String, reasons: [String]) { add("fallback \(host)") }
    func bypassed(host: String) { add("bypass \(host)") }
    func warning(_ message: String) { add("warning \(message)") }
    func serviceBindingsDropped(host: String, error: ServiceBindingError) { add("bindings dropped \(host): \(error)") }
}
