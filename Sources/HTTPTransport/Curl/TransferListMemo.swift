import HTTPDNSCore

/// A client's last CURLOPT_HTTPHEADER and CURLOPT_CONNECT_TO lists: a client usually sends the same
/// header fields to the same addresses again, and validating and building the lines, then
/// allocating and freeing the lists, showed in the per-request profile. A request whose header
/// fields (or route) differ from the last one builds its own and becomes the last.
final class TransferListMemo: Sendable {
    /// What the header lines depend on besides the client's configuration, which is fixed.
    struct HeaderKey: Equatable, Sendable {
        let headers: HTTPHeaders
        let omitted: Set<String>
        let hasBody: Bool
    }

    /// What the CURLOPT_CONNECT_TO entry depends on.
    struct RouteKey: Equatable, Sendable {
        let host: String
        let port: Int
        let addresses: [IPAddress]
    }

    private let lastHeaders = LockedValue<(key: HeaderKey, list: CurlStringList)?>(nil)
    private let lastRoute = LockedValue<(key: RouteKey, route: ConnectRoute, list: CurlStringList)?>(nil)

    /// The header list for `key`, built (and validated) by `build` unless it is the last one.
    /// - Throws: what `build` throws; nothing is remembered then.
    func headers(for key: HeaderKey, build: () throws -> CurlStringList) rethrows -> CurlStringList {
        if let last = lastHeaders.withLock({ $0 }), last.key == key { return last.list }
        let list = try build()
        lastHeaders.withLock { $0 = (key, list) }
        return list
    }

    /// The route and its CURLOPT_CONNECT_TO list for `key`, made by `build` unless it is the last one.
    /// - Returns: nil when `build` returns nil (out of memory).
    func route(for key: RouteKey, build: () -> (ConnectRoute, CurlStringList)?) -> (ConnectRoute, CurlStringList)? {
        if let last = lastRoute.withLock({ $0 }), last.key == key { return (last.route, last.list) }
        guard let (route, list) = build() else { return nil }
        lastRoute.withLock { $0 = (key, route, list) }
        return (route, list)
    }
}
