import Testing
import HTTPDNSCore
@testable import HTTPTransport

@Suite("Time-out messages")
struct TimeoutMessageTests {
    let addresses = [IPAddress("192.0.2.1")!, IPAddress("2001:db8::1")!]

    @Test("each time-out names what timed out, after how long, and the addresses")
    func wording() {
        #expect(TimeoutMessage.resolving(host: "a.test", limit: 1.5).text == "resolving a.test timed out after 1500 ms")
        #expect(
            TimeoutMessage.connecting(authority: "a.test:443", limit: 2, tried: addresses).text
                == "connecting to a.test:443 timed out after 2.0 s (addresses tried: 192.0.2.1, 2001:db8::1)")
        #expect(
            TimeoutMessage.transfer(endpoint: "a.test:443", addresses: addresses, reason: "Operation timed out").text
                == "request to a.test:443 timed out (addresses: 192.0.2.1, 2001:db8::1): Operation timed out")
        #expect(TimeoutMessage.transfer(endpoint: "a.test:443", addresses: nil, reason: "r").text == "request to a.test:443 timed out: r")
        #expect(
            TimeoutMessage.stopped(endpoint: "a.test:443", addresses: nil, limit: 1.25, wait: .none).text
                == "request to a.test:443 timed out after 1.25 s")
        #expect(
            TimeoutMessage.stopped(endpoint: "a.test:443", addresses: nil, limit: 2, wait: .multiplexing).text
                == "request to a.test:443 timed out after 2 s without a connection (it waited to multiplex on one another request was opening to it)")
        #expect(
            TimeoutMessage.stopped(endpoint: "a.test:443", addresses: [addresses[0]], limit: 3, wait: .freeConnection(limit: 1)).text
                == "request to a.test:443 (addresses: 192.0.2.1) timed out after 3 s waiting for a free connection (all 1 allowed by maximumConnectionsPerHost were busy)")
    }

    @Test("a time-out is curl's 28")
    func error() {
        let error = HTTPClientError.timedOut(.resolving(host: "a.test", limit: 1), url: nil)
        #expect(error.kind == .timedOut)
        #expect(error.curlCode == 28)
        #expect(error.curlExitStatus == 28)
    }
}
