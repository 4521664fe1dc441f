import Foundation
import HTTPDNSCore
import Synchronization

/// Each address's record of how connections to it went, and the order it gives a host's addresses
/// before they are raced (RFC 8305 §4: sort by historical data): the vendors' "IP ranking" by
/// connect time, from real connections rather than probes.
///
/// - An address that refused or timed out goes last, and stays last for a back-off (5 s, doubling to
///   5 min) that its next successful connection ends.
/// - An address beaten by a later attempt is recorded as at least as slow as it had been pending, so a
///   black-holed address falls behind the one that won.
/// - Among the others, the lower smoothed connect time (RTT-style, 1/4 weight to each new sample)
///   goes first; addresses with no record keep their order, after the measured ones.
///
/// Kept per address and port, across hosts (an address that is dead for one name is dead for all),
/// by each `HTTPClient.Configuration` (its `addressRanking`), or for the whole process with `shared`. Happy Eyeballs still races the ordered list, so a wrong rank costs at
/// most the Connection Attempt Delay.
public final class AddressRanking: Sendable {
    /// One ranking for the process, to give several client configurations.
    public static let shared = AddressRanking()

    /// What is known of one address and port.
    public struct Record: Sendable, Hashable {
        /// Smoothed connect time in seconds; nil until one connected (or lost to a faster one).
        public var connectTime: TimeInterval?
        /// Connection failures (refused, unreachable, timed out) since the last success.
        public var consecutiveFailures: Int
        /// Until when (seconds on the ranking's clock) it goes last; nil: not in back-off.
        public var backOffUntil: TimeInterval?
        /// When (seconds on the ranking's clock) the last attempt was reported.
        public var lastReported: TimeInterval
    }

    /// How one attempt of a race ended.
    public enum Result: Sendable, Hashable {
        /// It connected after this many seconds.
        case connected(TimeInterval)
        /// It was refused or unreachable, or the race timed out while it was pending.
        case failed
        /// Another address won while this one had been pending this many seconds.
        case beaten(pendingFor: TimeInterval)
    }

    static let firstBackOff: TimeInterval = 5
    static let longestBackOff: TimeInterval = 300
    /// Past this many records, those not in back-off and not reported for `staleAfter` seconds go,
    /// so a long-running process that meets many addresses keeps a bounded table.
    static let capacity = 4_096
    static let staleAfter: TimeInterval = 600

    private let records = Mutex<[String: Record]>([:])
    /// When each address and port was last claimed for a background probe.
    private let probed = Mutex<[String: TimeInterval]>([:])
    private let clock: @Sendable () -> TimeInterval

    /// - Parameter clock: Monotonic seconds (tests give one).
    public init(clock: @escaping @Sendable () -> TimeInterval = { TimeInterval(DispatchTime.now().uptimeNanoseconds) / 1e9 }) {
        self.clock = clock
    }

    private static func key(_ address: IPAddress, _ port: Int) -> String { "\(address)|\(port)" }

    /// What is known of `address` on `port`.
    public func record(for address: IPAddress, port: Int) -> Record? {
        records.withLock { $0[Self.key(address, port)] }
    }

    /// Forgets every record, as after a network change: connect times and failures measured on the
    /// old network say nothing of the new one, and an address that failed only because the network
    /// went away is tried again at once.
    public func forgetAll() {
        records.withLock { $0.removeAll() }
    }

    /// Records how an attempt to `address` on `port` ended.
    public func report(_ result: Result, address: IPAddress, port: Int) {
        let now = clock()
        records.withLock { records in
            var record = records[Self.key(address, port)] ?? Record(connectTime: nil, consecutiveFailures: 0, backOffUntil: nil, lastReported: now)
            record.lastReported = now
            switch result {
            case .connected(let seconds):
                record.connectTime = record.connectTime.map { $0 * 0.75 + seconds * 0.25 } ?? seconds
                record.consecutiveFailures = 0
                record.backOffUntil = nil
            case .beaten(let pending):
                record.connectTime = max(record.connectTime ?? 0, pending)
            case .failed:
                record.consecutiveFailures += 1
                let backOff = min(Self.longestBackOff, Self.firstBackOff * pow(2, Double(min(record.consecutiveFailures - 1, 10))))
                record.backOffUntil = now + backOff
            }
            records[Self.key(address, port)] = record
            if records.count > Self.capacity {
                records = records.filter { ($0.value.backOffUntil ?? 0) > now || now - $0.value.lastReported < Self.staleAfter }
            }
        }
    }

    /// Those of `addresses` (distinct) not claimed for a probe on `port` in the last `probeInterval`
    /// seconds, now claimed.
    func claimProbes(_ addresses: [IPAddress], port: Int) -> [IPAddress] {
        let now = clock()
        return probed.withLock { probed in
            if probed.count > Self.capacity { probed = probed.filter { now - $0.value < Self.probeInterval } }
            var due: [IPAddress] = []
            for address in addresses {
                let key = Self.key(address, port)
                if let last = probed[key], now - last < Self.probeInterval { continue }
                probed[key] = now
                due.append(address)
            }
            return due
        }
    }

    /// Where an address stands in `ranked`, and why.
    public enum Placement: Sendable, Hashable {
        /// Connected before: ordered by this smoothed connect time, in seconds.
        case measured(connectTime: TimeInterval)
        /// Nothing known yet (or only failures whose back-off is over): after the measured ones, in
        /// the resolver's order.
        case unmeasured
        /// Failed this many times in a row and goes last for `remaining` more seconds.
        case backingOff(failures: Int, remaining: TimeInterval)
    }

    /// One address of `ranked`: its 1-based rank and why it has it.
    public struct Ranked: Sendable, Hashable {
        public var address: IPAddress
        public var rank: Int
        public var placement: Placement
    }

    /// `addresses` for a connection to `port`, best first: measured ones by connect time, then those
    /// with no record (in their order), then those in back-off (in their order).
    public func order(_ addresses: [IPAddress], port: Int) -> [IPAddress] {
        ranked(addresses, port: port).map(\.address)
    }

    /// `order`'s list with each address's rank and the reason for it (as `httpdns probe` prints them).
    public func ranked(_ addresses: [IPAddress], port: Int) -> [Ranked] {
        let now = clock()
        let known = records.withLock { records in addresses.map { records[Self.key($0, port)] } }
        var measured: [(IPAddress, TimeInterval, Int)] = []
        var unknown: [IPAddress] = []
        var backingOff: [(IPAddress, Placement)] = []
        for (index, address) in addresses.enumerated() {
            guard let record = known[index] else { unknown.append(address); continue }
            if let until = record.backOffUntil, until > now {
                backingOff.append((address, .backingOff(failures: record.consecutiveFailures, remaining: until - now)))
            } else if let time = record.connectTime {
                measured.append((address, time, index))
            } else {
                unknown.append(address)
            }
        }
        measured.sort { $0.1 != $1.1 ? $0.1 < $1.1 : $0.2 < $1.2 }
        let placed = measured.map { ($0.0, Placement.measured(connectTime: $0.1)) } + unknown.map { ($0, Placement.unmeasured) } + backingOff
        return placed.enumerated().map { Ranked(address: $0.element.0, rank: $0.offset + 1, placement: $0.element.1) }
    }
}
