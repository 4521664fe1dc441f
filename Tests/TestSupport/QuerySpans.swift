import DNSResolver
import Foundation
import HTTPDNSCore
import Synchronization

/// When each query of a lookup was sent and answered, for counting its round trips: the tests'
/// and the benchmark's timing DoH transports record into it.
public final class QuerySpans: Sendable {
    private let spans = Mutex<[(start: UInt64, end: UInt64)]>([])

    public init() {}

    /// Runs `body` (one query) and records when it started and ended.
    public func timed<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        let start = DispatchTime.now().uptimeNanoseconds
        defer {
            let end = DispatchTime.now().uptimeNanoseconds
            spans.withLock { $0.append((start, end)) }
        }
        return try await body()
    }

    /// How many queries were recorded.
    public var count: Int { spans.withLock { $0.count } }

    /// The longest chain of queries each sent after the one before it was answered: the round
    /// trips on the lookup's critical path.
    public var roundTrips: Int {
        let sorted = spans.withLock { $0 }.sorted { $0.start < $1.start }
        var depth: [Int] = []
        for (index, span) in sorted.enumerated() {
            depth.append(1 + (sorted[..<index].indices.filter { sorted[$0].end <= span.start }.map { depth[$0] }.max() ?? 0))
        }
        return depth.max() ?? 0
    }
}

/// A DoH transport that records each query's span in `spans`, after waiting `delay` before sending
/// it: with a delay longer than the scheduling noise of a loaded machine, queries sent together
/// overlap and queries that wait for an answer do not, so `spans.roundTrips` counts true round
/// trips even against a server on loopback.
public struct TimingDoHTransport: DoHTransport {
    public let real: any DoHTransport
    public let delay: Duration
    public let spans = QuerySpans()

    public init(_ real: any DoHTransport, delay: Duration = .zero) {
        self.real = real
        self.delay = delay
    }

    public func send(
        url: URL, method: String, headers: [(String, String)], body: Data?, connectTo: [IPAddress], timeout: TimeInterval, maxResponseBytes: Int
    ) async throws -> DoHHTTPResponse {
        try await spans.timed {
            if delay > .zero { try await Task.sleep(for: delay) }
            return try await real.send(url: url, method: method, headers: headers, body: body, connectTo: connectTo, timeout: timeout, maxResponseBytes: maxResponseBytes)
        }
    }
}
