import Foundation
import HTTPDNSCore

/// An HTTPDNS service API in the style of Alibaba Cloud EMAS HTTPDNS (from its public API reference):
///
/// - single: `GET {url}/{accountID}/d?host=NAME&query=4,6[&ip=ADDRESS]` →
///   `{"host","ips":[...],"ipsv6":[...],"ttl","origin_ttl","client_ip"}`;
/// - signed (when `secret` is set): `GET {url}/{accountID}/sign_d?host=NAME&query=…&t=EXPIRY&s=SIGN`
///   with `EXPIRY` a Unix time and `SIGN = md5("NAME-SECRET-EXPIRY")` in lower-case hex;
/// - batch (up to 5 names): `GET {url}/{accountID}/resolve?host=a,b,c&query=4,6` (`sign_resolve` signed,
///   the signature over the comma-joined names) → `{"dns":[{"host","ips","type":1|28,"ttl"}]}`.
///
/// An empty `ips`/`ipsv6` is NODATA (the API does not tell NXDOMAIN apart), cached for `ttl`.
/// Any status but 200 (403 bad account or signature, 429, 5xx) or malformed JSON is a failure of the
/// endpoint, so `HostResolver` fails over.
public struct AlibabaHTTPDNSEndpoint: ResolutionProvider, Hashable, CustomStringConvertible {
    /// The service's base URL, e.g. `https://203.107.1.1` (no account in it).
    /// Queries go only to an `https` URL: with any other scheme each lookup fails unsent
    /// (`.endpointFailed`, "not sent: 'http' scheme").
    public var url: URL
    public var bootstrapAddresses: [IPAddress]
    /// The account ID the API is addressed with.
    public var accountID: String
    /// The signing secret; `nil` uses the unsigned `d` / `resolve` APIs.
    public var secret: String?
    /// `ip`: answer as for a client at this address (the API's client-address parameter, not
    /// signed); nil: the address the request comes from.
    public var clientSubnet: IPAddress?
    /// How long a signed URL stays valid, in seconds (the `t` parameter is now plus this). Finite and
    /// above 0: a `HostResolver` given another throws `InvalidDurationError`.
    public var signatureLifetime: TimeInterval
    /// Seconds to add to this machine's clock for `t`: the right time minus the local time. The
    /// SDKs' documented correction for a skewed clock is `setAuthCurrentTime(time)` with a time from
    /// "a time service of your own" (https://help.aliyun.com/document_detail/157631.html): the
    /// API publishes no time endpoint. `correctingClock(to:now:)` sets it. Finite: a `HostResolver`
    /// given another throws `InvalidDurationError`.
    public var clockOffset: TimeInterval
    /// Whether signed requests also correct for the skew the service's `Date` field shows (learned
    /// from each response, per URL, for the process; a 403 after which it moved is asked again once,
    /// as Alibaba's documents advise). Default true. `t` is reckoned from the local clock plus
    /// `clockOffset` plus that skew.
    public var correctsClockFromResponses: Bool
    /// Where the service IPs come from: nil, `bootstrapAddresses` (or the system resolver for `url`);
    /// a schedule, its service IPs (asked of the scheduling API, `AlibabaServiceSchedule`), with
    /// `url` its `serviceURL` (see `init(schedule:secret:)`).
    public var schedule: AlibabaServiceSchedule?

    public init(
        url: URL, accountID: String, secret: String? = nil, clientSubnet: IPAddress? = nil, bootstrapAddresses: [IPAddress] = [],
        signatureLifetime: TimeInterval = 600, clockOffset: TimeInterval = 0, correctsClockFromResponses: Bool = true
    ) {
        self.url = url
        self.accountID = accountID
        self.secret = secret
        self.clientSubnet = clientSubnet
        self.bootstrapAddresses = bootstrapAddresses
        self.signatureLifetime = signatureLifetime
        self.clockOffset = clockOffset
        self.correctsClockFromResponses = correctsClockFromResponses
        self.schedule = nil
    }

    /// An endpoint that resolves through the service IPs `schedule` asks for, at its `serviceURL`,
    /// for its account.
    public init(schedule: AlibabaServiceSchedule, secret: String? = nil) {
        self.init(url: schedule.serviceURL, accountID: schedule.accountID, secret: secret)
        self.schedule = schedule
    }

    /// This endpoint with `clockOffset` set so that `t` is reckoned from `correctTime` (a time the
    /// caller trusts) rather than from this machine's clock.
    public func correctingClock(to correctTime: Date, now: Date = Date()) -> AlibabaHTTPDNSEndpoint {
        var copy = self
        copy.clockOffset = correctTime.timeIntervalSince(now).rounded()
        return copy
    }

    public var kind: String { "httpdns-ali" }
    public var source: ResolutionSource { .httpdns(endpoint: url) }
    public var batchLimit: Int { 5 }
    public var description: String { "\(url.absoluteString) (account \(accountID)\(secret == nil ? "" : ", signed"))" }

    /// `md5("HOST-SECRET-EXPIRY")` in lower-case hex, the API's `s` parameter.
    public static func signature(host: String, secret: String, expiry: Int) -> String {
        ProviderCrypto.md5Hex("\(host)-\(secret)-\(expiry)")
    }

    /// The request URL for one name (`d` or `sign_d`).
    /// - Parameter skew: Seconds the service's clock is ahead, added to `clockOffset` for `t`.
    public func requestURL(for name: String, families: AddressFamilies, now: Date = Date(), skew: TimeInterval = 0) -> URL {
        request(api: "d", host: name, families: families, now: now, skew: skew)
    }

    private func request(api: String, host: String, families: AddressFamilies, now: Date, skew: TimeInterval) -> URL {
        var items = [("host", host), ("query", Self.query(families))]
        if let clientSubnet { items.append(("ip", clientSubnet.description)) }
        // One path segment, whatever the ID holds: percent-encoded outside RFC 3986's unreserved
        // characters, and "." or ".." (which would move up the path) encoded too.
        var account = accountID.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? ""
        if account == "." || account == ".." { account = account.replacingOccurrences(of: ".", with: "%2E") }
        var path = "/\(account)/\(api)"
        if let secret {
            // lookup refuses an expiry out of range before it gets here; requestURL sends 0.
            let expiry = ProviderHTTP.expiry(now: now, offset: clockOffset + skew, lifetime: signatureLifetime) ?? 0
            items += [("t", String(expiry)), ("s", Self.signature(host: host, secret: secret, expiry: expiry))]
            path = "/\(account)/sign_\(api)"
        }
        return ProviderHTTP.url(url, path: path, items: items)
    }

    /// RFC 3986 §2.3.
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func query(_ families: AddressFamilies) -> String {
        switch families {
        case .ipv4: "4"
        case .ipv6: "6"
        case .both, .auto: "4,6"
        }
    }

    /// Why a signed request cannot be made: `signatureLifetime` or `clockOffset` not finite.
    private func expiryProblem() -> ProviderFailure? {
        guard secret != nil, ProviderHTTP.expiry(now: Date(), offset: clockOffset, lifetime: signatureLifetime) == nil else { return nil }
        return .endpointFailed(url, reason: "not sent: signatureLifetime \(signatureLifetime) and clockOffset \(clockOffset) give no valid expiry time")
    }

    public func lookup(_ name: String, families: AddressFamilies, transport: any DoHTransport, timeout: TimeInterval)
        async throws(ProviderFailure) -> ProviderAnswer
    {
        if let problem = expiryProblem() { throw problem }
        let response = try await send(api: "d", host: name, families: families, transport: transport, timeout: timeout)
        return try answer(single: response.body, families: families)
    }

    /// One GET of `api`; a signed one through `ProviderHTTP.expiringGet`, which corrects `t` for the
    /// service's clock.
    private func send(api: String, host: String, families: AddressFamilies, transport: any DoHTransport, timeout: TimeInterval)
        async throws(ProviderFailure) -> DoHHTTPResponse
    {
        let clock = secret != nil && correctsClockFromResponses ? ServerClockSkew.shared : nil
        return try await ProviderHTTP.expiringGet(
            endpoint: url, clock: clock, schedule: schedule, accept: "application/json", bootstrap: bootstrapAddresses, transport: transport,
            timeout: timeout
        ) { skew in request(api: api, host: host, families: families, now: Date(), skew: skew) }
    }

    /// The answer in a `d` / `sign_d` response body.
    func answer(single body: Data, families: AddressFamilies) throws(ProviderFailure) -> ProviderAnswer {
        let object = try ProviderHTTP.jsonObject(body, endpoint: url)
        let ipv4 = families.includes(.ipv4) ? try ProviderHTTP.addresses(object["ips"], family: .ipv4, endpoint: url, field: "ips") : []
        let ipv6 = families.includes(.ipv6) ? try ProviderHTTP.addresses(object["ipsv6"], family: .ipv6, endpoint: url, field: "ipsv6") : []
        guard let ttl = ProviderHTTP.seconds(object["ttl"]) else {
            throw .endpointFailed(url, reason: "malformed JSON response: no ttl")
        }
        let addresses = ipv6 + ipv4
        return addresses.isEmpty ? .noAddresses(negativeTTL: ttl) : .addresses(addresses, ttl: ttl)
    }

    public func lookup(batch names: [String], families: AddressFamilies, transport: any DoHTransport, timeout: TimeInterval)
        async throws(ProviderFailure) -> [String: ProviderAnswer]
    {
        guard names.count > 1 else {
            guard let name = names.first else { return [:] }
            return [name: try await lookup(name, families: families, transport: transport, timeout: timeout)]
        }
        guard names.count <= batchLimit else {
            throw .endpointFailed(url, reason: "a batch holds at most \(batchLimit) names, not \(names.count)")
        }
        if let problem = expiryProblem() { throw problem }
        let response = try await send(api: "resolve", host: names.joined(separator: ","), families: families, transport: transport, timeout: timeout)
        return try answers(batch: response.body, names: names, families: families)
    }

    /// The answers in a `resolve` / `sign_resolve` response body, for those of `names` it holds.
    func answers(batch body: Data, names: [String], families: AddressFamilies) throws(ProviderFailure) -> [String: ProviderAnswer] {
        let object = try ProviderHTTP.jsonObject(body, endpoint: url)
        guard let list = object["dns"] as? [Any] else { throw .endpointFailed(url, reason: "malformed JSON response: no 'dns' list") }
        var found: [String: (ipv6: [IPAddress], ipv4: [IPAddress], ttl: TimeInterval?)] = [:]
        for case let item as [String: Any] in list {
            guard let host = (item["host"] as? String).flatMap(HostName.normalize), names.contains(host) else { continue }
            let type = (item["type"] as? NSNumber)?.intValue ?? 1
            let family: IPAddress.Family = type == 28 ? .ipv6 : .ipv4
            guard families.includes(family) else { continue }
            let addresses = try ProviderHTTP.addresses(item["ips"], family: family, endpoint: url, field: "ips")
            var entry = found[host] ?? ([], [], nil)
            if family == .ipv6 { entry.ipv6 += addresses } else { entry.ipv4 += addresses }
            if let ttl = ProviderHTTP.seconds(item["ttl"]) { entry.ttl = min(entry.ttl ?? ttl, ttl) }
            found[host] = entry
        }
        var answers: [String: ProviderAnswer] = [:]
        for (host, entry) in found {
            let addresses = entry.ipv6 + entry.ipv4
            answers[host] = addresses.isEmpty ? .noAddresses(negativeTTL: entry.ttl) : .addresses(addresses, ttl: entry.ttl ?? 0)
        }
        return answers
    }
}
