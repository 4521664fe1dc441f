import DNSWire
import Foundation
import HTTPDNSCore

/// An RFC 8484 DNS-over-HTTPS client: asks one endpoint for a name's A and/or AAAA records.
///
/// It keeps DNS outcomes (addresses, NXDOMAIN, NODATA) apart from failures of the endpoint (transport
/// errors, HTTP errors, malformed or truncated answers, SERVFAIL, REFUSED), which it throws so a caller
/// can try the next endpoint. It neither caches nor retries; `HostResolver` does both.
public struct DoHClient: Sendable {
    /// What an endpoint said about a name (every provider's answer type, named for DoH as it was first).
    public typealias Answer = ProviderAnswer
    /// Why a lookup gave no answer (every provider's failure type).
    public typealias Failure = ProviderFailure

    /// The RFC 8484 media type for DNS messages (§6).
    public static let mediaType = "application/dns-message"
    /// The longest TTL, in seconds, given to addresses of one family when the other family's query
    /// failed, so the missing family is asked again soon rather than forgotten for the whole TTL.
    public static let partialAnswerTTLCap: TimeInterval = 30
    /// The default response size limit: the largest DNS message (65,535 bytes).
    public static let defaultMaxResponseBytes = 65_535

    /// Where requests go.
    public let transport: any DoHTransport
    /// Responses with a larger body are endpoint failures.
    public var maxResponseBytes: Int
    /// DNSSEC validation: queries carry DO and CD, and each parsed response is handed to it.
    var dnssecMessages: (@Sendable (DNSRecordType, DNSMessage) -> Void)? = nil

    /// - Parameters:
    ///   - transport: The HTTPS client.
    ///   - maxResponseBytes: The largest response body accepted, in bytes; 65,535 by default.
    public init(transport: any DoHTransport, maxResponseBytes: Int = DoHClient.defaultMaxResponseBytes) {
        self.transport = transport
        self.maxResponseBytes = maxResponseBytes
    }

    /// Looks up the addresses of `name` at `endpoint`; with `.both`, A and AAAA are asked in parallel.
    ///
    /// When both families are asked, addresses from either are an answer: the other family may be
    /// NODATA, or even fail, in which case the TTL is capped at `partialAnswerTTLCap` (a partial DoH
    /// answer is better than failing over to a resolver without DoH's protection). NXDOMAIN from either
    /// is an answer; NODATA from both is `.noAddresses`. Anything else is a failure of the endpoint.
    ///
    /// - Parameters:
    ///   - name: A normalized host name (see `HostName.normalize`).
    ///   - families: The record types to ask for.
    ///   - endpoint: The server.
    ///   - timeout: Seconds allowed for each HTTP exchange.
    /// - Returns: The DNS outcome.
    /// - Throws: `Failure.invalidName` when no query can be built for `name`; `Failure.endpointFailed`
    ///   on a transport error, an HTTP status other than 200 or a Content-Type other than
    ///   `application/dns-message` (RFC 8484 §4.2.1), a body over `maxResponseBytes`, a malformed
    ///   message or one that does not answer the query (ID, QR, question), the TC bit, or an RCODE other than NOERROR/NXDOMAIN.
    public func lookup(
        _ name: String, families: AddressFamilies, endpoint: DoHEndpoint, timeout: TimeInterval
    ) async throws(Failure) -> Answer {
        let ipv4Query = families.includes(.ipv4) ? try query(name, type: .a, clientSubnet: endpoint.clientSubnet) : nil
        let ipv6Query = families.includes(.ipv6) ? try query(name, type: .aaaa, clientSubnet: endpoint.clientSubnet) : nil

        let outcomes: [FamilyOutcome]
        switch (ipv4Query, ipv6Query) {
        case (let v4?, let v6?):
            async let ipv6 = exchange(v6, name: name, type: .aaaa, endpoint: endpoint, timeout: timeout)
            async let ipv4 = exchange(v4, name: name, type: .a, endpoint: endpoint, timeout: timeout)
            outcomes = await [ipv6, ipv4]
        case (let v4?, nil):
            outcomes = [await exchange(v4, name: name, type: .a, endpoint: endpoint, timeout: timeout)]
        case (nil, let v6?):
            outcomes = [await exchange(v6, name: name, type: .aaaa, endpoint: endpoint, timeout: timeout)]
        case (nil, nil):
            preconditionFailure("AddressFamilies always includes a family")
        }
        return try merge(outcomes, endpoint: endpoint)
    }

    // MARK: - One query

    /// One record type's result from one endpoint.
    private enum FamilyOutcome {
        case answer(DNSAddressAnswer)
        case failed(type: DNSRecordType, reason: String)
    }

    func query(_ name: String, type: DNSRecordType, clientSubnet: EDNSClientSubnet? = nil) throws(Failure) -> [UInt8] {
        do {
            let dnssec = dnssecMessages != nil
            return try DNSMessage.query(
                name: name, type: type, id: 0, paddingBlockSize: 128, dnssecOK: dnssec, checkingDisabled: dnssec, clientSubnet: clientSubnet)
        } catch {
            throw .invalidName(name, reason: error.description)
        }
    }

    private func exchange(
        _ query: [UInt8], name: String, type: DNSRecordType, endpoint: DoHEndpoint, timeout: TimeInterval
    ) async -> FamilyOutcome {
        let message: DNSMessage
        let age: TimeInterval?
        switch await response(to: query, name: name, type: type, endpoint: endpoint, timeout: timeout) {
        case .success(let received): (message, age) = received
        case .failure(let failure): return .failed(type: type, reason: failure.reason)
        }
        let answer = message.addressAnswer(for: name, type: type)
        dnssecMessages?(type, message)
        switch answer {
        case .failure(let code):
            return .failed(type: type, reason: "DNS \(code)")
        case .truncated:
            return .failed(type: type, reason: "truncated DNS response (TC)")
        case .addresses, .nameError, .noData:
            return .answer(answer.aged(by: age))
        }
    }

    /// Why an exchange gave no usable message: one line for `Failure.endpointFailed`.
    struct ExchangeFailure: Error {
        var reason: String
    }

    /// Sends `query` and returns the parsed response that answers it, with the response's `Age` in
    /// seconds (RFC 8484 §5.1), or why there is none: a transport error, an HTTP status other than
    /// 200, a Content-Type other than `application/dns-message`, a body over `maxResponseBytes`, a
    /// malformed message or one that does not answer the query.
    func response(
        to query: [UInt8], name: String, type: DNSRecordType, endpoint: DoHEndpoint, timeout: TimeInterval
    ) async -> Result<(message: DNSMessage, age: TimeInterval?), ExchangeFailure> {
        func failure(_ reason: String) -> Result<(message: DNSMessage, age: TimeInterval?), ExchangeFailure> {
            .failure(ExchangeFailure(reason: reason))
        }
        let request = Self.request(for: query, endpoint: endpoint)
        if let refusal = ProviderHTTP.cleartextRefusal(request.url) { return failure(refusal) }
        let response: DoHHTTPResponse
        do {
            response = try await transport.send(
                url: request.url, method: endpoint.method.rawValue, headers: request.headers, body: request.body,
                connectTo: endpoint.bootstrapAddresses, timeout: timeout, maxResponseBytes: maxResponseBytes
            )
        } catch is CancellationError {
            return failure("cancelled")
        } catch {
            // Kept whole: a pin mismatch lists the presented chain one certificate per line.
            return failure(String(describing: error))
        }
        guard response.status == 200 else {
            return failure("HTTP \(response.status)" + (ProviderHTTP.serverMessage(response.body).map { ": \($0)" } ?? ""))
        }
        guard let contentType = response.contentType else {
            return failure("no Content-Type (expected \(Self.mediaType))")
        }
        guard Self.isDNSMessage(contentType) else {
            return failure("unexpected Content-Type '\(ProviderHTTP.printable(contentType.prefix(100)))' (expected \(Self.mediaType))")
        }
        guard response.body.count <= maxResponseBytes else {
            return failure("response of \(response.body.count) bytes exceeds the \(maxResponseBytes)-byte limit")
        }
        do {
            // HTTPS RDATA is checked only in answers to an SVCB/HTTPS query: a malformed one beside
            // addresses must not fail the address answer.
            let message = try DNSMessage(parsing: [UInt8](response.body), decodingServiceBindings: type == .svcb || type == .https)
            try message.validateResponse(toQueryFor: name, type: type, id: 0)
            return .success((message, response.age))
        } catch {
            return failure("malformed DNS response: \(ProviderHTTP.oneLine(error.description))")
        }
    }

    /// The HTTP request for `query` (RFC 8484 §4.1): GET with `?dns=` in base64url without padding,
    /// or POST with the message as the body.
    static func request(for query: [UInt8], endpoint: DoHEndpoint) -> (url: URL, headers: [(String, String)], body: Data?) {
        switch endpoint.method {
        case .get:
            let base = endpoint.url.absoluteString
            let separator = endpoint.url.query == nil ? "?" : "&"
            // base64url uses only unreserved URL characters, so the string needs no escaping.
            let url = URL(string: base + separator + "dns=" + base64URL(query)) ?? endpoint.url
            return (url, [("Accept", mediaType)], nil)
        case .post:
            return (endpoint.url, [("Accept", mediaType), ("Content-Type", mediaType)], Data(query))
        }
    }

    /// Base64url (RFC 4648 §5) without `=` padding, as RFC 8484 §6 requires for GET.
    static func base64URL(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// Whether a Content-Type names `application/dns-message`, ignoring case and parameters.
    private static func isDNSMessage(_ contentType: String) -> Bool {
        let type = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return type.trimmingWhitespace().lowercased() == mediaType
    }

    // MARK: - Combining A and AAAA

    private func merge(_ outcomes: [FamilyOutcome], endpoint: DoHEndpoint) throws(Failure) -> Answer {
        var addresses: [IPAddress] = []
        var ttl: UInt32?
        var nameErrorTTLs: [UInt32?] = []
        var noDataTTLs: [UInt32?] = []
        var failures: [(type: DNSRecordType, reason: String)] = []
        for outcome in outcomes {
            switch outcome {
            case .answer(.addresses(let found, let recordTTL, _)):
                addresses += found.filter { !addresses.contains($0) }
                ttl = min(ttl ?? recordTTL, recordTTL)
            case .answer(.nameError(let negativeTTL)):
                nameErrorTTLs.append(negativeTTL)
            case .answer(.noData(let negativeTTL)):
                noDataTTLs.append(negativeTTL)
            case .answer(.failure), .answer(.truncated):
                preconditionFailure("exchange(_:) reports these as failures")
            case .failed(let type, let reason):
                failures.append((type, reason))
            }
        }
        if let ttl, !addresses.isEmpty {
            let kept = failures.isEmpty ? TimeInterval(ttl) : min(TimeInterval(ttl), Self.partialAnswerTTLCap)
            return .addresses(addresses, ttl: kept)
        }
        if !nameErrorTTLs.isEmpty {
            // Either family's NXDOMAIN proves the name absent, so any SOA-derived TTL applies to both.
            return .nameNotFound(negativeTTL: nameErrorTTLs.compactMap { $0 }.min().map(TimeInterval.init))
        }
        if failures.isEmpty {
            // NODATA is per type: one family without an SOA makes the whole answer uncacheable.
            let negativeTTL = noDataTTLs.contains(where: { $0 == nil }) ? nil : noDataTTLs.compactMap { $0 }.min()
            return .noAddresses(negativeTTL: negativeTTL.map(TimeInterval.init))
        }
        let reasons = Set(failures.map(\.reason))
        let reason =
            reasons.count == 1
            ? failures[0].reason
            : failures.map { "\($0.type): \($0.reason)" }.joined(separator: "; ")
        throw .endpointFailed(endpoint.url, reason: reason)
    }
}

extension DNSAddressAnswer {
    /// The answer with `age` seconds taken off each TTL, never below 0: RFC 8484 §5.1, for a response
    /// an HTTP cache held that long (its `Age` header). nil or 0 leaves it as it is.
    func aged(by age: TimeInterval?) -> DNSAddressAnswer {
        guard let age, age > 0 else { return self }
        func less(_ ttl: UInt32) -> UInt32 { age >= TimeInterval(ttl) ? 0 : ttl - UInt32(age) }
        switch self {
        case .addresses(let addresses, let ttl, let canonicalName): return .addresses(addresses, ttl: less(ttl), canonicalName: canonicalName)
        case .nameError(let negativeTTL): return .nameError(negativeTTL: negativeTTL.map(less))
        case .noData(let negativeTTL): return .noData(negativeTTL: negativeTTL.map(less))
        case .failure, .truncated: return self
        }
    }
}

extension ProviderAnswer {
    /// The answer with `age` seconds taken off each TTL, never below 0 (RFC 8484 §5.1, as for
    /// `DNSAddressAnswer.aged(by:)`); for JSON DoH responses, which HTTP caches can hold as well.
    func aged(by age: TimeInterval?) -> ProviderAnswer {
        guard let age, age > 0 else { return self }
        func less(_ ttl: TimeInterval) -> TimeInterval { max(0, ttl - age) }
        switch self {
        case .addresses(let addresses, let ttl): return .addresses(addresses, ttl: less(ttl))
        case .nameNotFound(let negativeTTL): return .nameNotFound(negativeTTL: negativeTTL.map(less))
        case .noAddresses(let negativeTTL): return .noAddresses(negativeTTL: negativeTTL.map(less))
        }
    }
}
