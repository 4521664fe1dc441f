import Foundation
import HTTPDNSCore
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// The answers `HostResolver` remembers, keyed by normalized name and family selection, each with an
/// absolute expiry on the resolver's clock, bounded in size with least-recently-used eviction.
///
/// Split into shards by the name's hash, each under its own lock, so that concurrent cache hits on
/// different names do not wait for one another. The resolver still makes every change other than a
/// hit's under its own lock (inserts, flushes), so those stay ordered with its in-flight queries;
/// a hit takes only its shard's lock and writes nothing shared. Use stamps are counted in inserts
/// across shards, so eviction is by least recent use over the whole cache, to the resolution of one
/// insert (see `hitStamp`).
final class ResolutionCache: Sendable {
    struct Key: Hashable, Sendable {
        let name: String
        let families: AddressFamilies
        /// The name's hash, computed once per lookup: the dictionary hashes only this, and a probe
        /// that meets another key's bucket tells them apart without reading that key's string.
        fileprivate let nameHash: Int

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

        // What `Dictionary` asks for: the name's hash is already a full-strength hash, so it is mixed
        // with the seed and the families by SplitMix64's finalizer rather than hashed a second time
        // (a plain xor with the seed would keep two dictionaries' bucket orders alike, and copying
        // one into another would then cluster).
        func _rawHashValue(seed: Int) -> Int {
            var mixed = UInt64(truncatingIfNeeded: nameHash ^ seed) &+ UInt64(families.code) &* 0x9E37_79B9_7F4A_7C15
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int(truncatingIfNeeded: mixed ^ (mixed >> 31))
        }
    }

    /// What is remembered: addresses, or a negative answer (RFC 2308).
    enum Value: Sendable {
        case addresses([IPAddress])
        case nameNotFound
        case noAddresses
    }

    /// A name's HTTPS answer kept beside its addresses, so that a hit answers both from one entry
    /// (the resolver's own HTTPS cache stays the source: this is a copy, made when either is cached).
    struct ServiceBindings: Sendable {
        /// The records; nil when the name has none or they could not be had.
        var records: ServiceBindingRecords?
        /// Expiry on the resolver's clock, in seconds: the HTTPS answer's own, not the addresses'.
        var expires: TimeInterval

        /// The records with `ttl` the remaining lifetime, `.some(nil)` for a known "none"; nil once expired.
        func fresh(at now: TimeInterval) -> ServiceBindingRecords?? {
            guard expires > now else { return nil }
            guard var records else { return .some(nil) }
            records.ttl = expires - now
            return .some(records)
        }
    }

    struct Entry: Sendable {
        var value: Value
        /// Expiry on the resolver's clock, in seconds.
        var expires: TimeInterval
        /// The provider kind that answered (`doh`, `json`, ...).
        var provider: String?
        /// What DNSSEC validation made of the answer; nil when it was not validated.
        var dnssec: DNSSECStatus?
        /// Use order, for LRU eviction (`insertStamp`, `hitStamp`).
        var lastUsed: UInt64
        /// The name's HTTPS answer, when the resolver asks for them (`attach(_:name:)`).
        var serviceBindings: ServiceBindings? = nil
    }

    /// A cache lookup's result. `remaining` is negative for a stale entry.
    struct Hit {
        var value: Value
        var remaining: TimeInterval
        var provider: String?
        var dnssec: DNSSECStatus? = nil
        /// The entry's HTTPS answer when it is fresh (`ServiceBindings.fresh(at:)`), else nil.
        var serviceBindings: ServiceBindingRecords?? = nil
        var isStale: Bool { remaining <= 0 }
    }

    let capacity: Int
    private let shards: [Shard]
    private let total = Atomic<Int>(0)
    /// Inserts so far: the clock of the use order.
    private let inserts = Atomic<UInt64>(0)

    /// One shard's entries under a pthread mutex of its own. Not a `LockedValue`: that one's
    /// `withLock` is generic and in another module, and a hit called it unspecialized (the
    /// dictionary's metadata looked up, a closure context made); this one is specialized here.
    private final class Shard: @unchecked Sendable { // `entries` is only touched with `mutex` held
        private let mutex: UnsafeMutablePointer<pthread_mutex_t>
        /// Behind a pointer rather than a stored `var`, which would be checked for exclusive access
        /// at run time on every use (the mutex already makes it exclusive).
        private let entries: UnsafeMutablePointer<[Key: Entry]>

        init() {
            // A cache line of its own, so that two shards' locks taken at once do not share one.
            mutex = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 64).bindMemory(to: pthread_mutex_t.self, capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
            entries = .allocate(capacity: 1)
            entries.initialize(to: [:])
        }

        deinit {
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
            UnsafeMutableRawPointer(mutex).deallocate()
            entries.deinitialize(count: 1)
            entries.deallocate()
        }

        func withLock<Result>(_ body: (inout [Key: Entry]) throws -> Result) rethrows -> Result {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&entries.pointee)
        }
    }

    private static let shardCount = 16

    init(capacity: Int) {
        self.capacity = max(0, capacity)
        self.shards = (0..<Self.shardCount).map { _ in Shard() }
    }

    /// How many entries the cache holds.
    var count: Int { total.load(ordering: .relaxed) }

    /// Every entry (a snapshot, shard by shard).
    var entries: [Key: Entry] {
        var all: [Key: Entry] = [:]
        for shard in shards { shard.withLock { all.merge($0) { first, _ in first } } }
        return all
    }

    private func shard(for key: Key) -> Shard {
        shards[Int(UInt(bitPattern: key.nameHash) % UInt(Self.shardCount))]
    }

    /// A new entry's use stamp: the number of inserts so far (this one included), doubled.
    private func insertStamp() -> UInt64 {
        inserts.wrappingAdd(1, ordering: .relaxed).newValue &* 2
    }

    /// A hit's use stamp: one above the last insert's, so a hit counts as more recent than every
    /// entry inserted before it, and less recent than every entry inserted after. Hits between two
    /// inserts tie. A hit only reads the count: an atomic increment per hit (the former use counter)
    /// made concurrent hits on different shards contend for its cache line.
    private func hitStamp() -> UInt64 {
        inserts.load(ordering: .relaxed) &* 2 &+ 1
    }

    /// The entry for `key`: live, or expired by at most `staleLimit` seconds (addresses only) when
    /// `staleLimit` is given. An entry past both is dropped. A hit counts as a use.
    func lookup(_ key: Key, now: TimeInterval, staleLimit: TimeInterval? = nil) -> Hit? {
        let use = hitStamp()
        return shard(for: key).withLock { entries -> Hit? in
            // One hash of the key: the entry is read and its use recorded in place, through the index
            // found (neither copied out nor stored again).
            guard let index = entries.index(forKey: key) else { return nil }
            guard let hit = Self.use(&entries.values[index], stamp: use, now: now, staleLimit: staleLimit) else {
                entries.remove(at: index)
                total.subtract(1, ordering: .relaxed)
                return nil
            }
            return hit
        }
    }

    /// `entry` as a hit at `now`, its use recorded as `stamp`; `nil` when it is past use (expired, and
    /// not addresses within `staleLimit` of expiry).
    private static func use(_ entry: inout Entry, stamp: UInt64, now: TimeInterval, staleLimit: TimeInterval?) -> Hit? {
        let remaining = entry.expires - now
        if remaining <= 0 {
            guard let staleLimit, case .addresses = entry.value, -remaining <= staleLimit else { return nil }
        }
        entry.lastUsed = stamp
        // The records made once, here: a copy of the whole attachment for the caller to make them
        // from again cost its retains twice on every hit.
        return Hit(value: entry.value, remaining: remaining, provider: entry.provider, dnssec: entry.dnssec, serviceBindings: entry.serviceBindings?.fresh(at: now))
    }

    /// The live entry for `key`, its remaining lifetime and DNSSEC outcome; an expired entry is left
    /// in place (it may still be served stale) but not returned.
    func value(for key: Key, now: TimeInterval) -> (value: Value, remaining: TimeInterval, dnssec: DNSSECStatus?)? {
        let use = hitStamp()
        return shard(for: key).withLock { entries -> (value: Value, remaining: TimeInterval, dnssec: DNSSECStatus?)? in
            guard let index = entries.index(forKey: key) else { return nil }
            let entry = entries.values[index]
            guard entry.expires - now > 0 else { return nil }
            entries.values[index].lastUsed = use
            return (entry.value, entry.expires - now, entry.dnssec)
        }
    }

    /// Remembers `value` for `ttl` seconds; a `ttl` of 0 or less stores nothing. When full, the least
    /// recently used entry makes room. Inserts must not run concurrently with each other (the resolver
    /// makes them under its lock).
    func insert(_ value: Value, for key: Key, ttl: TimeInterval, now: TimeInterval, provider: String? = nil, dnssec: DNSSECStatus? = nil) {
        guard ttl > 0 else { return }
        insert(value, for: key, expires: now + ttl, provider: provider, dnssec: dnssec)
    }

    /// Remembers `value` until `expires` (which may be past, for an entry only usable stale), with
    /// the DNSSEC outcome it was validated to, if it was.
    func insert(_ value: Value, for key: Key, expires: TimeInterval, provider: String?, dnssec: DNSSECStatus? = nil) {
        guard capacity > 0 else { return }
        let target = shard(for: key)
        let isNew = target.withLock { $0[key] == nil }
        if isNew, count >= capacity { evictLeastRecentlyUsed() }
        var entry = Entry(value: value, expires: expires, provider: provider, dnssec: dnssec, lastUsed: insertStamp())
        let added = target.withLock { entries in
            // A new answer for the addresses leaves the name's HTTPS answer as it was.
            entry.serviceBindings = entries[key]?.serviceBindings
            return entries.updateValue(entry, forKey: key) == nil
        }
        if added { total.add(1, ordering: .relaxed) }
    }

    /// Keeps `bindings` on every entry cached for `name` (each family selection); a name with none
    /// cached gets nothing (its next insert does not carry them: the HTTPS cache answers that miss).
    func attach(_ bindings: ServiceBindings, name: String) {
        let hash = name.hashValue
        let target = shards[Int(UInt(bitPattern: hash) % UInt(Self.shardCount))]
        target.withLock { entries in
            for families in [AddressFamilies.both, .ipv4, .ipv6] {
                let key = Key(name: name, families: families)
                guard let index = entries.index(forKey: key) else { continue }
                var bindings = bindings
                // The owner name is most often the name itself: the key's string then serves both,
                // so a hit retains one object fewer, and one its key comparison has just read.
                if bindings.records?.name == entries.keys[index].name { bindings.records?.name = entries.keys[index].name }
                entries.values[index].serviceBindings = bindings
            }
        }
    }

    private func evictLeastRecentlyUsed() {
        var oldest: (shard: Shard, key: Key, lastUsed: UInt64)?
        for shard in shards {
            guard let candidate = shard.withLock({ $0.min { $0.value.lastUsed < $1.value.lastUsed } }) else { continue }
            if oldest == nil || candidate.value.lastUsed < oldest!.lastUsed {
                oldest = (shard, candidate.key, candidate.value.lastUsed)
            }
        }
        guard let oldest else { return }
        let removed = oldest.shard.withLock { $0.removeValue(forKey: oldest.key) != nil }
        if removed { total.subtract(1, ordering: .relaxed) }
    }

    /// Forgets every entry for `name`, whatever the families.
    func remove(name: String) {
        for shard in shards {
            let removed = shard.withLock { entries in
                let before = entries.count
                entries = entries.filter { $0.key.name != name }
                return before - entries.count
            }
            total.subtract(removed, ordering: .relaxed)
        }
    }

    func removeAll() {
        for shard in shards {
            let removed = shard.withLock { entries in
                defer { entries.removeAll() }
                return entries.count
            }
            total.subtract(removed, ordering: .relaxed)
        }
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
