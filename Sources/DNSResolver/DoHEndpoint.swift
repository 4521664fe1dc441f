import DNSWire
import Foundation
import HTTPDNSCore

/// An RFC 8484 DNS-over-HTTPS server: its URL, the addresses to reach it at, and the HTTP method.
public struct DoHEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// How queries are sent (RFC 8484 §4.1, which requires servers to implement both).
    public enum Method: String, Sendable, Hashable {
        /// The query is the request body, `Content-Type: application/dns-message`. Each POST is an
        /// upload, which `HTTPClient` keeps off shared HTTP/2 connections (README, "Request
        /// bodies"): A and AAAA then take a connection each, and a cold lookup two TLS handshakes.
        case post = "POST"
        /// The query travels in the URL as `?dns=` in base64url without padding (§6), with DNS ID 0;
        /// responses are cacheable by HTTP caches, whose `Age` is taken off the TTLs (§5.1). Queries
        /// in flight share one HTTP/2 connection. The default.
        case get = "GET"
    }

    /// The `https` URL queries are sent to (RFC 8484 §3), e.g. `https://cloudflare-dns.com/dns-query`.
    public var url: URL
    /// Where to connect for `url`'s host, so reaching the resolver needs no DNS itself. TLS is still
    /// verified for the URL's host. Empty: the transport resolves the host its own way.
    public var bootstrapAddresses: [IPAddress]
    /// The HTTP method; GET by default.
    public var method: Method
    /// The EDNS Client Subnet option sent with each query (RFC 7871), so the resolver answers as for
    /// a client in that network; nil (the default): none. `EDNSClientSubnet.optOut` asks the resolver
    /// to use none of the client's address. Opt-in: it tells each server on the way where the client is.
    public var clientSubnet: EDNSClientSubnet?

    /// - Parameters:
    ///   - url: An `https` URL with a host. Any other scheme is taken here, but no query is sent to
    ///     it: each lookup fails (`ProviderFailure.endpointFailed`, "not sent: 'http' scheme"), as
    ///     a cleartext query would hand the answer to the network. `DoHEndpoint(parsing:)` refuses it
    ///     at once.
    ///   - bootstrapAddresses: Addresses of `url`'s host.
    ///   - method: `.get` (default) or `.post`.
    public init(url: URL, bootstrapAddresses: [IPAddress], method: Method = .get) {
        self.url = url
        self.bootstrapAddresses = bootstrapAddresses
        self.method = method
        self.clientSubnet = nil
    }

    /// The URL, as given.
    public var description: String { url.absoluteString }

    /// Cloudflare (`1.1.1.1`).
    public static let cloudflare = DoHEndpoint(
        url: URL(string: "https://cloudflare-dns.com/dns-query")!,
        bootstrapAddresses: ["1.1.1.1", "1.0.0.1", "2606:4700:4700::1111"].compactMap { IPAddress($0) }
    )
    /// Google Public DNS (`8.8.8.8`).
    public static let google = DoHEndpoint(
        url: URL(string: "https://dns.google/dns-query")!,
        bootstrapAddresses: ["8.8.8.8", "8.8.4.4", "2001:4860:4860::8888"].compactMap { IPAddress($0) }
    )
    /// Quad9 (`9.9.9.9`, filtering malware domains).
    public static let quad9 = DoHEndpoint(
        url: URL(string: "https://dns.quad9.net/dns-query")!,
        bootstrapAddresses: ["9.9.9.9", "149.112.112.112"].compactMap { IPAddress($0) }
    )

    /// Public endpoints with their documented bootstrap addresses, in the default order of preference:
    /// Cloudflare, Google, Quad9.
    public static let wellKnown: [DoHEndpoint] = [cloudflare, google, quad9]
}
