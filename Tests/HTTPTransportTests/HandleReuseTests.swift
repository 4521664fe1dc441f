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

    @Test(
        "state only a reset clears means a reset",
        arguments: [
            "failed", "resent", "proxy", "credentials", "cancelled", "connected", "auth"
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

    @Test("a held handle takes a list without a reset only when it holds the same options, and sets nothing of its very list")
    func heldOptions() {
        let list: [TransferOptions.Option] = [.noSignal, .httpVersion, .httpHeader]
        #expect(HandleReuse.application(held: nil, sameList: false, wanted: list) == .setAll)
        #expect(HandleReuse.application(held: list, sameList: true, wanted: list) == .bindOnly)
        #expect(HandleReuse.application(held: list, sameList: false, wanted: list) == .setAll)
        #expect(HandleReuse.application(held: list, sameList: false, wanted: [.noSignal, .httpVersion]) == .resetThenSetAll)
        #expect(HandleReuse.application(held: [.noSignal, .noBody], sameList: false, wanted: [.noBody, .noSignal]) == .resetThenSetAll)
        #expect(HandleReuse.application(held: [.noSignal], sameList: false, wanted: [.noSignal, .noBody]) == .resetThenSetAll)
    }

    @Test("a handle holding options is reset first for URL credentials")
    func credentialsReset() {
        #expect(HandleReuse.resetsBefore(heldOptions: true, urlCredentials: true))
        #expect(!HandleReuse.resetsBefore(heldOptions: false, urlCredentials: true))
        #expect(!HandleReuse.resetsBefore(heldOptions: true, urlCredentials: false))
    }
}
