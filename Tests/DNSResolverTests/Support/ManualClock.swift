import DNSResolver
import Foundation
import HTTPDNSCore
import Synchronization

/// A clock that moves only when told to, so TTL expiry is tested without sleeping.
final class ManualClock: ResolverClock {
    private let time: LockedValue<TimeInterval>

    init(_ start: TimeInterval = 1_000) {
        time = LockedValue(start)
    }

    func now() -> TimeInterval { time.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        time.withLock { $0 += seconds }
    }
}
