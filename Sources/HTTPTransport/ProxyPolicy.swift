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

    /// The proxy for a request to `host:port` (normalized host) with `scheme`, or `nil` to go direct.
    public func proxy(scheme: String, host: String, port: Int) -> URL? {
        switch self {
        case .none:
            return nil
        case .environment:
            // getenv for the few names wanted: building `ProcessInfo.environment` (every variable,
            // as a dictionary) took a quarter of a keep-alive request's CPU time.
            return Self.fromVariables({ getenv($0).map { String(cString: $0) } }, scheme: scheme, host: host, port: port)
        case .variables(let variables):
            return Self.fromVariables({ variables[$0] }, scheme: scheme, host: host, port: port)
        case .fixed(let url, let bypass):
            return Self.bypasses(host: host, port: port, list: bypass) ? nil : url
        }
    }

    private static func fromVariables(_ variable: (String) -> String?, scheme: String, host: String, port: Int) -> URL? {
        func value(_ name: String, upper: Bool = true) -> String? {
            if let text = variable(name), !text.isEmpty { return text }
            if upper, let text = variable(name.uppercased()), !text.isEmpty { return text }
            return nil
        }
        let chosen = scheme == "https"
            ? value("https_proxy") ?? value("all_proxy")
            : value("http_proxy", upper: false) ?? value("all_proxy")
        guard let chosen else { return nil }
        let list = (value("no_proxy") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if bypasses(host: host, port: port, list: list) { return nil }
        // curl accepts "host:port" without a scheme and means http://.
        return URL(string: chosen.contains("://") ? chosen : "http://" + chosen)
    }

    /// curl's `no_proxy` matching: `*` matches everything; an entry matches the host itself and, for
    /// names, every name under it (a leading `.` is optional); IP literals match exactly.
    public static func bypasses(host: String, port: Int, list: [String]) -> Bool {
        for raw in list where !raw.isEmpty {
            var entry = raw.lowercased()
            if entry == "*" { return true }
            if entry.hasPrefix("[") , let close = entry.firstIndex(of: "]") { entry = String(entry[entry.index(after: entry.startIndex)..<close]) }
            if IPAddress(entry) != nil || IPAddress(host) != nil {
                if IPAddress(entry) == IPAddress(host) && IPAddress(host) != nil { return true }
                continue
            }
            while entry.hasPrefix(".") { entry.removeFirst() }
            let name = HostName.normalize(entry) ?? entry
            if host == name || host.hasSuffix("." + name) { return true }
        }
        return false
    }
}
