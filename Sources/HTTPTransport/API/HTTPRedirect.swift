import Foundation
import HTTPDNSCore

/// What a redirect response asks the client to do next (RFC 9110 §15.4), worked out against the
/// logical URL of the request: the host name, never the address the connection went to.
///
/// - 301, 302: POST becomes GET without its body (what every browser and curl do); other methods
///   are kept with their body.
/// - 303: every method but HEAD becomes GET without a body.
/// - 307, 308: method and body are kept.
///
/// The next hop is a request of its own: its host is resolved again and gets its own SNI, `Host`
/// and certificate check.
public struct HTTPRedirect: Sendable, Hashable {
    /// The statuses that redirect: 301, 302, 303, 307, 308.
    public static let statuses: Set<Int> = [301, 302, 303, 307, 308]

    /// The redirect status.
    public var status: Int
    /// Where to go: `Location` resolved against the request URL (RFC 3986 §5), absolute.
    public var location: URL
    /// The method of the next request.
    public var method: String
    /// Whether the next request carries the same body.
    public var keepsBody: Bool

    /// The redirect a response asks for, or nil when it asks for none: a status other than the
    /// five above, no `Location`, or one that does not parse to an `http`/`https` URL with a host.
    /// - Parameters:
    ///   - status: The response status.
    ///   - headers: The response fields (`Location` is looked up in any case).
    ///   - url: The logical URL of the request that got the response.
    ///   - method: The method of that request.
    public init?(status: Int, headers: HTTPHeaders, url: URL, method: String) {
        guard Self.statuses.contains(status),
            let value = headers[first: "Location"]?.trimmingWhitespace(), !value.isEmpty,
            let location = Self.resolve(value, against: url)
        else { return nil }
        self.status = status
        self.location = location
        (self.method, self.keepsBody) = Self.method(after: status, for: method)
    }

    /// The method for the request after a `status` redirect of a `method` request, and whether it
    /// keeps the body.
    public static func method(after status: Int, for method: String) -> (method: String, keepsBody: Bool) {
        switch status {
        case 301 where method.caseInsensitiveEquals("POST"), 302 where method.caseInsensitiveEquals("POST"): ("GET", false)
        case 303 where !method.caseInsensitiveEquals("HEAD"): ("GET", false)
        case 303: (method, false)
        default: (method, true)
        }
    }

    /// Fields for the next request from those of the last: content fields go with the body;
    /// credentials, cookies and a caller-supplied `Host` stay with the old origin (scheme, host,
    /// port). Names compare case-insensitively.
    public func headers(after headers: HTTPHeaders, from url: URL) -> HTTPHeaders {
        var result = headers
        if !keepsBody {
            for name in [
                "Content-Type", "Content-Length", "Content-Encoding", "Content-Language",
                "Content-Location", "Transfer-Encoding", "Digest", "Expect"
            ] {
                result.remove(name: name)
            }
        }
        if !Self.sameOrigin(url, location) {
            for name in ["Authorization", "Proxy-Authorization", "Cookie", "Host"] { result.remove(name: name) }
        }
        return result
    }

    /// The request for the next hop: `location`, the new method, the body when kept, and the
    /// fields from `headers(after:from:)`. Per-request settings (timeouts, trust, versions) carry
    /// over; `connectTo` does not, since it named addresses for the old host.
    public func request(after request: HTTPRequest) -> HTTPRequest {
        var next = request
        next.url = location
        next.method = method
        next.body = keepsBody ? request.body : nil
        next.headers = headers(after: request.headers, from: request.url)
        if !Self.sameHost(request.url, location) { next.connectTo = nil }
        return next
    }

    /// `url` as a `Referer` value: without user, password and fragment (RFC 9110 §10.1.3), as
    /// CURLOPT_AUTOREFERER sends it.
    public static func referer(for url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url.absoluteString }
        components.percentEncodedUser = nil
        components.percentEncodedPassword = nil
        components.percentEncodedFragment = nil
        return components.url?.absoluteString ?? url.absoluteString
    }

    /// `value` resolved against `base`; nil unless the result is http(s) with a host.
    static func resolve(_ value: String, against base: URL) -> URL? {
        let candidate =
            URL(string: value, relativeTo: base)
            ?? value.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed.union(["#", "%"]))
            .flatMap { URL(string: $0, relativeTo: base) }
        guard let url = candidate?.absoluteURL,
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host(percentEncoded: false), !host.isEmpty
        else { return nil }
        return url
    }

    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && sameHost(a, b) && effectivePort(a) == effectivePort(b)
    }

    static func sameHost(_ a: URL, _ b: URL) -> Bool {
        guard let x = a.host(percentEncoded: false), let y = b.host(percentEncoded: false) else { return false }
        return HostName.normalize(x) == HostName.normalize(y)
    }

    static func effectivePort(_ url: URL) -> Int {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    }
}
