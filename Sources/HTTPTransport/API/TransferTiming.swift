import Foundation

/// When the phases of a transfer ended, in seconds from its start (libcurl's `CURLINFO_*_TIME_T`).
/// On a reused connection the connect and TLS times are 0.
///
/// The libcurl transfer starts after the client resolved the host and raced its addresses:
/// `transferStart` says when, and `nameLookup` when the addresses were known, both from the start of
/// the request (`HTTPClient.execute`). `transferStart + connect` is curl's `time_connect`, counted
/// as curl counts it, from before the name was resolved.
public struct TransferTiming: Sendable, Hashable {
    /// TCP connection established (CURLINFO_CONNECT_TIME_T).
    public var connect: TimeInterval
    /// TLS handshake done (CURLINFO_APPCONNECT_TIME_T); 0 for plain HTTP.
    public var tlsHandshake: TimeInterval
    /// First response byte (CURLINFO_STARTTRANSFER_TIME_T).
    public var firstByte: TimeInterval
    /// Whole transfer (CURLINFO_TOTAL_TIME_T).
    public var total: TimeInterval
    /// The Happy Eyeballs race that chose the first address (`HTTPClient.Configuration.racesAddresses`):
    /// seconds from its first connection attempt to the first address connected, as the racing
    /// thread measured them. It ran before the transfer started and is not part of the times above.
    /// nil when no race ran (one address, or a route raced recently whose pooled connection is reused).
    public var addressRace: TimeInterval? = nil
    /// When the host's addresses were known, in seconds from the start of the request: the client's
    /// own resolution (DoH or HTTPDNS exchanges, its cache, the system resolver), or libcurl's lookup
    /// (CURLINFO_NAMELOOKUP_TIME_T) when the client resolved nothing (an IP literal, a proxy's name,
    /// `connectTo`). curl's `time_namelookup`.
    public var nameLookup: TimeInterval = 0
    /// When libcurl's transfer started, in seconds from the start of the request: after resolving
    /// the host and any address race. The other times count from here.
    public var transferStart: TimeInterval = 0

    public init(connect: TimeInterval, tlsHandshake: TimeInterval, firstByte: TimeInterval, total: TimeInterval) {
        self.connect = connect
        self.tlsHandshake = tlsHandshake
        self.firstByte = firstByte
        self.total = total
    }
}
