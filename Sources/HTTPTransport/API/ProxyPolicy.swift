import Foundation
import HTTPDNSCore

/// Whether requests go through an HTTP proxy. Through a proxy, the request is sent by host name
/// (CONNECT `host:port` for https): the proxy resolves it, no IP replacement happens, and TLS is still
/// verified end to end for the name.
public enum ProxyPolicy: Sendable, Hashable {
    /// Never use a proxy; every request is IP-direct.
    case none
    /// curl's environment variables of this process, read at each request: `https_proxy` for https
    /// URLs, `http_proxy` for http (lower case only, as curl, so a CGI `Proxy:` header cannot set it),
    /// `all_proxy` for either, any of them also in upper case except `HTTP_PROXY`; `no_proxy`
    /// (or `NO_PROXY`) lists hosts that go direct. Default.
    case environment
    /// The same rules over these variables instead of the process environment.
    case variables([String: String])
    /// This proxy for every request except hosts matching `bypass` (`no_proxy` syntax).
    case fixed(URL, bypass: [String])

    /// Every variable `.environment` and `.variables` read, so a caller can hand `.variables` just
    /// these instead of the whole environment.
    public static let variableNames = ["https_proxy", "HTTPS_PROXY", "http_proxy", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"]

    /// The proxy for a request to `host:port` (normalized host) with `scheme`, or `nil` to go direct.
    public func proxy(scheme: String, host: String, port: Int) -> URL? {
        switch self {
        case .none:
            return nil
        case .environment:
            // Only the few names wanted, in one pass: building `ProcessInfo.environment` (every
            // variable, as a dictionary) took a quarter of a keep-alive request's CPU time.
            let environment = ProxyEnvironment.current()
            if environment.values.isEmpty { return nil }
            return Self.fromVariables({ environment.values[$0] }, scheme: scheme, host: host, port: port)
        case .variables(let variables):
            return Self.fromVariables({ variables[$0] }, scheme: scheme, host: host, port: port)
        case .fixed(let url, let bypass):
            return Self.bypasses(host: host, port: port, list: bypass) ? nil : url
        }
    }

    /// The variables each choice reads, in order (lower case first, as curl). Only lower-case
    /// http_proxy: an HTTP_PROXY set by a CGI server's request header (httpoxy). Kept as constants:
    /// a variadic list was an array allocated per request.
    private static let httpsProxyNames = ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]
    private static let httpProxyNames = ["http_proxy", "all_proxy", "ALL_PROXY"]
    private static let noProxyNames = ["no_proxy", "NO_PROXY"]

    private static func fromVariables(_ variable: (String) -> String?, scheme: String, host: String, port: Int) -> URL? {
        /// The first of `names` set to something.
        func value(_ names: [String]) -> String? {
            assert(names.allSatisfy(variableNames.contains), "\(names) missing from variableNames")
            for name in names {
                if let text = variable(name), !text.isEmpty { return text }
            }
            return nil
        }
        let chosen = value(scheme == "https" ? httpsProxyNames : httpProxyNames)
        guard let chosen else { return nil }
        let list = (value(noProxyNames) ?? "").split(separator: ",").map { $0.trimmingWhitespace() }
        if bypasses(host: host, port: port, list: list) { return nil }
        // curl accepts "host:port" without a scheme and means http://.
        return URL(string: chosen.contains("://") ? chosen : "http://" + chosen)
    }

    /// curl's `no_proxy` matching (CURLOPT_NOPROXY): `*` matches everything; an entry matches the host
    /// itself and, for names, every name under it (a leading `.` is optional); an IP literal matches
    /// exactly, and a CIDR block (`10.0.0.0/8`, `fd00::/8`, as curl 7.86+) matches the IP-literal hosts
    /// inside it. As in curl, a host name is matched by name only: it is not resolved to test it
    /// against a CIDR entry. Entries that are neither (a malformed CIDR) match nothing.
    public static func bypasses(host: String, port: Int, list: [String]) -> Bool {
        let hostAddress = IPAddress(host)
        for raw in list where !raw.isEmpty {
            var entry = raw.lowercased()
            if entry == "*" { return true }
            if entry.hasPrefix("["), let close = entry.firstIndex(of: "]") {
                entry = String(entry[entry.index(after: entry.startIndex)..<close]) + entry[entry.index(after: close)...]
            }
            if let slash = entry.firstIndex(of: "/") {
                if let hostAddress, let network = IPAddress(entry[..<slash]), let bits = Int(entry[entry.index(after: slash)...]),
                    contains(network: network, prefixLength: bits, address: hostAddress)
                {
                    return true
                }
                continue
            }
            if let entryAddress = IPAddress(entry) {
                if entryAddress == hostAddress { return true }
                continue
            }
            if hostAddress != nil { continue }
            while entry.hasPrefix(".") { entry.removeFirst() }
            let name = HostName.normalize(entry) ?? entry
            if host == name || host.hasSuffix("." + name) { return true }
        }
        return false
    }

    /// True when the first `prefixLength` bits of `address` and `network` agree (same family only).
    private static func contains(network: IPAddress, prefixLength: Int, address: IPAddress) -> Bool {
        guard network.family == address.family, prefixLength >= 0, prefixLength <= network.bytes.count * 8 else { return false }
        let whole = prefixLength / 8
        guard network.bytes.prefix(whole) == address.bytes.prefix(whole) else { return false }
        let rest = prefixLength % 8
        guard rest > 0 else { return true }
        let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - rest))
        return network.bytes[whole] & mask == address.bytes[whole] & mask
    }
}
