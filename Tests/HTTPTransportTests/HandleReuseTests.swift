import Testing
@testable import HTTPTransport

@Suite("Handle reuse rule")
struct HandleReuseTests {
    /// A plain request that succeeded on a reused connection.
    let plain = HandleReuse.Facts(succeeded: true)

    @Test("a plain request that succeeded on a reused connection keeps its options")
    func plainKeepsOptions() {
        #expect(HandleReuse.decide(plain) == .keepOptions)
    }

    @Test("a transfer libcurl may have queued is cleaned up, whatever else it did")
    func queuedIsCleanedUp() {
        var facts = plain
        facts.oversubscribedMeanwhile = true
        #expect(HandleReuse.decide(facts) == .cleanUp)
        facts = plain
        facts.besideConnectionSetUp = true
        #expect(HandleReuse.decide(facts) == .cleanUp)
        facts.succeeded = false
        #expect(HandleReuse.decide(facts) == .cleanUp)
    }

    @Test("a handle that grew (a body sent, a head over 16 KiB) or stayed in the share handle is cleaned up")
    func grownIsCleanedUp() {
        var facts = plain
        facts.sentBody = true
        #expect(HandleReuse.decide(facts) == .cleanUp)
        facts = plain
        facts.headBytes = HandleReuse.largestKeptHead + 1
        #expect(HandleReuse.decide(facts) == .cleanUp)
        facts.headBytes = HandleReuse.largestKeptHead
        #expect(HandleReuse.decide(facts) == .keepOptions)
        facts = plain
        facts.leftShare = false
        #expect(HandleReuse.decide(facts) == .cleanUp)
    }

    @Test("state only a reset clears means a reset", arguments: [
        "failed", "resent", "proxy", "credentials", "cancelled", "connected", "auth",
    ])
    func resetOnlyState(_ fact: String) {
        var facts = plain
        switch fact {
        case "failed": facts.succeeded = false
        case "resent": facts.sendAttempts = 2
        case "proxy": facts.viaProxy = true
        case "credentials": facts.urlCredentials = true
        case "cancelled": facts.cancelled = true
        case "connected": facts.connectionsOpened = 1
        default: facts.authOffered = true
        }
        #expect(HandleReuse.decide(facts) == .reset)
    }

    @Test("a held handle serves only the same options, and is reset first for URL credentials")
    func heldOptions() {
        #expect(HandleReuse.keepsHeld([1, 2, 3], for: [1, 2, 3]))
        #expect(!HandleReuse.keepsHeld([1, 2, 3], for: [1, 2]))
        #expect(!HandleReuse.keepsHeld([1, 2], for: [2, 1]))
        #expect(HandleReuse.resetsBefore(held: [1], urlCredentials: true))
        #expect(!HandleReuse.resetsBefore(held: nil, urlCredentials: true))
        #expect(!HandleReuse.resetsBefore(held: [1], urlCredentials: false))
    }
}
