import Foundation
import HTTPDNSCore

extension HTTPClient {
    /// Applies the origin's HTTPS records to a request about to be sent (RFC 9460 §9): upgrades an
    /// `http://` URL on port 80 to `https://` (§9.5, `Configuration.upgradesToHTTPS`), chooses the
    /// record (`ServiceBindingRoute`), sets the HTTP version its ALPN allows, and for a TargetName
    /// other than the origin puts that name's addresses in `addresses`: known ones (a cache hit),
    /// else the record's hints of the families the origin's addresses have (`addresses` on entry)
    /// while a lookup runs on for the cache, else a lookup within `limit`
    /// seconds. When the TargetName does not resolve, the request goes to the origin's addresses
    /// and port (`notes` says why).
    /// With `failed` (a record whose endpoint could not be reached), the next usable record after it.
    /// - Returns: What the records changed; nil when they do not apply (no ServiceMode record, a
    ///   port other than 443 and not upgraded, `http` with the upgrade off).
    /// - Throws: `HTTPClientError` when the upgraded URL cannot be sent (it always can: the
    ///   origin's URL could), `CancellationError`.
    func followServiceBindings(
        _ records: ServiceBindingRecords, request: inout HTTPRequest, target: inout RequestTarget,
        addresses: inout [IPAddress]?, within limit: Double?, after failed: ServiceBinding? = nil
    ) async throws -> ServiceBindingRoute? {
        var upgraded = false
        if !target.isHTTPS {
            guard configuration.upgradesToHTTPS, ServiceBindingRoute.upgradesToHTTPS(records: records, port: target.port),
                let url = ServiceBindingRoute.upgradedURL(request.url)
            else { return nil }
            request.url = url
            target = try RequestTarget(url: url)
            upgraded = true
        }
        let version = request.httpVersion ?? configuration.httpVersion
        guard var route = ServiceBindingRoute(records: records, host: target.host, port: target.port, version: version, after: failed) else { return nil }
        route.upgradedToHTTPS = upgraded
        guard route.record != nil else { return route }
        let askedVersion = request.httpVersion
        if let chosen = route.httpVersion { request.httpVersion = chosen }
        guard route.targetName != target.host else { return route }
        let name = route.targetName
        let resolver = self.resolver
        if let known = try? resolver.resolveImmediately(host: name, port: route.port) {
            addresses = known.addresses
            return route
        }
        // Hints only of the families the resolver gave the origin (-4 or -6 is not undone by a hint).
        let families = Set((addresses ?? []).map(\.family))
        let hints = route.addressHints.filter { families.contains($0.family) }
        if !hints.isEmpty {
            // The hints now; the real answer for the cache, which the next request takes (RFC 9460 §7.3).
            route.usedAddressHints = true
            addresses = hints
            let port = route.port
            Task { _ = try? await resolver.resolve(host: name, port: port) }
            return route
        }
        do {
            addresses = try await resolve(host: name, port: route.port, within: limit, url: request.url).addresses
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            route.fallBackToOrigin(
                "TargetName \(name) of HTTPS record priority \(route.record?.priority ?? 0) did not resolve (\(error)): connecting to \(target.host)'s addresses on port \(route.originPort)")
            request.httpVersion = askedVersion
        }
        return route
    }
}
