import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The classes `HTTPDNSURLProtocol.makeClass(for:)` returns: a specialization of this generic
/// subclass per index. Swift cannot create a class at run time, but it creates each generic
/// specialization's class on first use, and Foundation tells protocol classes apart by identity,
/// so every index gives a protocol class of its own, whose `configuration` is looked up by that
/// identity.
final class ConfiguredURLProtocol<Index: ProtocolClassIndex>: HTTPDNSURLProtocol {
    /// The class for `index`: its bits as `Bit0` and `Bit1` types nested around `IndexEnd`, the
    /// lowest innermost (6 is `Bit1<Bit1<Bit0<IndexEnd>>>`); no two indices give the same type.
    static func forIndex(_ index: Int) -> HTTPDNSURLProtocol.Type {
        precondition(index >= 0)
        return ConfiguredURLProtocol<IndexEnd>.nesting(index)
    }

    private static func nesting(_ rest: Int) -> HTTPDNSURLProtocol.Type {
        guard rest > 0 else { return self }
        return rest & 1 == 0 ? ConfiguredURLProtocol<Bit0<Index>>.nesting(rest >> 1) : ConfiguredURLProtocol<Bit1<Index>>.nesting(rest >> 1)
    }
}

/// A type that spells an index of `ConfiguredURLProtocol` in binary.
protocol ProtocolClassIndex {}
enum IndexEnd: ProtocolClassIndex {}
enum Bit0<Rest: ProtocolClassIndex>: ProtocolClassIndex {}
enum Bit1<Rest: ProtocolClassIndex>: ProtocolClassIndex {}
