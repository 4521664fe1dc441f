import Foundation
import HTTPDNSCore

/// The answers `HostResolver` remembers, keyed by normalized name and family selection, each with an
/// absolute expiry on the resolver's clock, bounded in size with least-recently-used eviction. A plain
/// value: the resolver keeps it under its lock.
struct ResolutionCache {
    struct Key: Hashable, Sendable {
        let name: String
        let families: AddressFamilies
        /// The name's hash, computed once per lookup: the dictionary hashes only this, and a probe
        /// that meets another key's bucket tells them apart without reading that key's string.
        private let nameHash: Int

        init(name: String, families: AddressFamilies) {
            self.name = name
            self.families = families
            self.nameHash = name.hashValue
        }

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.nameHash == rhs.nameHash && lhs.families.code == rhs.families.code && lhs.name == rhs.name
        }

        // By hand also because `AddressFamilies` has `String` raw values, which the default
        // conformance would hash and compare.
        func hash(into hasher: inout Hasher) {
            hasher.combine(nameHash)
            hasher.combine(families.code)
        }
    }

    /// What is remembered: addresses, or a negative answer (RFC 2308).
    enum Value: Sendable {
        case addresses([IPAddress])
        case nameNotFound
        case noAddresses
    }

    struct Entry: Sendable {
        var value: Value
        /// Expiry on the resolver's clock, in seconds.
        var expires: TimeInterval
        /// The provider kind that answered (`doh`, `json`, ...).
        var provider: String?
        /// Use order, for LRU eviction.
        var lastUsed: UInt64
    }

    /// A cache lookup's result. `remaining` is negative for a stale entry.
    struct Hit {
        var value: Value
        var remaining: TimeInterval
        var provider: String?
        var isStale: Bool { remaining <= 0 }
    }

    let capacity: Int
    private(set) var entries: [Key: Entry] = [:]
    private var useCounter: UInt64 = 0

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    var count: Int { entries.count }

    /// The entry for `key`: live, or expired by at most `staleLimit` seconds (addresses only) when
    /// `staleLimit` is given. An entry past both is dropped. A hit counts as a use.
    mutating func lookup(_ key: Key, now: TimeInterval, staleLimit: TimeInterval? = nil) -> Hit? {
        // One hash of the key: the use is recorded through the index found, not by storing again.
        guard let index = entries.index(forKey: key) else { return nil }
        let entry = entries.values[index]
        let remaining = entry.expires - now
        if remaining <= 0 {
            guard let staleLimit, case .addresses = entry.value, -remaining <= staleLimit else {
                entries.remove(at: index)
                return nil
            }
        }
        useCounter += 1
        entries.values[index].lastUsed = useCounter
        return Hit(value: entry.value, remaining: remaining, provider: entry.provider)
    }

    /// The live entry for `key` and its remaining lifetime; an expired entry is left in place (it may
    /// still be served stale) but not returned.
    mutating func value(for key: Key, now: TimeInterval) -> (value: Value, remaining: TimeInterval)? {
        guard let index = entries.index(forKey: key) else { return nil }
        let entry = entries.values[index]
        guard entry.expires - now > 0 else { return nil }
        useCounter += 1
        entries.values[index].lastUsed = useCounter
        return (entry.value, entry.expires - now)
    }

    /// Remembers `value` for `ttl` seconds; a `ttl` of 0 or less stores nothing. When full, the least
    /// recently used entry makes room.
    mutating func insert(_ value: Value, for key: Key, ttl: TimeInterval, now: TimeInterval, provider: String? = nil) {
        guard ttl > 0 else { return }
        insert(value, for: key, expires: now + ttl, provider: provider)
    }

    /// Remembers `value` until `expires` (which may be past, for an entry only usable stale).
    mutating func insert(_ value: Value, for key: Key, expires: TimeInterval, provider: String?) {
        guard capacity > 0 else { return }
        if entries[key] == nil, entries.count >= capacity,
           let oldest = entries.min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
            entries[oldest.key] = nil
        }
        useCounter += 1
        entries[key] = Entry(value: value, expires: expires, provider: provider, lastUsed: useCounter)
    }

    /// Forgets every entry for `name`, whatever the families.
    mutating func remove(name: String) {
        entries = entries.filter { $0.key.name != name }
    }

    mutating func removeAll() {
        entries.removeAll()
    }
}

private extension AddressFamilies {
    var code: UInt8 {
        switch self {
        case .ipv4: 0
        case .ipv6: 1
        case .both: 2
        case .auto: 3
        }
    }
}
