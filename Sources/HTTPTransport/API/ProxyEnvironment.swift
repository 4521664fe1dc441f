#if canImport(Glibc)
    import Glibc
#endif
internal import CHTTPDNSShims

/// The proxy variables of the process environment (`ProxyPolicy.variableNames`), read in one pass
/// over `environ`: `ProxyPolicy.environment` reads them for every request, and a `getenv` per
/// name scanned the whole environment once per name.
struct ProxyEnvironment {
    /// The set variables, by name (at most the seven names; usually none).
    private(set) var values: [String: String] = [:]

    /// The variables as the environment holds them now.
    static func current() -> ProxyEnvironment { reading(httpdns_environment()) }

    /// The variables of `list`, a NULL-terminated array of "NAME=value" strings laid out as
    /// `environ` is (nil: none).
    static func reading(_ list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ProxyEnvironment {
        var found = ProxyEnvironment()
        guard var entry = list else { return found }
        while let pointer = entry.pointee {
            // Every name starts with h, H, a, A, n or N: the other entries cost one comparison.
            switch UInt8(bitPattern: pointer.pointee) {
            case UInt8(ascii: "h"), UInt8(ascii: "H"), UInt8(ascii: "a"), UInt8(ascii: "A"), UInt8(ascii: "n"), UInt8(ascii: "N"):
                found.take(pointer)
            default:
                break
            }
            entry += 1
        }
        return found
    }

    /// Keeps `entry` ("NAME=value") when NAME is one of the proxy variables; the first entry of a
    /// name wins, as with `getenv`.
    private mutating func take(_ entry: UnsafeMutablePointer<CChar>) {
        for name in ProxyPolicy.variableNames {
            let length = name.utf8.count
            let matches = name.withCString { strncmp(entry, $0, length) == 0 } && entry[length] == CChar(UInt8(ascii: "="))
            if matches {
                if values[name] == nil { values[name] = String(cString: entry + length + 1) }
                return
            }
        }
    }
}
