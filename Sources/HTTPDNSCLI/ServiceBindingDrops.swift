import Foundation
import HTTPDNS
import HTTPDNSCore

/// Why the resolver dropped a name's HTTPS records (`ResolverObserver.serviceBindingsDropped`),
/// kept for probe: a resolution carries no records then, and no reason.
final class ServiceBindingDrops: Sendable {
    private let errors = LockedValue<[String: ServiceBindingError]>([:])

    func record(_ error: ServiceBindingError, host: String) { errors.withLock { $0[host] = error } }

    /// The last reason recorded for `host` (a normalized name), nil when none was.
    func error(for host: String) -> ServiceBindingError? { errors.withLock { $0[host] } }
}
