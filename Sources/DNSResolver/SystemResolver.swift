import Dispatch
import Foundation
import HTTPDNSCore
#if canImport(Glibc)
    import Glibc
#endif

/// The operating system's resolver (`getaddrinfo(3)`: `/etc/hosts`, then DNS as `nsswitch.conf` says).
///
/// This is the fallback when no DoH endpoint answers; it offers none of DoH's protection against
/// hijacking, though TLS verification on the name still does.
///
/// `getaddrinfo` blocks, so each lookup runs on a Dispatch queue, never on the cooperative pool.
/// A cancelled lookup still runs to completion on that queue; its result is discarded.
public struct SystemResolver: HostResolving {
    /// Families asked of `getaddrinfo` (`AF_UNSPEC`, `AF_INET` or `AF_INET6`).
    public var families: AddressFamilies

    private static let queue = DispatchQueue(label: "httpdns.system-resolver", attributes: .concurrent)

    public init(families: AddressFamilies = .both) {
        self.families = families
    }

    /// Resolves `host` with `getaddrinfo` (`SOCK_STREAM`, no `AI_ADDRCONFIG`, so loopback-only hosts
    /// still get both families).
    ///
    /// - Returns: The addresses in the system's order without duplicates, source `.system`, no TTL;
    ///   an IP literal comes back as it is, source `.literal`.
    /// - Throws: `ResolutionError.invalidHostName`; `.nameNotFound(host:negativeTTL: nil)` for
    ///   `EAI_NONAME`; `.noAddresses(host:negativeTTL: nil)` for `EAI_NODATA`; `.resolverUnavailable`
    ///   with `gai_strerror`'s text for any other failure.
    public func resolve(host: String, port: Int) async throws -> HostResolution {
        guard let name = HostName.normalize(host) else { throw ResolutionError.invalidHostName(host) }
        if let literal = IPAddress(name) {
            return HostResolution(host: name, addresses: [literal], ttl: nil, source: .literal)
        }
        let families = self.families
        let result: Result<[IPAddress], ResolutionError> = await withCheckedContinuation { continuation in
            Self.queue.async {
                continuation.resume(returning: Self.getaddrinfo(name, families: families))
            }
        }
        return HostResolution(host: name, addresses: try result.get(), ttl: nil, source: .system)
    }

    /// glibc's `EAI_NODATA`, which Swift does not import (it is behind `__USE_GNU`).
    private static let eaiNoData: Int32 = -5

    private static func getaddrinfo(_ name: String, families: AddressFamilies) -> Result<[IPAddress], ResolutionError> {
        var hints = addrinfo()
        switch families {
        case .both, .auto: hints.ai_family = AF_UNSPEC
        case .ipv4: hints.ai_family = AF_INET
        case .ipv6: hints.ai_family = AF_INET6
        }
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = 0
        var list: UnsafeMutablePointer<addrinfo>?
        let status = Glibc.getaddrinfo(name, nil, &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        switch status {
        case 0:
            break
        case EAI_NONAME:
            return .failure(.nameNotFound(host: name, negativeTTL: nil))
        case eaiNoData:
            return .failure(.noAddresses(host: name, negativeTTL: nil))
        default:
            let reason =
                status == EAI_SYSTEM
                ? "getaddrinfo: \(String(cString: strerror(errno)))"
                : "getaddrinfo: \(String(cString: gai_strerror(status)))"
            return .failure(.resolverUnavailable(host: name, reasons: [reason]))
        }
        var addresses: [IPAddress] = []
        var node = list
        while let info = node?.pointee {
            node = info.ai_next
            guard let sockaddr = info.ai_addr, let address = Self.address(of: sockaddr) else { continue }
            if !addresses.contains(address) { addresses.append(address) }
        }
        guard !addresses.isEmpty else { return .failure(.noAddresses(host: name, negativeTTL: nil)) }
        return .success(addresses)
    }

    private static func address(of sockaddr: UnsafeMutablePointer<sockaddr>) -> IPAddress? {
        switch Int32(sockaddr.pointee.sa_family) {
        case AF_INET:
            return sockaddr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin_addr) { IPAddress(bytes: Array($0)) }
            }
        case AF_INET6:
            return sockaddr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin6_addr) { IPAddress(bytes: Array($0)) }
            }
        default:
            return nil
        }
    }
}
