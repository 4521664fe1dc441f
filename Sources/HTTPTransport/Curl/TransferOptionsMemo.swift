import HTTPDNSCore

/// A client's option lists for its recent routes (`TransferOptions`, with their string lists
/// built): a client mostly sends the same kind of request to the same addresses again, and
/// building the options, validating the header lines and allocating the curl_slist lists showed
/// in the per-request profile. A handle kept holding a list (`HandleReuse.keepOptions`) that the
/// next request takes again sets none of it (`HandleReuse.application`).
final class TransferOptionsMemo: Sendable {
    /// The most lists kept, most recently used first: a client talking to a few hosts finds each.
    static let capacity = 8

    private let recent = LockedValue<[PreparedOptions]>([])

    /// The list for `facts`, built unless a recent request had the same facts.
    /// - Returns: nil when libcurl runs out of memory building a string list.
    func options(for facts: TransferOptions.Facts, host curlHost: String) -> PreparedOptions? {
        let hit = recent.withLock { lists -> PreparedOptions? in
            guard let index = lists.firstIndex(where: { $0.facts == facts }) else { return nil }
            if index != 0 { lists.insert(lists.remove(at: index), at: 0) }
            return lists[0]
        }
        if let hit { return hit }
        guard let made = PreparedOptions(facts, host: curlHost) else { return nil }
        recent.withLock { lists in
            lists.insert(made, at: 0)
            if lists.count > Self.capacity { lists.removeLast() }
        }
        return made
    }
}
