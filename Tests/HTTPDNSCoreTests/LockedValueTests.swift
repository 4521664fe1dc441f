import Foundation
import HTTPDNSCore
import Testing

@Suite("LockedValue")
struct LockedValueTests {
    @Test("withLockIfAvailable runs its body on a free lock and gives its result")
    func freeLockRunsTheBody() {
        let value = LockedValue(1)
        #expect(
            value.withLockIfAvailable { number -> Int in
                number += 1
                return number
            } == 2)
        #expect(value.withLock { $0 } == 2)
    }

    @Test("withLockIfAvailable gives nil at once, its body not run, while another thread holds the lock")
    func heldLockIsNotWaitedFor() {
        let value = LockedValue(0)
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = Thread {
            value.withLock { _ in
                held.signal()
                release.wait()
            }
        }
        holder.start()
        held.wait()
        let result = value.withLockIfAvailable { number -> Int in
            number = 99
            return number
        }
        release.signal()
        #expect(result == nil)
        #expect(value.withLock { $0 } == 0)
    }
}
