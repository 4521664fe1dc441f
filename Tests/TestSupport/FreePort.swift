#if canImport(Glibc)
    import Glibc
#endif

/// Loopback ports nobody is listening on, for tests that start a listener of their own.
public enum FreePort {
    /// Why no port could be had.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The system call that failed.
        public let call: String
        /// `errno` after it.
        public let code: Int32

        public var description: String { "FreePort: \(call) failed: \(String(cString: strerror(code)))" }
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago: the kernel picks it for a socket bound to
    /// port 0, and the socket is closed again. Another process may take it before the caller binds
    /// it, so callers that can should retry on `EADDRINUSE`.
    /// - Returns: A port number in 1...65535.
    /// - Throws: `FreePort.Failure` naming the failing call (`socket`, `bind`, `getsockname`).
    public static func tcp() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(call: "socket", code: errno) }
        defer { close(fd) }

        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw Failure(call: "bind", code: errno) }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw Failure(call: "getsockname", code: errno) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
