// The machine is shared: other builds come and go within seconds. Measuring the peer and this
// library in alternating rounds, and taking the median of each and of the per-round ratios, keeps
// one burst of load from deciding a ratio. CPU time per request (this process and the children it
// waited for, getrusage) does not depend on the load the way throughput does.
#if canImport(Glibc)
    import Glibc
#endif

/// Rates measured in alternating rounds.
struct Rounds {
    /// Median requests per second of the peer and of this library, and the median per-round ratio.
    let peer: Double
    let ours: Double
    let ratio: Double
    /// Median CPU microseconds (user + system) per request of the peer and of this library.
    let peerCPU: Double
    let oursCPU: Double

    /// - Parameter count: requests per measurement, to turn CPU time into CPU time per request.
    static func compare(rounds: Int, count: Int, peer: @Sendable () async throws -> Double, ours: @Sendable () async throws -> Double) async throws -> Rounds {
        var peers: [Double] = [], ourRates: [Double] = [], ratios: [Double] = [], peerCPU: [Double] = [], ourCPU: [Double] = []
        for _ in 0..<max(1, rounds) {
            var before = cpuMicroseconds()
            let p = try await peer()
            peerCPU.append((cpuMicroseconds() - before) / Double(count))
            before = cpuMicroseconds()
            let o = try await ours()
            ourCPU.append((cpuMicroseconds() - before) / Double(count))
            peers.append(p)
            ourRates.append(o)
            ratios.append(o / p)
        }
        return Rounds(peer: median(peers), ours: median(ourRates), ratio: median(ratios), peerCPU: median(peerCPU), oursCPU: median(ourCPU))
    }

    /// User + system CPU time of this process and of its waited-for children, in microseconds.
    static func cpuMicroseconds() -> Double {
        var total = 0.0
        for who in [RUSAGE_SELF.rawValue, RUSAGE_CHILDREN.rawValue] {
            var usage = rusage()
            getrusage(__rusage_who_t(who), &usage)
            total += Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
        }
        return total
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
