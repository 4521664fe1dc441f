#if canImport(Glibc)
    import Glibc
#endif

/// The lock over the transfer loop's state (its multi handles, epoll registrations and transfers
/// in flight): held by the loop thread while it runs libcurl, and by a caller's thread that starts
/// its own transfer while the loop sleeps (`TransferEngine.submit`). A pthread mutex, which
/// ThreadSanitizer sees, with a try-lock: a caller never waits for the loop, it queues instead.
final class LoopStateLock: @unchecked Sendable { // a pthread mutex, used only through its calls
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    /// - Returns: true when the lock was free and is now held.
    func tryLock() -> Bool { pthread_mutex_trylock(mutex) == 0 }

    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}
