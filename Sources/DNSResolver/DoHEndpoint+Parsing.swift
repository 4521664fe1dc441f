import Foundation
import HTTPDNSCore

extension DoHEndpoint {
    /// Why a DoH URL given on the command line was rejected.
    public enum ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// Not a URL at all.
        case malformedURL(String)
        /// The scheme is not `https` (RFC 8484 §3 requires HTTPS).
        case notHTTPS(String)
        /// There is no host, as in `https:///dns-query`.
        case missingHost(String)
        /// The host is not a valid host name or IP literal (RFC 1035 §2.3.4).
        case invalidHost(String)
        /// The port is not 1-65535.
        case invalidPort(String)
        /// User info, a fragment or a query other than the `{?dns}` template: DoH queries are built
        /// from the path alone.
        case unsupportedComponent(String, component: String)

        public var description: String {
            switch self {
            case .malformedURL(let text):
                "bad DoH URL '\(text)': expected https://host[:port][/path]"
            case .notHTTPS(let text):
                "bad DoH URL '\(text)': the scheme must be https (RFC 8484 §3)"
            case .missingHost(let text):
                "bad DoH URL '\(text)': no host"
            case .invalidHost(let text):
                "bad DoH URL '\(text)': the host is not a valid host name or IP address"
            case .invalidPort(let text):
                "bad DoH URL '\(text)': the port must be 1-65535"
            case .unsupportedComponent(let text, let component):
                "bad DoH URL '\(text)': remove the \(component)"
            }
        }
    }

    /// Parses `https://host[:port][/path]` as given to `--doh-url`.
    ///
    /// An RFC 8484 URI template suffix `{?dns}` is accepted and dropped; an empty path becomes
    /// `/dns-query`. Bootstrap addresses, when none are given, are the host itself for an IP literal,
    /// those of `wellKnown` for a well-known host, and otherwise none (the transport resolves the host).
    ///
    /// - Parameters:
    ///   - text: The URL.
    ///   - bootstrapAddresses: Where to connect for the host; see above when empty.
    ///   - method: `.get` (default) or `.post`.
    /// - Throws: `DoHEndpoint.ParseError` naming what is wrong.
    public init(parsing text: String, bootstrapAddresses: [IPAddress] = [], method: Method = .get) throws(ParseError) {
        var template = text.trimmingWhitespace()
        if template.hasSuffix("{?dns}") { template.removeLast("{?dns}".count) }
        guard let components = URLComponents(string: template), let scheme = components.scheme else {
            throw .malformedURL(text)
        }
        guard scheme.lowercased() == "https" else { throw .notHTTPS(text) }
        // The host as parsed (IDNA A-labels, percent-encoded): `components.host` would decode the
        // A-labels through ICU (loading its data, ~0.3 ms at every start-up) only for
        // `HostName.normalize` to encode them again through libidn2.
        // Decoded only when it has an escape: `removingPercentEncoding` goes through NSString and
        // CoreFoundation on Linux, about 1.3 ms of a cold start.
        guard let encodedHost = components.encodedHost, !encodedHost.isEmpty else { throw .missingHost(text) }
        // Escapes that do not decode to UTF-8 (`%FF`) make no host name.
        guard let rawHost = encodedHost.contains("%") ? encodedHost.removingPercentEncoding : encodedHost,
            !rawHost.isEmpty
        else { throw .invalidHost(text) }
        guard let host = HostName.normalize(rawHost) else { throw .invalidHost(text) }
        if let port = components.port, !(1...65535).contains(port) { throw .invalidPort(text) }
        if components.user != nil || components.password != nil {
            throw .unsupportedComponent(text, component: "user info")
        }
        if components.fragment != nil { throw .unsupportedComponent(text, component: "fragment") }
        if components.query != nil { throw .unsupportedComponent(text, component: "query") }

        var normalized = components
        // Only when it differs: the setter revalidates the host through `host`, and so through ICU.
        if scheme != "https" { normalized.scheme = "https" }
        if normalized.path.isEmpty { normalized.path = "/dns-query" }
        guard let url = normalized.url else { throw .malformedURL(text) }

        var addresses = bootstrapAddresses
        if addresses.isEmpty {
            if let literal = IPAddress(host) {
                addresses = [literal]
            } else if let known = Self.wellKnown.first(where: { $0.url.host?.lowercased() == host }) {
                addresses = known.bootstrapAddresses
            }
        }
        self.init(url: url, bootstrapAddresses: addresses, method: method)
    }
}
