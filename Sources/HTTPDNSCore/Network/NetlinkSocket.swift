#if canImport(Glibc)
    import Glibc
#endif

/// A `NETLINK_ROUTE` socket subscribed to address and route changes (rtnetlink(7)): the one owner
/// of its descriptor, closed in `deinit`.
///
/// The socket belongs to the network namespace of the thread that creates it, whatever thread
/// reads it later.
final class NetlinkSocket {
    /// RTMGRP_IPV4_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_IFADDR | RTMGRP_IPV6_ROUTE.
    static let addressAndRouteGroups: UInt32 = 0x10 | 0x40 | 0x100 | 0x400
    /// 256 KiB: a burst of changes (an interface with many addresses going down) fits before the
    /// kernel reports `ENOBUFS`.
    private static let receiveBufferBytes: Int32 = 256 * 1024

    let descriptor: Int32

    /// - Throws: `NetworkMonitorError` naming the call that failed (`socket`, `bind`) and its errno.
    init(groups: UInt32 = addressAndRouteGroups) throws(NetworkMonitorError) {
        let fd = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0) // NETLINK_ROUTE
        guard fd >= 0 else { throw NetworkMonitorError(operation: "socket(AF_NETLINK, NETLINK_ROUTE)", code: errno) }
        var size = Self.receiveBufferBytes
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        // sockaddr_nl (linux/netlink.h, which Glibc's module leaves out): family u16, pad u16,
        // port u32 (0: the kernel assigns one), groups u32.
        var address = sockaddr_storage()
        withUnsafeMutableBytes(of: &address) { raw in
            raw.storeBytes(of: sa_family_t(AF_NETLINK), toByteOffset: 0, as: sa_family_t.self)
            raw.storeBytes(of: groups, toByteOffset: 8, as: UInt32.self)
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, 12) }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw NetworkMonitorError(operation: "bind(NETLINK_ROUTE)", code: code)
        }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// What one read gives.
    enum Received {
        case datagram([UInt8])
        /// Nothing waiting (`EAGAIN`).
        case empty
        /// The kernel dropped messages (`ENOBUFS`); reading goes on.
        case overflow
        case failed(Int32)
    }

    /// Reads one datagram without waiting.
    func receive(into buffer: inout [UInt8]) -> Received {
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if count >= 0 { return .datagram(Array(buffer[0..<count])) }
        switch errno {
        case EAGAIN, EINTR: return .empty
        case ENOBUFS: return .overflow
        case let code: return .failed(code)
        }
    }
}
