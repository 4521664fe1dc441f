import Testing
@testable import HTTPTransport

@Suite("Request deadlines")
struct RequestDeadlinesTests {
    let begin = ContinuousClock.now

    @Test("resolving is bounded by the shorter of the connect and total limits")
    func resolveLimit() {
        #expect(RequestDeadlines(given: Timeouts(connect: 10, total: 3), begin: begin).resolveLimit == 3)
        #expect(RequestDeadlines(given: Timeouts(connect: 2, total: 30), begin: begin).resolveLimit == 2)
        #expect(RequestDeadlines(given: Timeouts(connect: nil, total: nil), begin: begin).resolveLimit == nil)
    }

    @Test("what follows gets the total less the time spent, at least 1 ms; the connect limit stays whole")
    func remaining() {
        let deadlines = RequestDeadlines(given: Timeouts(connect: 10, total: 3, idle: 5), begin: begin)
        let later = deadlines.remaining(at: begin + .milliseconds(1250))
        #expect(abs(later.total! - 1.75) < 1e-9)
        #expect(later.connect == 10)
        #expect(later.idle == 5)
        #expect(deadlines.remaining(at: begin + .seconds(4)).total == 0.001)
        #expect(RequestDeadlines(given: Timeouts(connect: 10, total: nil), begin: begin).remaining(at: begin + .seconds(9)).total == nil)
    }

    @Test("the address race has the connect limit (libcurl's 300 s when none) within the total")
    func raceLimit() {
        #expect(RequestDeadlines.raceLimit(Timeouts(connect: 10, total: nil)) == 10)
        #expect(RequestDeadlines.raceLimit(Timeouts(connect: 10, total: 4)) == 4)
        #expect(RequestDeadlines.raceLimit(Timeouts(connect: nil, total: nil)) == 300)
    }

    @Test("libcurl's millisecond options get limits rounded up, at least 1, at most Int32.max")
    func milliseconds() {
        #expect(RequestDeadlines.curlMilliseconds(1.0001) == 1001)
        #expect(RequestDeadlines.curlMilliseconds(0.0001) == 1)
        #expect(RequestDeadlines.curlMilliseconds(-1) == 1)
        #expect(RequestDeadlines.curlMilliseconds(.infinity) == 1)
        #expect(RequestDeadlines.curlMilliseconds(1e12) == Int(Int32.max))
    }

    @Test("a queued transfer fails past its total, or past its connect limit while it has no connection")
    func queuedTransfer() {
        typealias R = RequestDeadlines
        #expect(R.queuedTransferLimitPassed(elapsed: 5, connect: 10, total: 4, waitingForConnection: false) == 4)
        #expect(R.queuedTransferLimitPassed(elapsed: 11, connect: 10, total: nil, waitingForConnection: true) == 10)
        #expect(R.queuedTransferLimitPassed(elapsed: 11, connect: 10, total: nil, waitingForConnection: false) == nil)
        #expect(R.queuedTransferLimitPassed(elapsed: 9, connect: 10, total: 20, waitingForConnection: true) == nil)
        #expect(R.queuedTransferLimitPassed(elapsed: 299, connect: nil, total: nil, waitingForConnection: true) == nil)
        #expect(R.queuedTransferLimitPassed(elapsed: 301, connect: nil, total: nil, waitingForConnection: true) == 300)
    }
}
