import Foundation

/// A value behind a pthread mutex (`NSLock`), for state that several threads touch briefly.
///
/// Used instead of `Synchronization.Mutex` throughout the package: `Mutex` waits in the kernel
/// (futex) when contended, which ThreadSanitizer does not see, so every access under it is reported
/// as a race; a pthread mutex it models, so `scripts/sanitize.sh thread` needs no suppression for
/// our own code.
package final class LockedValue<Value>: @unchecked Sendable {  // every access to `value` holds `lock`
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
