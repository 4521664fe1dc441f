import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// An IPv4 or IPv6 address, as DNS answers carry it (RFC 1035 §3.4.1 A, RFC 3596 §2.2 AAAA).
///
/// Stored as raw network-order bytes: 4 for IPv4, 16 for IPv6. `description` gives the textual form
/// (`192.0.2.1`, `2001:db8::1`, no brackets); `uriHost` gives the bracketed form an URL authority needs.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// Address family.
    public enum Family: String, Sendable, Hashable {
        case ipv4
        case ipv6
    }

    /// Network-order bytes: 4 (IPv4) or 16 (IPv6).
    public let bytes: [UInt8]

    /// An address from its network-order bytes; `nil` unless there are exactly 4 or 16.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses the textual form (`inet_pton`): dotted-quad IPv4 or RFC 4291 IPv6, optionally in
    /// brackets (`[::1]`). Returns `nil` for anything else, including zone IDs, host names and text
    /// with a NUL in it (`inet_pton` would stop there and accept `"127.0.0.1\0.evil.test"`).
    public init?(_ text: some StringProtocol) {
        // On the concrete String: `contains` over a generic StringProtocol's UTF-8 view dispatched
        // through witness tables for every byte.
        var text = String(text)
        guard !text.utf8.contains(0) else { return nil }
        if text.hasPrefix("["), text.hasSuffix("]") {
            text = String(text.dropFirst().dropLast())
        }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            self.bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    /// `.ipv4` for 4 bytes, `.ipv6` for 16.
    public var family: Family { bytes.count == 4 ? .ipv4 : .ipv6 }

    /// Textual form, without brackets: dotted decimal for IPv4, `inet_ntop`'s RFC 5952 form for IPv6.
    public var description: String {
        // On a stack buffer: the cache file writes every answer's text, and the arrays this made
        // (a buffer, then the bytes up to its NUL) cost more than the formatting.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(INET6_ADDRSTRLEN) + 1) { buffer in
            guard let base = buffer.baseAddress else { return "<invalid address>" }
            if bytes.count == 4 {
                var count = 0
                for (index, byte) in bytes.enumerated() {
                    if index > 0 { base[count] = UInt8(ascii: "."); count += 1 }
                    if byte >= 100 { base[count] = UInt8(ascii: "0") + byte / 100; count += 1 }
                    if byte >= 10 { base[count] = UInt8(ascii: "0") + byte / 10 % 10; count += 1 }
                    base[count] = UInt8(ascii: "0") + byte % 10
                    count += 1
                }
                return String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
            }
            let written = bytes.withUnsafeBytes { raw in
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    inet_ntop(AF_INET6, raw.baseAddress, $0, socklen_t(buffer.count)) != nil
                }
            }
            guard written else { return "<invalid address>" }
            return String(decoding: UnsafeBufferPointer(start: base, count: strlen(UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self))), as: UTF8.self)
        }
    }

    /// The form used in a URL authority or a `HOST:PORT:ADDR` entry: IPv6 in brackets.
    public var uriHost: String { family == .ipv6 ? "[\(description)]" : description }

    /// True for 127.0.0.0/8 and ::1.
    public var isLoopback: Bool {
        family == .ipv4 ? bytes[0] == 127 : bytes == [UInt8](repeating: 0, count: 15) + [1]
    }
}

extension IPAddress {
    /// `host:port` as an URL authority writes it (RFC 3986 §3.2.2), for messages: an IPv6 literal
    /// in brackets (`[::1]:443`), so the port cannot be read as the address's last group; a name
    /// or an IPv4 address as it is (`a.test:443`, `127.0.0.1:443`).
    package static func authority(host: String, port: Int) -> String {
        // Only an IPv6 literal holds a colon; one already in brackets stays as it is.
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

extension IPAddress {
    /// False when `name` cannot be an IP literal, so that a hot path can skip the parse: `inet_pton`
    /// takes only digits and dots (IPv4) or hex digits, colons and dots (IPv6), which `init?(_:)`
    /// also takes in brackets. Most names fail at their first letter past `f`.
    package static func mayBeLiteral(_ name: String) -> Bool {
        name.utf8.withContiguousStorageIfAvailable(mayBeLiteral) ?? mayBeLiteral(Array(name.utf8))
    }

    private static func mayBeLiteral<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Bool {
        bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"),
                UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"):
                true
            default: false
            }
        }
    }
}
