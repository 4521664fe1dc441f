/// What `HostResolver` does with its cached answers when the host's network changes
/// (`HostResolver.networkChanged(_:)`, called by `NetworkChangeWatcher`). The address families are
/// probed again whatever the policy.
public enum NetworkChangePolicy: String, Sendable, Hashable, CaseIterable {
    /// Keep every answer (a name's addresses do not depend on the network the lookup came from).
    case none
    /// Forget every answer, as `HostResolver.flush()` does (the default): the next lookup of each
    /// name asks again, over the new network. A CDN may answer differently from there.
    case flush
    /// Forget every answer, then resolve again the names that were cached with addresses, those of
    /// `Configuration.preResolveHosts` first, so names in use are answered from the cache again
    /// without a caller waiting (the vendor SDKs' re-resolve after a network change).
    case reresolve
}
