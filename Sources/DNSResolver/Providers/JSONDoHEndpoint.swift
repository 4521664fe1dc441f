import Foundation
import HTTPDNSCore

/// A JSON DNS-over-HTTPS server (Google's and Cloudflare's `application/dns-json` API):
/// `GET {url}?name=NAME&type=A|AAAA`, answered with `{"Status": RCODE, "TC": bool,
/// "Answer": [{"name","type","TTL","data"}], "Authority": [...]}`.
///
/// RCODE 0 with addresses is an answer; RCODE 0 without is NODATA and RCODE 3 NXDOMAIN, both with the
/// negative TTL of an SOA in `Authority` (RFC 2308 §5: the lesser of its TTL and MINIMUM). Any other
/// RCODE, `TC`, a status other than 200 or malformed JSON is a failure of the endpoint.
public struct JSONDoHEndpoint: ResolutionProvider, Hashable, CustomStringConvertible {
    /// The API URL, e.g. `https://dns.google/resolve` or `https://cloudflare-dns.com/dns-query`.
    /// Queries go only to an `https` URL: with any other scheme each lookup fails unsent
    /// (`.endpointFailed`, "not sent: 'http' scheme").
    public var url: URL
    public var bootstrapAddresses: [IPAddress]

    public init(url: URL, bootstrapAddresses: [IPAddress] = []) {
        self.url = url
        self.bootstrapAddresses = bootstrapAddresses
    }

    public var kind: String { "json" }
    public var description: String { url.absoluteString }

    /// The media type sent in `Accept`.
    public static let mediaType = "application/dns-json"

    public func lookup(_ name: String, families: AddressFamilies, transport: any DoHTransport, timeout: TimeInterval)
        async throws(ProviderFailure) -> ProviderAnswer
    {
        var outcomes: [Result<ProviderAnswer, ProviderFailure>] = []
        switch families {
        case .ipv4: outcomes = [await query(name, type: 1, transport: transport, timeout: timeout)]
        case .ipv6: outcomes = [await query(name, type: 28, transport: transport, timeout: timeout)]
        case .both, .auto:
            async let six = query(name, type: 28, transport: transport, timeout: timeout)
            async let four = query(name, type: 1, transport: transport, timeout: timeout)
            outcomes = await [six, four]
        }
        return try ProviderAnswers.merge(outcomes)
    }

    private func query(_ name: String, type: Int, transport: any DoHTransport, timeout: TimeInterval) async -> Result<ProviderAnswer, ProviderFailure> {
        do throws(ProviderFailure) {
            let request = ProviderHTTP.url(url, path: "", items: [("name", name), ("type", type == 1 ? "A" : "AAAA")])
            let response = try await ProviderHTTP.get(request, endpoint: url, accept: Self.mediaType, bootstrap: bootstrapAddresses, transport: transport, timeout: timeout)
            return .success(try parse(response.body, name: name, type: type).aged(by: response.age))
        } catch {
            return .failure(error)
        }
    }

    /// The answer in a JSON response body for `name`'s records of `type` (1 = A, 28 = AAAA).
    func parse(_ body: Data, name: String, type: Int) throws(ProviderFailure) -> ProviderAnswer {
        let object = try ProviderHTTP.jsonObject(body, endpoint: url)
        guard let status = (object["Status"] as? NSNumber)?.intValue else {
            throw .endpointFailed(url, reason: "malformed JSON response: no Status")
        }
        if (object["TC"] as? Bool) == true { throw .endpointFailed(url, reason: "truncated DNS response (TC)") }
        let negativeTTL = Self.negativeTTL(object["Authority"])
        switch status {
        case 0: break
        case 3: return .nameNotFound(negativeTTL: negativeTTL)
        case 2: throw .endpointFailed(url, reason: "DNS SERVFAIL")
        case 5: throw .endpointFailed(url, reason: "DNS REFUSED")
        default: throw .endpointFailed(url, reason: "DNS RCODE \(status)")
        }
        let records = ((object["Answer"] as? [Any]) ?? []).compactMap { $0 as? [String: Any] }
        // Follow the CNAME chain from `name`, as the wire-format reader does: the TTL is the least
        // over the chain and the addresses, and records owned by names off the chain (which a
        // hostile or broken server may add) are ignored. A record without a name is taken as the
        // chain's.
        func owner(_ record: [String: Any]) -> String? { (record["name"] as? String).map(Self.canonical) }
        var current = Self.canonical(name)
        var visited: Set<String> = [current]
        var ttl: TimeInterval?
        while let alias = records.first(where: { ($0["type"] as? NSNumber)?.intValue == 5 && (owner($0) ?? current) == current }) {
            guard let target = (alias["data"] as? String).map(Self.canonical), !target.isEmpty else {
                throw .endpointFailed(url, reason: "malformed JSON response: a CNAME without a target")
            }
            guard visited.insert(target).inserted, visited.count <= 16 else {
                throw .endpointFailed(url, reason: "DNS SERVFAIL (CNAME loop or chain over 16 names)")
            }
            let aliasTTL = ProviderHTTP.seconds(alias["TTL"]) ?? 0
            ttl = min(ttl ?? aliasTTL, aliasTTL)
            current = target
        }
        var addresses: [IPAddress] = []
        var addressTTL: TimeInterval?
        for record in records where (owner(record) ?? current) == current {
            guard (record["type"] as? NSNumber)?.intValue == type else { continue }
            guard let data = record["data"] as? String, let address = IPAddress(data),
                address.family == (type == 1 ? .ipv4 : .ipv6)
            else {
                throw .endpointFailed(url, reason: "malformed JSON response: bad address '\(ProviderHTTP.printable(String(describing: record["data"] ?? "").prefix(80)))'")
            }
            let recordTTL = ProviderHTTP.seconds(record["TTL"]) ?? 0
            addressTTL = min(addressTTL ?? recordTTL, recordTTL)
            if !addresses.contains(address) { addresses.append(address) }
        }
        guard let addressTTL, !addresses.isEmpty else { return .noAddresses(negativeTTL: negativeTTL) }
        return .addresses(addresses, ttl: min(ttl ?? addressTTL, addressTTL))
    }

    /// A name as records compare: lower case, without the root's trailing dot.
    private static func canonical(_ name: String) -> String {
        let lowered = name.lowercased()
        return lowered.hasSuffix(".") ? String(lowered.dropLast()) : lowered
    }

    /// RFC 2308 §5: min(SOA TTL, SOA MINIMUM) from an `Authority` list, `nil` without an SOA.
    private static func negativeTTL(_ authority: Any?) -> TimeInterval? {
        for case let record as [String: Any] in (authority as? [Any]) ?? [] where (record["type"] as? NSNumber)?.intValue == 6 {
            let ttl = ProviderHTTP.seconds(record["TTL"])
            let minimum = (record["data"] as? String)?.split(separator: " ").last.flatMap { TimeInterval(String($0)) }
            switch (ttl, minimum) {
            case let (ttl?, minimum?): return min(ttl, minimum)
            case let (ttl?, nil): return ttl
            case let (nil, minimum?): return minimum
            case (nil, nil): return nil
            }
        }
        return nil
    }
}

/// Combining per-family outcomes into one answer, as `DoHClient` does for RFC 8484.
enum ProviderAnswers {
    /// Addresses from either family are an answer (TTL capped at `DoHClient.partialAnswerTTLCap` when the
    /// other family failed); NXDOMAIN from either is NXDOMAIN; NODATA from all is NODATA; else the
    /// first failure is thrown.
    static func merge(_ outcomes: [Result<ProviderAnswer, ProviderFailure>]) throws(ProviderFailure) -> ProviderAnswer {
        var addresses: [IPAddress] = []
        var ttl: TimeInterval?
        var notFound: [TimeInterval?] = []
        var noData: [TimeInterval?] = []
        var failures: [ProviderFailure] = []
        for outcome in outcomes {
            switch outcome {
            case .success(.addresses(let found, let foundTTL)):
                addresses += found.filter { !addresses.contains($0) }
                ttl = min(ttl ?? foundTTL, foundTTL)
            case .success(.nameNotFound(let negative)): notFound.append(negative)
            case .success(.noAddresses(let negative)): noData.append(negative)
            case .failure(let failure): failures.append(failure)
            }
        }
        if let ttl, !addresses.isEmpty {
            return .addresses(addresses, ttl: failures.isEmpty ? ttl : min(ttl, DoHClient.partialAnswerTTLCap))
        }
        if !notFound.isEmpty { return .nameNotFound(negativeTTL: notFound.compactMap { $0 }.min()) }
        if let failure = failures.first { throw failure }
        let negative = noData.contains { $0 == nil } ? nil : noData.compactMap { $0 }.min()
        return .noAddresses(negativeTTL: negative)
    }
}
