import Foundation

/// A name's SVCB or HTTPS records as a resolver found them (RFC 9460 §3): AliasMode followed,
/// ServiceMode records in priority order.
public struct ServiceBindingRecords: Sendable, Hashable {
    /// The name that owns `records`: the name asked for, or the last AliasMode TargetName followed
    /// (normalized, no trailing dot). A ServiceMode record whose TargetName is `.` means this name
    /// (`ServiceBinding.effectiveTargetName(owner:)`).
    public var name: String
    /// The AliasMode TargetNames followed, in order; empty when the name had ServiceMode records itself.
    public var aliasChain: [String]
    /// The ServiceMode records, ascending SvcPriority (equal priorities in answer order). Empty when
    /// there are none: NODATA, NXDOMAIN, or an AliasMode record to `.` (RFC 9460 §2.5.1, "the service
    /// does not exist").
    public var records: [ServiceBinding]
    /// Remaining lifetime in seconds: the least TTL over the records (and CNAMEs) used along the chain.
    public var ttl: TimeInterval
    /// False when the name asked for does not exist (NXDOMAIN, RFC 2308 §2.1): `records` is then
    /// empty. True otherwise, NODATA included.
    public var nameExists = true

    /// Records for `name`; `aliasChain` defaults to none.
    public init(name: String, aliasChain: [String] = [], records: [ServiceBinding], ttl: TimeInterval) {
        self.name = name
        self.aliasChain = aliasChain
        self.records = records
        self.ttl = ttl
    }
}
