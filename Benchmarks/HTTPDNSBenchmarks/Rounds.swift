// The machine is shared: other builds come and go within seconds. Measuring the peer and this
// library in alternating rounds, and taking the median of each and of the per-round ratios, keeps
// one burst of load from deciding a ratio.

/// Rates measured in alternating rounds.
struct Rounds {
    /// Median requests per second of the peer and of this library, and the median per-round ratio.
    let peer: Double
    let ours: Double
    let ratio: Double

    static func compare(rounds: Int, peer: @Sendable () async throws -> Double, ours: @Sendable () async throws -> Double) async throws -> Rounds {
        var peers: [Double] = [], ourRates: [Double] = [], ratios: [Double] = []
        for _ in 0..<max(1, rounds) {
            let p = try await peer()
            let o = try await ours()
            peers.append(p)
            ourRates.append(o)
            ratios.append(o / p)
        }
        return Rounds(peer: median(peers), ours: median(ourRates), ratio: median(ratios))
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
