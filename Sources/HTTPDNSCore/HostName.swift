/// Host-name normalization shared by the cache, the resolver and the transport.
public enum HostName {
    /// The key a name is cached and compared under: ASCII lower case, without a trailing dot, and
    /// IPv6 literals without brackets. Returns `nil` for an empty name or one longer than 253
    /// characters / with a label longer than 63 (RFC 1035 §2.3.4).
    public static func normalize(_ host: String) -> String? {
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty else { return nil }
        if IPAddress(name) != nil { return name.lowercased() }
        let lowered = String(name.unicodeScalars.map { scalar -> Character in
            (scalar.value >= 65 && scalar.value <= 90) ? Character(Unicode.Scalar(scalar.value + 32)!) : Character(scalar)
        })
        guard lowered.utf8.count <= 253 else { return nil }
        for label in lowered.split(separator: ".", omittingEmptySubsequences: false) {
            guard !label.isEmpty, label.utf8.count <= 63 else { return nil }
        }
        return lowered
    }
}
