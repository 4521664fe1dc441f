import DNSWire
import Foundation
import HTTPDNSCore

/// One way of asking a trusted service for a name's addresses: RFC 8484 DoH (`DoHEndpoint`), JSON DoH
/// (`JSONDoHEndpoint`), or a vendor HTTPDNS API (`AlibabaHTTPDNSEndpoint`, `AlibabaHTTPDNSV2Endpoint`,
/// `DNSPodHTTPDNSEndpoint`).
///
/// Every provider reports the same outcomes: an `Answer` (addresses, NXDOMAIN, NODATA) or a
/// `ProviderFailure`. Anything that is not an answer about the name, HTTP 429 and 5xx included, is
/// `.endpointFailed` ("resolver unavailable": `HostResolver` fails over), never a DNS outcome.
public protocol ResolutionProvider: Sendable {
    /// Short name of the protocol, as `--provider` spells it: `doh`, `json`, `httpdns-ali`, `httpdns-ali-v2`, `httpdns-dnspod`.
    var kind: String { get }
    /// The URL identifying the endpoint, in messages and in `ResolutionSource`.
    var url: URL { get }
    /// Addresses of the endpoint's host; `HostResolver` rotates them after a failure.
    var bootstrapAddresses: [IPAddress] { get set }
    /// Where the answers it gives are said to come from.
    var source: ResolutionSource { get }
    /// How many names one `lookup(batch:)` request may carry (1: no batch API).
    var batchLimit: Int { get }

    /// Asks for the addresses of `name`.
    /// - Parameters:
    ///   - name: A normalized host name (A-labels, lower case, no trailing dot).
    ///   - families: `.ipv4`, `.ipv6` or `.both`.
    ///   - transport: The HTTPS client to send through.
    ///   - timeout: Seconds allowed for each HTTP exchange.
    /// - Throws: `ProviderFailure`.
    func lookup(_ name: String, families: AddressFamilies, transport: any DoHTransport, timeout: TimeInterval)
        async throws(ProviderFailure) -> ProviderAnswer

    /// Asks for several names in one request where the API allows it (at most `batchLimit`).
    /// - Returns: An answer for each name the service answered (names it left out are missing).
    func lookup(batch names: [String], families: AddressFamilies, transport: any DoHTransport, timeout: TimeInterval)
        async throws(ProviderFailure) -> [String: ProviderAnswer]

    /// Asks for the SVCB or HTTPS records of `name` (one query; RFC 9460), or nil when the provider
    /// cannot carry them (the default; the vendor HTTPDNS APIs answer addresses only). RFC 8484 DoH does.
    /// - Throws: `ProviderFailure`.
    func lookupServiceBindings(_ name: String, type: DNSRecordType, transport: any DoHTransport, timeout: TimeInterval)
        async throws(ProviderFailure) -> ServiceBindingAnswer?
}

extension ResolutionProvider {
    public var source: ResolutionSource { .doh(endpoint: url) }
    public var batchLimit: Int { 1 }

    /// One lookup per name, in order (for providers without a batch API).
    public func lookup(batch names: [String], families: AddressFamilies, transport: any DoHTransport, timeout: TimeInterval)
        async throws(ProviderFailure) -> [String: ProviderAnswer]
    {
        var answers: [String: ProviderAnswer] = [:]
        for name in names {
            answers[name] = try await lookup(name, families: families, transport: transport, timeout: timeout)
        }
        return answers
    }
}

extension DoHEndpoint: ResolutionProvider {
    public var kind: String { "doh" }

    public func lookup(_ name: String, families: AddressFamilies, transport: any DoHTransport, timeout: TimeInterval)
        async throws(ProviderFailure) -> ProviderAnswer
    {
        try await DoHClient(transport: transport).lookup(name, families: families, endpoint: self, timeout: timeout)
    }
}

/// Shared plumbing of the HTTP-based providers: one GET, status and size checks, failure wording.
enum ProviderHTTP {
    /// The largest provider response accepted, in bytes.
    static let maxResponseBytes = 65_535

    /// GETs `url` and returns the body of a 200 response.
    /// - Parameter secrets: Strings that travel in `url` (a token) and must not reach a message: a
    ///   transport error that quotes the URL has each replaced by `[redacted]`.
    /// - Throws: `.endpointFailed` for a URL that is not `https` (not sent), a transport error, any
    ///   status but 200 (429 and 5xx included), or a body over the limit.
    static func get(
        _ url: URL, endpoint: URL, accept: String?, bootstrap: [IPAddress], transport: any DoHTransport, timeout: TimeInterval,
        redacting secrets: [String] = []
    ) async throws(ProviderFailure) -> DoHHTTPResponse {
        try accepted(
            try await exchange(url, endpoint: endpoint, accept: accept, bootstrap: bootstrap, transport: transport, timeout: timeout, redacting: secrets),
            endpoint: endpoint)
    }

    /// GETs a URL with a signature that expires (`t`, `exp`), made by `makeURL` from the skew of this
    /// machine's clock that `clock` has learned, and lets `clock` learn from the answer's `Date`. A
    /// 403 after which the learned skew moved (the signature was judged by another clock) is asked
    /// again once with the new skew: Alibaba's documents say to correct the clock from the `Date`
    /// field ("服务IP调度接口": "您可以根据响应头中的Date进行校准").
    ///
    /// With a `schedule`, the request goes to its service IPs (asked for first when due) instead of
    /// `bootstrap`, and a transport failure marks them as failed.
    /// - Parameter clock: nil: no learning, skew 0.
    /// - Throws: As `get`, and what `makeURL` and the schedule throw.
    static func expiringGet(
        endpoint: URL, clock: ServerClockSkew?, schedule: AlibabaServiceSchedule? = nil, accept: String?, bootstrap: [IPAddress],
        transport: any DoHTransport, timeout: TimeInterval, makeURL: (_ skew: TimeInterval) throws(ProviderFailure) -> URL
    ) async throws(ProviderFailure) -> DoHHTTPResponse {
        let addresses = try await schedule?.addresses(transport: transport, timeout: timeout) ?? bootstrap
        func send(_ url: URL) async throws(ProviderFailure) -> DoHHTTPResponse {
            do {
                return try await exchange(url, endpoint: endpoint, accept: accept, bootstrap: addresses, transport: transport, timeout: timeout)
            } catch {
                if cleartextRefusal(url) == nil { schedule?.serviceFailed() }
                throw error
            }
        }
        guard let clock else { return try accepted(try await send(try makeURL(0)), endpoint: endpoint) }
        let skew = clock.skew(for: endpoint)
        var response = try await send(try makeURL(skew))
        let learned = clock.learn(dateField: response.date, for: endpoint, now: Date())
        if response.status == 403, learned != skew {
            response = try await send(try makeURL(learned))
            _ = clock.learn(dateField: response.date, for: endpoint, now: Date())
        }
        return try accepted(response, endpoint: endpoint)
    }

    /// One GET of `url`, whatever the status.
    /// - Throws: `.endpointFailed` for a URL that is not `https` (not sent) or a transport error.
    private static func exchange(
        _ url: URL, endpoint: URL, accept: String?, bootstrap: [IPAddress], transport: any DoHTransport, timeout: TimeInterval,
        redacting secrets: [String] = []
    ) async throws(ProviderFailure) -> DoHHTTPResponse {
        if let refusal = cleartextRefusal(url) { throw .endpointFailed(endpoint, reason: refusal) }
        do {
            return try await transport.send(
                url: url, method: "GET", headers: accept.map { [("Accept", $0)] } ?? [], body: nil,
                connectTo: bootstrap, timeout: timeout, maxResponseBytes: maxResponseBytes)
        } catch is CancellationError {
            throw .endpointFailed(endpoint, reason: "cancelled")
        } catch {
            throw .endpointFailed(endpoint, reason: redact(oneLine(String(describing: error)), secrets))
        }
    }

    /// `response` when it is a 200 within the size limit.
    /// - Throws: `.endpointFailed` for any other status (429 and 5xx named) or a body over the limit.
    private static func accepted(_ response: DoHHTTPResponse, endpoint: URL) throws(ProviderFailure) -> DoHHTTPResponse {
        guard response.status == 200 else {
            let detail = response.status == 429 ? " (rate limited)" : (500...599).contains(response.status) ? " (server error)" : ""
            let said = serverMessage(response.body).map { ": \($0)" } ?? ""
            throw .endpointFailed(endpoint, reason: "HTTP \(response.status)\(detail)\(said)")
        }
        guard response.body.count <= maxResponseBytes else {
            throw .endpointFailed(endpoint, reason: "response of \(response.body.count) bytes exceeds the \(maxResponseBytes)-byte limit")
        }
        return response
    }

    /// Why a query to `url` is not sent, or nil when it may be: only over HTTPS (RFC 8484 §3; the
    /// HTTPDNS APIs' plain-HTTP variants would hand the answers to the network this library guards
    /// against). The endpoints' initializers take any URL; this is where it is checked.
    static func cleartextRefusal(_ url: URL) -> String? {
        url.scheme?.lowercased() == "https"
            ? nil
            : "not sent: \(url.scheme.map { "'\($0)'" } ?? "no") scheme; DoH and HTTPDNS queries go over https only (RFC 8484 §3)"
    }

    /// What an error response says, when it says it briefly: the `code`, `message`, `msg` or `error`
    /// strings of a JSON object (the HTTPDNS APIs answer `{"code":"InvalidAccount"}` and the like), or
    /// a short single line of text; nil for anything else (an HTML error page, binary data). Control
    /// and format characters are shown as "?" (`printable`): the text reaches terminals.
    static func serverMessage(_ body: Data) -> String? {
        guard !body.isEmpty, body.count <= 1024 else { return nil }
        if let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] {
            let parts = ["code", "message", "msg", "error"].compactMap { key -> String? in
                guard let value = object[key] as? String, !value.isEmpty else { return nil }
                return "\(key) \(printable(value.prefix(200)))"
            }
            return parts.isEmpty ? nil : parts.joined(separator: ", ")
        }
        guard let text = String(data: body, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
            !text.isEmpty, text.count <= 200, !text.contains(where: \.isNewline), !text.hasPrefix("<")
        else { return nil }
        return "\"\(printable(text))\""
    }

    /// `base` with `path` appended and `items` as its query, percent-encoded.
    static func url(_ base: URL, path: String, items: [(String, String)]) -> URL {
        var components = URLComponents(url: base, resolvingAgainstBaseURL: false)!
        var basePath = components.percentEncodedPath
        while basePath.hasSuffix("/") { basePath.removeLast() }
        components.percentEncodedPath = basePath + path
        components.queryItems = items.map { URLQueryItem(name: $0.0, value: $0.1) }
        // URLComponents leaves "," and "+" alone; the APIs read them literally, which is what we want for ",".
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.url!
    }

    /// `now + offset + lifetime` as a Unix time in seconds (an API's expiry parameter), or nil when
    /// it is not a finite time between 1970 and the year 33658 (a misconfigured offset or lifetime).
    static func expiry(now: Date, offset: TimeInterval, lifetime: TimeInterval) -> Int? {
        let seconds = now.timeIntervalSince1970 + offset + lifetime
        guard seconds.isFinite, seconds >= 0, seconds < 1e12 else { return nil }
        return Int(seconds)
    }

    /// Parses a JSON object body.
    static func jsonObject(_ body: Data, endpoint: URL) throws(ProviderFailure) -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            throw .endpointFailed(endpoint, reason: "malformed JSON response")
        }
        return object
    }

    /// Addresses from JSON strings, only of `families`; a string that is not an address is a malformed answer.
    static func addresses(_ value: Any?, family: IPAddress.Family, endpoint: URL, field: String) throws(ProviderFailure) -> [IPAddress] {
        guard let value else { return [] }
        guard let strings = value as? [Any] else { throw .endpointFailed(endpoint, reason: "malformed JSON response: '\(field)' is not a list") }
        var result: [IPAddress] = []
        for item in strings {
            guard let text = item as? String, let address = IPAddress(text), address.family == family else {
                throw .endpointFailed(
                    endpoint, reason: "malformed JSON response: '\(field)' holds '\(printable(String(describing: item).prefix(80)))', not an \(family == .ipv4 ? "IPv4" : "IPv6") address")
            }
            if !result.contains(address) { result.append(address) }
        }
        return result
    }

    /// A JSON number as seconds, if it is a non-negative integer.
    static func seconds(_ value: Any?) -> TimeInterval? {
        guard let number = value as? NSNumber, number.doubleValue >= 0, number.doubleValue.isFinite else { return nil }
        return number.doubleValue.rounded(.down)
    }

    /// `text` with control, format and separator characters (Unicode Cc, Cf, Zl and Zp: line breaks,
    /// C0 and C1 terminal escapes, bidirectional overrides) shown as "?". Server text goes through
    /// it before it reaches a message: messages reach terminals.
    static func printable(_ text: some StringProtocol) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    switch scalar.properties.generalCategory {
                    case .control, .format, .lineSeparator, .paragraphSeparator: "?"
                    default: scalar
                    }
                }))
    }

    /// `text` with each of `secrets` (and its percent-encoded form) replaced by `[redacted]`.
    static func redact(_ text: String, _ secrets: [String]) -> String {
        var text = text
        for secret in secrets where !secret.isEmpty {
            text = text.replacingOccurrences(of: secret, with: "[redacted]")
            if let encoded = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics), encoded != secret {
                text = text.replacingOccurrences(of: encoded, with: "[redacted]")
            }
        }
        return text
    }

    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
