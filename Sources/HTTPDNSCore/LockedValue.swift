import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// A value behind a pthread mutex, for state that several threads touch briefly.
///
/// Used instead of `Synchronization.Mutex`, whose contended futex wait ThreadSanitizer does not
/// model (every access under it would be reported as a race), and instead of `NSLock`, whose class
/// dispatch costs on the cached lookup's path.
package final class LockedValue<Value>: @unchecked Sendable { // every access to `value` holds `mutex`
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Only touched with `mutex` held, so the lock already gives the exclusivity that Swift would
    /// check at run time on every access (two atomic operations on the cached lookup's path).
    @exclusivity(unchecked) private var value: Value

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

    /// `body` with the lock held, when the lock is free (pthread_mutex_trylock); nil, without
    /// waiting or running `body`, when another thread holds it.
    package func withLockIfAvailable<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
