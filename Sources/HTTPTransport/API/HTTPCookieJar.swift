import Foundation

/// Where the redirect-following client keeps cookies. Cookies are always looked up and stored for
/// the logical URL of each hop (the host name), never for the address connected to.
///
/// `HTTPDNSURLSession` provides one backed by Foundation's `HTTPCookieStorage`
/// (`HTTPCookieStorageJar`), with RFC 6265 domain and path matching.
public protocol HTTPCookieJar: Sendable {
    /// The value for a `Cookie` field on a request to `url`, or nil when no cookie applies.
    func cookieHeader(for url: URL) -> String?
    /// Stores the cookies of a response from `url`: every `Set-Cookie` field value, one per element.
    func storeCookies(_ setCookieValues: [String], from url: URL)
}
