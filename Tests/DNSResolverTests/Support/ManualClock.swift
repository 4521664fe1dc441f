import DNSResolver
import Foundation
import Synchronization

/// A clock that moves only when told to, so TTL expiry is tested without sleeping.
final class ManualClock: ResolverClock {
    private let time: Mutex<TimeInterval>

    init(_ start: TimeInterval = 1_000) {
        time = Mutex(start)
    }

    func now() -> TimeInterval { time.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        time.withLock { $0 += seconds }
    }
}
