import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import HTTPDNS

/// An `HTTPCookieJar` over Foundation's `HTTPCookieStorage`, for
/// `HTTPClient.execute(_:to:redirects:cookies:)` and `HTTPDNSURLProtocol`.
///
/// Cookies are selected by RFC 6265 §5.4 here, since swift-corelibs-foundation's
/// `cookies(for:)` matches the host only: domain-match (host-only cookies exactly), path-match
/// (§5.1.4), `Secure` only over https, unexpired; longer paths first.
///
/// ```swift
/// let response = try await client.execute(request, redirects: .follow, cookies: HTTPCookieStorageJar(.shared))
/// ```
public struct HTTPCookieStorageJar: HTTPCookieJar {
    public let storage: HTTPCookieStorage

    public init(_ storage: HTTPCookieStorage) {
        self.storage = storage
    }

    /// The cookies to send to `url`, in the order to send them.
    public func cookies(for url: URL) -> [HTTPCookie] {
        guard let host = url.host(percentEncoded: false).flatMap(HostName.normalize) else { return [] }
        let path = url.path(percentEncoded: true).isEmpty ? "/" : url.path(percentEncoded: true)
        let secure = url.scheme?.lowercased() == "https"
        let now = Date()
        return (storage.cookies(for: url) ?? [])
            .filter { cookie in
                Self.domainMatches(cookie.domain, host: host) && Self.pathMatches(cookie.path, requestPath: path)
                    && (!cookie.isSecure || secure) && (cookie.expiresDate.map { $0 > now } ?? true)
            }
            .sorted { $0.path.count > $1.path.count }
    }

    public func cookieHeader(for url: URL) -> String? {
        let cookies = cookies(for: url)
        guard !cookies.isEmpty else { return nil }
        return cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Stores the cookies of `setCookieValues` (one `Set-Cookie` field value each), received from
    /// `url`. A cookie without a `Path` attribute, or with one that does not start with "/", gets
    /// the default path of `url` (RFC 6265 §5.2.4, §5.1.4): swift-corelibs-foundation gives it "/",
    /// which would send it to every path of the host.
    public func storeCookies(_ setCookieValues: [String], from url: URL) {
        for value in setCookieValues {
            // One field at a time: a folded list is ambiguous, since Expires dates contain commas.
            var cookies = HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": value], for: url)
            let path = Self.path(ofSetCookie: value, from: url)
            cookies = cookies.map { cookie in
                guard cookie.path != path, var properties = cookie.properties else { return cookie }
                properties[.path] = path
                return HTTPCookie(properties: properties) ?? cookie
            }
            if !cookies.isEmpty { storage.setCookies(cookies, for: url, mainDocumentURL: url) }
        }
    }

    /// The cookie path a `Set-Cookie` value gives (RFC 6265 §5.3 step 7): its last `Path`
    /// attribute when that starts with "/" (§5.2.4), else the default path of `url`.
    static func path(ofSetCookie value: String, from url: URL) -> String {
        var given: Substring?
        for attribute in value.split(separator: ";", omittingEmptySubsequences: false).dropFirst() {
            let parts = attribute.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "path" else { continue }
            given = parts.count > 1 ? Substring(parts[1].trimmingCharacters(in: .whitespaces)) : ""
        }
        if let given, given.hasPrefix("/") { return String(given) }
        return defaultPath(of: url)
    }

    /// RFC 6265 §5.1.4: the request path up to, not including, its last "/"; "/" when that leaves
    /// nothing or the path does not start with "/".
    static func defaultPath(of url: URL) -> String {
        let path = url.path(percentEncoded: true)
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// RFC 6265 §5.1.3; a domain without a leading dot is a host-only cookie (§5.3 step 6).
    static func domainMatches(_ domain: String, host: String) -> Bool {
        let domain = domain.lowercased()
        guard domain.hasPrefix(".") else { return domain == host }
        let bare = String(domain.dropFirst())
        return host == bare || (host.hasSuffix(domain) && IPAddress(host) == nil)
    }

    /// RFC 6265 §5.1.4.
    static func pathMatches(_ cookiePath: String, requestPath: String) -> Bool {
        let cookiePath = cookiePath.isEmpty ? "/" : cookiePath
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).hasPrefix("/")
    }
}
