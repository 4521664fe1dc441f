// The keep-alive comparisons of one run, each measured idle and (with --busy-core) again right after
// beside the busy loop, printed at the end as one markdown table: the shape Benchmarks/README.md
// keeps.

/// One row a comparison: this library against one peer, idle and beside a busy core.
struct KeepAliveTable {
    struct Row {
        let workload: String
        let caller: String
        let peer: String
        let idle: Rounds
        let busy: Rounds?
    }

    /// Runs each comparison a second time beside it, when set.
    let busyLoop: BusyLoop?
    private(set) var rows: [Row] = []

    init(busyLoop: BusyLoop?) { self.busyLoop = busyLoop }

    /// `Rounds.compare` idle and, with a busy loop, again beside it; both kept for `markdown`.
    /// - Returns: The idle figures and the busy ones (nil without a busy loop).
    mutating func compare(
        workload: String, caller: String, peer peerName: String, rounds: Int, count: Int,
        peer: @Sendable () async throws -> Double, ours: @Sendable () async throws -> Double
    ) async throws -> (idle: Rounds, busy: Rounds?) {
        let idle = try await Rounds.compare(rounds: rounds, count: count, peer: peer, ours: ours)
        var busy: Rounds?
        if let busyLoop {
            busy = try await busyLoop.around { try await Rounds.compare(rounds: rounds, count: count, peer: peer, ours: ours) }
        }
        rows.append(Row(workload: workload, caller: caller, peer: peerName, idle: idle, busy: busy))
        return (idle, busy)
    }

    /// The line printed under a comparison's idle lines for its busy figures.
    static func busyLine(_ busy: Rounds) -> String {
        String(
            format: "   beside a busy core: peer %8.0f req/s %5.0f µs CPU; httpdns %8.0f req/s %5.0f µs CPU   (%.2fx rate, %.2fx CPU)",
            busy.peer, busy.peerCPU, busy.ours, busy.oursCPU, busy.ratio, busy.oursCPU / busy.peerCPU)
    }

    /// Every row: rate ratio and CPU per request against the peer's, idle and (when measured) busy.
    func markdown() -> String {
        func cpu(_ rounds: Rounds) -> String {
            String(format: "%.0f against %.0f µs (%.2fx)", rounds.oursCPU, rounds.peerCPU, rounds.oursCPU / rounds.peerCPU)
        }
        let withBusy = rows.contains { $0.busy != nil }
        var lines = ["| workload | caller | peer | rate ratio | CPU per request |" + (withBusy ? " rate ratio, busy core | CPU per request, busy core |" : "")]
        lines.append("| --- | --- | --- | --- | --- |" + (withBusy ? " --- | --- |" : ""))
        for row in rows {
            var line = "| \(row.workload) | \(row.caller) | \(row.peer) | " + String(format: "%.2fx", row.idle.ratio) + " | \(cpu(row.idle)) |"
            if withBusy { line += row.busy.map { String(format: " %.2fx", $0.ratio) + " | \(cpu($0)) |" } ?? " | |" }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
