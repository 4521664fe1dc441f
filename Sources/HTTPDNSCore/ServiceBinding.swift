/// The RDATA of an SVCB or HTTPS record (RFC 9460 §2.2): SvcPriority, TargetName and SvcParams.
///
/// Priority 0 is AliasMode: `targetName` is another name to ask for the same record type, and
/// `""` (the root, `.`) says the service does not exist (RFC 9460 §2.4.2, §3.1). Any other
/// priority is ServiceMode: an endpoint, lower values preferred, where `""` means the record's own
/// owner name (RFC 9460 §2.4.3). AliasMode records should carry no SvcParams; when one does, they
/// are parsed and kept here (so the record encodes back unchanged) and clients ignore them, as
/// RFC 9460 §2.4.2 requires.
public struct ServiceBinding: Hashable, Sendable {
    /// SvcPriority: 0 for AliasMode, 1–65535 for ServiceMode (lower is preferred).
    public var priority: UInt16
    /// TargetName: lower-case, no trailing dot, `""` for the root `.`, RFC 1035 §5.1 escapes for
    /// unusual octets (the same text form as `DNSResourceRecord.name`).
    public var targetName: String
    /// SvcParams; empty in a well-formed AliasMode record.
    public var parameters: ServiceParameters

    /// A record's RDATA from its parts.
    public init(priority: UInt16, targetName: String, parameters: ServiceParameters = ServiceParameters()) {
        self.priority = priority
        self.targetName = targetName
        self.parameters = parameters
    }

    /// Whether this is an AliasMode record (SvcPriority 0, RFC 9460 §2.4.2).
    public var isAliasMode: Bool { priority == 0 }

    /// The name whose addresses serve this endpoint: `targetName`, or `owner` when the TargetName is
    /// `.` in ServiceMode (RFC 9460 §2.5.2); `nil` for an AliasMode record whose TargetName is `.`
    /// (the service does not exist, §2.5.1). `owner` uses the same text form as `targetName`.
    public func effectiveTargetName(owner: String) -> String? {
        guard targetName.isEmpty else { return targetName }
        return isAliasMode ? nil : owner
    }
}
