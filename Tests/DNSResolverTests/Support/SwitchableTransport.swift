import DNSResolver
import Foundation
import HTTPDNSCore
import Synchronization

/// What a `ResolverHarness.switchable` transport does with the next requests.
enum TransportMode: Sendable {
    /// Answer from `ResolverHarness.zone`.
    case answer
    /// HTTP 503 from every endpoint.
    case fail
    /// Hold each request until the gate opens, then answer.
    case hold(Gate)
}

extension ResolverHarness {
    /// A harness whose transport follows `mode`, which the test changes as it goes.
    static func switchable(_ mode: LockedValue<TransportMode>, configure: (inout HostResolver.Configuration) -> Void = { _ in }) throws -> ResolverHarness {
        let transport = FakeDoHTransport { request in
            switch mode.withLock({ $0 }) {
            case .answer: break
            case .fail: return DoHHTTPResponse(status: 503, contentType: "text/plain", body: Data())
            case .hold(let gate): await gate.wait()
            }
            return ResolverHarness.zone.respond(to: request.query)
        }
        return try ResolverHarness(transport: transport) {
            $0.families = .ipv4
            $0.fallbackToSystemResolver = false
            configure(&$0)
        }
    }
}
