import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A value behind a pthread mutex, for state that several threads touch briefly.
///
/// Used instead of `Synchronization.Mutex` throughout the package: `Mutex` waits in the kernel
/// (futex) when contended, which ThreadSanitizer does not see, so every access under it is reported
/// as a race; a pthread mutex it models, so `scripts/sanitize.sh thread` needs no suppression for
/// our own code. The mutex is used directly rather than through `NSLock`, whose class dispatch
/// showed in the cached lookup's time (it takes two of these locks).
package final class LockedValue<Value>: @unchecked Sendable {  // every access to `value` holds `mutex`
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
