import Foundation
import HTTPDNSCore
#if canImport(Glibc)
    import Glibc
#endif

/// Which address families this host can reach the internet over, for `AddressFamilies.auto`.
///
/// A UDP socket `connect` to a public address sends nothing but asks the kernel for a route; it fails
/// with `ENETUNREACH` when there is none (the check Happy Eyeballs clients and glibc's `AI_ADDRCONFIG`
/// approximate).
public struct RouteProbe: Sendable {
    /// The addresses routes are looked up towards (documentation-free public resolvers, never contacted).
    public var ipv4Target: IPAddress
    public var ipv6Target: IPAddress

    public init(ipv4Target: IPAddress = IPAddress("8.8.8.8")!, ipv6Target: IPAddress = IPAddress("2001:4860:4860::8888")!) {
        self.ipv4Target = ipv4Target
        self.ipv6Target = ipv6Target
    }

    /// The families with a route: `.both`, `.ipv4` or `.ipv6`; `.both` when neither has one (so a
    /// lookup still asks for everything rather than nothing).
    public func families() -> AddressFamilies {
        switch (Self.hasRoute(to: ipv4Target), Self.hasRoute(to: ipv6Target)) {
        case (true, false): .ipv4
        case (false, true): .ipv6
        default: .both
        }
    }

    /// Whether the kernel has a route to `address` (UDP connect, nothing sent).
    public static func hasRoute(to address: IPAddress) -> Bool {
        let fd = socket(address.family == .ipv4 ? AF_INET : AF_INET6, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if address.family == .ipv4 {
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = in_port_t(53).bigEndian
            withUnsafeMutableBytes(of: &sin.sin_addr) { $0.copyBytes(from: address.bytes) }
            return withUnsafePointer(to: &sin) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
        }
        var sin6 = sockaddr_in6()
        sin6.sin6_family = sa_family_t(AF_INET6)
        sin6.sin6_port = in_port_t(53).bigEndian
        withUnsafeMutableBytes(of: &sin6.sin6_addr) { $0.copyBytes(from: address.bytes) }
        return withUnsafePointer(to: &sin6) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0 }
        }
    }
}
