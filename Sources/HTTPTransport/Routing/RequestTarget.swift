import Foundation
import HTTPDNSCore

extension HTTPRequest {
    /// Checks that `url` can be sent: scheme `http` or `https`, a valid host name or IP literal,
    /// a port in 1-65535. The same check `HTTPClient.execute` makes before any traffic.
    /// - Throws: `HTTPClientError` of kind `.invalidURL` or `.unsupportedScheme`.
    public static func validate(url: URL) throws(HTTPClientError) {
        _ = try RequestTarget(url: url)
    }
}

/// The parts of a request URL the transport routes by.
struct RequestTarget: Sendable {
    /// Host without IPv6 brackets, names normalized (A-labels, lower case, no trailing dot), for
    /// resolution, CURLOPT_CONNECT_TO and messages.
    let host: String
    /// Host as libcurl sees it in CURLOPT_CONNECT_TO: IPv6 literals in brackets.
    let curlHost: String
    let port: Int
    let isHTTPS: Bool
    let isIPLiteral: Bool
    let curlURL: String

    /// - Throws: `HTTPClientError` `.invalidURL` or `.unsupportedScheme`.
    init(url: URL) throws(HTTPClientError) {
        guard let scheme = url.scheme?.lowercased() else {
            throw HTTPClientError(kind: .invalidURL, message: "malformed URL '\(url.redactedString)': no scheme", url: url)
        }
        guard scheme == "https" || scheme == "http" else {
            throw HTTPClientError(kind: .unsupportedScheme, message: "unsupported URL scheme '\(scheme)' in '\(url.redactedString)' (use http or https)", url: url)
        }
        guard var host = url.host(percentEncoded: false), !host.isEmpty else {
            throw HTTPClientError(kind: .invalidURL, message: "malformed URL '\(url.redactedString)': no host", url: url)
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let literal = IPAddress(host)
        var curlURL = url.absoluteString
        if literal == nil {
            // IDNA A-labels, lower case, no trailing dot: the form resolved, sent as SNI and Host,
            // and verified (HostName.normalize).
            guard let normalized = HostName.normalize(host) else {
                throw HTTPClientError(kind: .invalidURL, message: "malformed URL '\(url.redactedString)': invalid host name '\(host)'" + HostName.numericHostHint(host), url: url)
            }
            if normalized != host, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
                components.percentEncodedHost = normalized
                if let rebuilt = components.url?.absoluteString { curlURL = rebuilt }
            }
            host = normalized
        }
        if let port = url.port, !(1...65535).contains(port) {
            throw HTTPClientError(kind: .invalidURL, message: "malformed URL '\(url.redactedString)': port out of range", url: url)
        }
        self.host = host
        self.isIPLiteral = literal != nil
        self.curlHost = literal?.family == .ipv6 ? "[\(host)]" : host
        self.isHTTPS = scheme == "https"
        self.port = url.port ?? (scheme == "https" ? 443 : 80)
        self.curlURL = curlURL
    }
}

extension RequestTarget {
    /// The last URL a client sent to and its target: a client usually sends to the same URL
    /// again, and parsing it and normalizing its host showed in the per-request profile.
    final class Memo: Sendable {
        private let last = LockedValue<(url: URL, target: RequestTarget)?>(nil)

        /// - Throws: as `RequestTarget(url:)`.
        func target(for url: URL) throws(HTTPClientError) -> RequestTarget {
            if let last = last.withLock({ $0 }), last.url == url { return last.target }
            let target = try RequestTarget(url: url)
            last.withLock { $0 = (url, target) }
            return target
        }
    }
}

/// A synthetic host name standing for one host's set of addresses, for CURLOPT_CONNECT_TO and
/// CURLOPT_RESOLVE. The name spells the addresses out (hex, sorted), so different sets never share a
/// name, while the same set in another order (Happy Eyeballs puts the address that connected first)
/// keeps its name and so its pooled connections; the RESOLVE entry keeps the given order. It also
/// carries a hash of the host: libcurl groups connections by this name for
/// CURLMOPT_MAX_HOST_CONNECTIONS, which must count one host's connections, not those of every name
/// on the same addresses (a CDN's).
struct ConnectRoute {
    let name: String
    let resolveEntry: String

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// libcurl reads at most 255 bytes of a CURLOPT_RESOLVE host name.
    private static let maximumNameLength = 240

    init(host: String, addresses: [IPAddress], port: Int) {
        // FNV-1a, 64 bits: a name, not a secret (libcurl still checks the host of a reused connection).
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in host.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        var hostLabel: [UInt8] = Array("httpdns-h".utf8)
        for shift in stride(from: 60, through: 0, by: -4) { hostLabel.append(Self.hexDigits[Int((hash >> UInt64(shift)) & 0xF)]) }
        var used: [IPAddress] = []
        var length = hostLabel.count + ".invalid".utf8.count
        for address in addresses {
            let labelLength = address.bytes.count * 2 + 1
            if length + labelLength > Self.maximumNameLength { break }
            length += labelLength
            used.append(address)
        }
        var name = String(decoding: hostLabel, as: UTF8.self)
        for address in used.sorted(by: { $0.bytes.lexicographicallyPrecedes($1.bytes) }) {
            var digits: [UInt8] = [UInt8(ascii: "-")]
            digits.reserveCapacity(address.bytes.count * 2 + 1)
            for byte in address.bytes {
                digits.append(Self.hexDigits[Int(byte >> 4)])
                digits.append(Self.hexDigits[Int(byte & 0x0F)])
            }
            name += String(decoding: digits, as: UTF8.self)
        }
        name += ".invalid"
        self.name = name
        self.resolveEntry = "\(name):\(port):" + used.map(\.uriHost).joined(separator: ",")
    }
}

extension ConnectRoute {
    private struct Key: Hashable {
        let host: String
        let addresses: [IPAddress]
        let port: Int
    }

    /// Routes built recently: building one spells every address out twice (hex and text), which
    /// showed in the per-request profile of keep-alive requests to the same addresses.
    private static let recent = LockedValue<[Key: ConnectRoute]>([:])
    private static let recentCapacity = 256

    /// The route for `host`, `addresses` and `port`, built once while it stays among the recent ones.
    static func cached(host: String, addresses: [IPAddress], port: Int) -> ConnectRoute {
        let key = Key(host: host, addresses: addresses, port: port)
        if let hit = recent.withLock({ $0[key] }) { return hit }
        let route = ConnectRoute(host: host, addresses: addresses, port: port)
        recent.withLock { routes in
            if routes.count >= recentCapacity { routes.removeAll(keepingCapacity: true) }
            routes[key] = route
        }
        return route
    }
}
