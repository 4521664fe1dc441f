import Foundation
import HTTPDNSCore

extension AddressRanking {
    /// How long a probed address is not probed again by `probeInBackground`, in seconds.
    static let probeInterval: TimeInterval = 60

    /// What a request that ran no race learns from the connection libcurl made itself (libcurl tries
    /// the offered addresses of a family in order): a new connection to one of `offered` connected in
    /// its connect time, and the addresses of its family offered before it failed or timed out. A
    /// reused connection teaches nothing.
    func learn(from connection: ConnectionReport, offered: [IPAddress], port: Int) {
        guard !connection.reusedConnection, let text = connection.remoteAddress, let winner = IPAddress(text),
            let index = offered.firstIndex(of: winner), let connect = connection.timing?.connect, connect > 0
        else { return }
        for address in offered[..<index] where address.family == winner.family {
            report(.failed, address: address, port: port)
        }
        report(.connected(connect), address: winner, port: port)
    }

    /// What a failed request that ran no race learns: when no address accepted a connection (curl 7),
    /// each offered one failed. Other failures (a time-out, TLS) say nothing certain of an address.
    func learn(from error: HTTPClientError, offered: [IPAddress], port: Int) {
        guard error.kind == .couldNotConnect else { return }
        for address in Set(offered) { report(.failed, address: address, port: port) }
    }

    /// Starts a `ConnectProbe` of those of `addresses` not probed in the last `probeInterval`, unless
    /// none is left; returns at once.
    func probeInBackground(_ addresses: [IPAddress], port: Int, timeout: TimeInterval) {
        let due = claimProbes(addresses, port: port)
        guard !due.isEmpty else { return }
        Task.detached { _ = await ConnectProbe.probe(due, port: port, timeout: timeout, reportingTo: self) }
    }
}
