import HTTPDNSCore

extension DNSMessage {
    /// Interprets this response for an address question: follows the CNAME chain from `name` through
    /// the answer section and collects the addresses at its end.
    ///
    /// In order: TC set → `.truncated` (RFC 1035 §4.1.1); RCODE NXDOMAIN → `.nameError`, even after
    /// CNAMEs (RFC 6604 §2); any other non-zero RCODE → `.failure`; a CNAME loop → `.failure(.serverFailure)`;
    /// addresses at the end of the chain → `.addresses`; otherwise → `.noData` (RFC 2308 §2.2).
    ///
    /// Only class-`IN` answer records whose owner is on the chain are used (compared case-insensitively),
    /// so records for unrelated names, which a hostile or broken server may add, are ignored.
    /// Address TTL is the minimum over the CNAMEs followed and the address records, in seconds. The
    /// negative TTL is `min(SOA TTL, SOA MINIMUM)` (RFC 2308 §5) from the first authority-section SOA
    /// whose owner is the chain's last name or an ancestor of it; `nil` without one. TTLs with the
    /// top bit set count as 0 (RFC 2181 §8).
    ///
    /// This does not check that the message is a response to the query; see
    /// `validateResponse(toQueryFor:type:id:)`.
    /// - Parameters:
    ///   - name: The name that was asked for (any case, optional trailing dot).
    ///   - type: `.a` or `.aaaa`; other types never yield addresses.
    /// - Returns: The outcome; never throws, because the message is already parsed.
    public func addressAnswer(for name: String, type: DNSRecordType) -> DNSAddressAnswer {
        if isTruncated { return .truncated }

        let classIN: UInt16 = 1
        var recordsByOwner: [String: [DNSResourceRecord]] = [:]
        for record in answers where record.recordClass == classIN {
            recordsByOwner[record.name, default: []].append(record)
        }

        var current = DNSName.canonical(name) ?? name.lowercased()
        var visited: Set<String> = [current]
        var ttl = UInt32.max
        var addresses: [IPAddress] = []
        var isLoop = false
        while true {
            let owned = recordsByOwner[current] ?? []
            for record in owned where record.type == type {
                switch record.data {
                case .a(let address) where type == .a, .aaaa(let address) where type == .aaaa:
                    if !addresses.contains(address) { addresses.append(address) }
                    ttl = min(ttl, Self.effectiveTTL(record.ttl))
                default:
                    break
                }
            }
            if !addresses.isEmpty { break }
            guard let alias = owned.first(where: { $0.type == .cname }), case .cname(let target) = alias.data else {
                break
            }
            guard visited.insert(target).inserted else {
                isLoop = true
                break
            }
            ttl = min(ttl, Self.effectiveTTL(alias.ttl))
            current = target
        }

        switch responseCode {
        case .nameError:
            return .nameError(negativeTTL: negativeTTL(for: current))
        case .noError:
            break
        default:
            return .failure(responseCode)
        }
        if isLoop { return .failure(.serverFailure) }
        if addresses.isEmpty { return .noData(negativeTTL: negativeTTL(for: current)) }
        return .addresses(addresses, ttl: ttl, canonicalName: current)
    }

    /// `min(SOA TTL, SOA MINIMUM)` of the first authority SOA for `name` or an ancestor (RFC 2308 §5).
    func negativeTTL(for name: String) -> UInt32? {
        for record in authorities where record.type == .soa && DNSName.isSameOrAncestor(record.name, of: name) {
            if case .soa(let soa) = record.data {
                return min(Self.effectiveTTL(record.ttl), Self.effectiveTTL(soa.minimum))
            }
        }
        return nil
    }

    /// RFC 2181 §8: a TTL with the most significant bit set is treated as zero.
    static func effectiveTTL(_ ttl: UInt32) -> UInt32 {
        ttl > UInt32(Int32.max) ? 0 : ttl
    }
}
