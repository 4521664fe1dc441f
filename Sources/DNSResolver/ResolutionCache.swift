import Foundation
import HTTPDNSCore

/// The answers `HostResolver` remembers, keyed by normalized name and family selection, each until an
/// absolute expiry on the resolver's clock. A plain value: the resolver keeps it under its lock.
struct ResolutionCache {
    struct Key: Hashable {
        var name: String
        var families: AddressFamilies
    }

    /// What is remembered: addresses, or a negative answer (RFC 2308).
    enum Value {
        case addresses([IPAddress])
        case nameNotFound
        case noAddresses
    }

    private struct Entry {
        var value: Value
        var expires: TimeInterval
    }

    let capacity: Int
    private var entries: [Key: Entry] = [:]

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    var count: Int { entries.count }

    /// The live entry for `key` and its remaining lifetime in seconds; drops it if it has expired.
    mutating func value(for key: Key, now: TimeInterval) -> (value: Value, remaining: TimeInterval)? {
        guard let entry = entries[key] else { return nil }
        let remaining = entry.expires - now
        guard remaining > 0 else {
            entries[key] = nil
            return nil
        }
        return (entry.value, remaining)
    }

    /// Remembers `value` for `ttl` seconds; a `ttl` of 0 or less stores nothing.
    mutating func insert(_ value: Value, for key: Key, ttl: TimeInterval, now: TimeInterval) {
        guard ttl > 0, capacity > 0 else { return }
        if entries[key] == nil, entries.count >= capacity {
            entries = entries.filter { $0.value.expires > now }
            if entries.count >= capacity, let soonest = entries.min(by: { $0.value.expires < $1.value.expires }) {
                entries[soonest.key] = nil
            }
        }
        entries[key] = Entry(value: value, expires: now + ttl)
    }

    /// Forgets every entry for `name`, whatever the families.
    mutating func remove(name: String) {
        entries = entries.filter { $0.key.name != name }
    }

    mutating func removeAll() {
        entries.removeAll()
    }
}
