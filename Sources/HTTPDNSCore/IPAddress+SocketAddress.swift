#if canImport(Glibc)
    import Glibc
#endif

extension IPAddress {
    /// The socket family for `socket(2)`: `AF_INET` or `AF_INET6`.
    package var socketFamily: Int32 { family == .ipv4 ? AF_INET : AF_INET6 }

    /// Calls `body` with this address and `port` as a `sockaddr_in` or `sockaddr_in6` and its
    /// length, for `connect(2)` and `sendto(2)`; the pointer is valid only inside `body`.
    package func withSocketAddress<Result>(port: Int, _ body: (UnsafePointer<sockaddr>, socklen_t) throws -> Result) rethrows -> Result {
        if family == .ipv4 {
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
            withUnsafeMutableBytes(of: &sin.sin_addr) { $0.copyBytes(from: bytes) }
            return try withUnsafePointer(to: &sin) {
                try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        var sin6 = sockaddr_in6()
        sin6.sin6_family = sa_family_t(AF_INET6)
        sin6.sin6_port = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
        withUnsafeMutableBytes(of: &sin6.sin6_addr) { $0.copyBytes(from: bytes) }
        return try withUnsafePointer(to: &sin6) {
            try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        }
    }
}
