import HTTPDNSCore

extension HostResolver {
    /// The NAT64 prefix `Configuration.nat64` gives: the configured one, or the one RFC 7050
    /// discovery found (asked now when not yet asked since creation or the last network change);
    /// nil when off or none was found. Says nothing of whether this network needs it (see
    /// `NAT64Synthesis` for when it is used).
    public func nat64Prefix() async -> NAT64Prefix? {
        switch configuration.nat64 {
        case .off: return nil
        case .prefix(let prefix): return prefix
        case .discover:
            let (task, generation) = nat64Discovery.withLock { state -> (Task<NAT64Prefix?, Never>, Int) in
                if let running = state.task { return (running, state.generation) }
                let discovery = configuration.nat64Discovery
                let task = Task { await discovery.discover().first }
                state.task = task
                return (task, state.generation)
            }
            let found = await task.value
            nat64Discovery.withLock { state in
                if state.generation == generation { state.found = .some(found) }
            }
            return found
        }
    }

    /// What the discovery found, when it has ended: `.some(nil)` for no prefix; nil while it has
    /// not ended (or not started).
    func nat64PrefixIfKnown() -> NAT64Prefix?? {
        switch configuration.nat64 {
        case .off: .some(nil)
        case .prefix(let prefix): .some(prefix)
        case .discover: nat64Discovery.withLock { $0.found }
        }
    }

    /// The prefix to synthesize in for a lookup of `families`: nil unless NAT64 synthesis is on,
    /// `families` wants IPv6, and the network has an IPv6 route and no IPv4 one.
    func nat64PrefixForLookup(_ families: AddressFamilies) async -> NAT64Prefix? {
        guard families != .ipv4, concrete(.auto) == .ipv6 else { return nil }
        return await nat64Prefix()
    }

    /// Forgets the discovered prefix, so the next lookup that needs one asks again (a new network
    /// may have another DNS64, or none).
    func forgetNAT64Prefix() {
        nat64Discovery.withLock { state in state = NAT64DiscoveryState(generation: state.generation + 1) }
    }

    /// `resolution` for an IPv6-only network: its IPv6 addresses alone when it has some (a DNS64
    /// does not synthesize beside real AAAA records either, RFC 6147 §5.1.4), else each IPv4
    /// address embedded in `prefix`, with `nat64Prefix` set.
    static func synthesized(_ resolution: HostResolution, in prefix: NAT64Prefix) -> HostResolution {
        var result = resolution
        let ipv6 = resolution.addresses.filter { $0.family == .ipv6 }
        if ipv6.isEmpty {
            result.addresses = resolution.addresses.compactMap(prefix.synthesize)
            result.nat64Prefix = prefix
        } else {
            result.addresses = ipv6
        }
        return result
    }
}

/// The RFC 7050 discovery's task and its outcome once ended; `generation` counts the resets, so a
/// discovery that ends after one does not record its outcome.
struct NAT64DiscoveryState {
    var task: Task<NAT64Prefix?, Never>?
    var found: NAT64Prefix??
    var generation = 0
}
