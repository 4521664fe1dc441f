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
        let fd = socket(address.socketFamily, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return address.withSocketAddress(port: 53) { connect(fd, $0, $1) == 0 }
    }
}
