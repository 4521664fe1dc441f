/// The RDATA of an `SOA` record (RFC 1035 §3.3.13). Times are in seconds.
///
/// In a negative answer the SOA from the authority section bounds how long the absence may be cached:
/// the lesser of the record's TTL and `minimum` (RFC 2308 §5).
public struct DNSSOA: Hashable, Sendable {
    /// MNAME: the zone's primary name server (lower-case, no trailing dot).
    public var mname: String
    /// RNAME: the responsible mailbox, encoded as a name (lower-case, no trailing dot).
    public var rname: String
    /// SERIAL: the zone version, compared in sequence space arithmetic (RFC 1982).
    public var serial: UInt32
    /// REFRESH: seconds between secondary refreshes.
    public var refresh: UInt32
    /// RETRY: seconds before a failed refresh is retried.
    public var retry: UInt32
    /// EXPIRE: seconds after which a secondary stops answering for the zone.
    public var expire: UInt32
    /// MINIMUM: the negative-caching TTL in seconds (RFC 2308 §4).
    public var minimum: UInt32

    /// An SOA RDATA value; all times in seconds.
    public init(mname: String, rname: String, serial: UInt32, refresh: UInt32, retry: UInt32, expire: UInt32, minimum: UInt32) {
        self.mname = mname
        self.rname = rname
        self.serial = serial
        self.refresh = refresh
        self.retry = retry
        self.expire = expire
        self.minimum = minimum
    }
}
