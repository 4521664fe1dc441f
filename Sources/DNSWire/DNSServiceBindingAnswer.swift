import HTTPDNSCore

/// What a response says about the SVCB or HTTPS records of one name, as
/// `DNSMessage.serviceBindingAnswer(for:type:)` reads it. DNS outcomes only.
public enum DNSServiceBindingAnswer: Hashable, Sendable {
    /// The records of the RRset at the end of the CNAME chain, in message order (never empty).
    /// `ttl` in seconds: the minimum over the CNAMEs used and the records. `owner` is the name that
    /// owns them (the query name when there is no CNAME).
    case records([ServiceBinding], ttl: UInt32, owner: String)
    /// NXDOMAIN (RFC 2308 §2.1); `negativeTTL` as in `DNSAddressAnswer.nameError`.
    case nameError(negativeTTL: UInt32?)
    /// NOERROR without a record of the type at the end of the chain (NODATA, RFC 2308 §2.2).
    case noData(negativeTTL: UInt32?)
    /// Any other RCODE; a CNAME loop is reported as `SERVFAIL`.
    case failure(DNSResponseCode)
    /// The TC bit is set: the answer is incomplete.
    case truncated
}

extension DNSMessage {
    /// Interprets this response for an SVCB or HTTPS question: follows the CNAME chain from `name`
    /// through the answer section (RFC 9460 §2.4.3 allows CNAMEs before the RRset) and collects the
    /// records of `type` at its end, as `addressAnswer(for:type:)` does for addresses: class-`IN`
    /// records on the chain only, TTLs with the top bit set read as 0 (RFC 2181 §8).
    ///
    /// AliasMode records are returned like the others; following them (another query) is the
    /// caller's part.
    /// - Parameters:
    ///   - name: The name that was asked for (any case, optional trailing dot).
    ///   - type: `.svcb` or `.https`.
    public func serviceBindingAnswer(for name: String, type: DNSRecordType) -> DNSServiceBindingAnswer {
        if isTruncated { return .truncated }
        let onChain = answers.filter { $0.recordClass == 1 && ($0.type == type || $0.type == .cname) }
        var owner = DNSName.canonical(name) ?? name.lowercased()
        var visited: Set<String> = [owner]
        var ttl = UInt32.max
        var records: [ServiceBinding] = []
        var isLoop = false
        while records.isEmpty {
            for record in onChain where record.name == owner && record.type == type {
                guard case .serviceBinding(let binding) = record.data else { continue }
                records.append(binding)
                ttl = min(ttl, Self.effectiveTTL(record.ttl))
            }
            guard records.isEmpty else { break }
            guard let alias = onChain.first(where: { $0.name == owner && $0.type == .cname }), case .cname(let target) = alias.data else { break }
            guard visited.insert(target).inserted else {
                isLoop = true
                break
            }
            ttl = min(ttl, Self.effectiveTTL(alias.ttl))
            owner = target
        }
        // NXDOMAIN even after CNAMEs (RFC 6604 §2), then other codes, as for addresses.
        if responseCode == .nameError { return .nameError(negativeTTL: negativeTTL(for: owner)) }
        guard responseCode == .noError else { return .failure(responseCode) }
        guard !isLoop else { return .failure(.serverFailure) }
        guard !records.isEmpty else { return .noData(negativeTTL: negativeTTL(for: owner)) }
        return .records(records, ttl: ttl, owner: owner)
    }
}
