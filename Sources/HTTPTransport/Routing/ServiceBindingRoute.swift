import Foundation
import HTTPDNSCore

/// What a name's HTTPS records change about one request (RFC 9460 §7, §8, §9): the record chosen,
/// the port and addresses connected to, the HTTP versions its ALPN allows, and why any record was
/// passed over. SNI, `Host` and the certificate check always stay on the origin's name and
/// authority (RFC 9460 §7.2: the port changes only where the connection goes; the `Host` field keeps
/// the origin's authority, as for Alt-Svc, RFC 7838 §2.4).
///
/// `HTTPClient` builds one for each request whose resolution carries HTTPS records
/// (`HostResolution.serviceBindingRecords`) and reports it on `ConnectionReport.serviceBindingRoute`
/// and `HTTPClientError.serviceBindingRoute`. The rule is pure (`init(records:...)`), so it is
/// tested without a network.
public struct ServiceBindingRoute: Sendable, Hashable {
    /// The ServiceMode record used, nil when none was usable: the request then goes as it would
    /// without records, to the origin's addresses and port (`skipped` says why).
    public var record: ServiceBinding?
    /// The name whose addresses the connection uses: the origin's host, or the record's TargetName
    /// (RFC 9460 §2.5.2: `.` is the records' owner, which is the origin unless AliasMode led elsewhere).
    public var targetName: String
    /// The TCP port connected to: the record's `port`, else the origin's (RFC 9460 §7.2).
    public var port: Int
    /// The origin's host name.
    public var originName: String
    /// The origin's port, which the URL and the `Host` field keep.
    public var originPort: Int
    /// The HTTP version the record's ALPN allows, nil when it leaves the client's choice as it is
    /// (both `h2` and `http/1.1`): `.http1_1` when it offers no `h2`, `.http2` when it offers no
    /// `http/1.1` (`no-default-alpn`).
    public var httpVersion: HTTPVersionPreference?
    /// The ALPN protocols the record offers that this client can speak, in the record's order:
    /// `h2` and `http/1.1` (the default, unless `no-default-alpn`, RFC 9460 §7.1.2). `h3` is not
    /// among them: this libcurl has no HTTP/3 (`notes` says so).
    public var alpn: [String]
    /// The record's `ipv4hint` and `ipv6hint` addresses (RFC 9460 §7.3), for the TargetName while
    /// its own A/AAAA answer is not known.
    public var addressHints: [IPAddress]
    /// True when the connection went to `addressHints` because the TargetName's addresses were not
    /// known yet (their lookup then runs on for the cache, and the next request uses its answer).
    public var usedAddressHints = false
    /// True when the request's `http://` URL was upgraded to `https://` (RFC 9460 §9.5).
    public var upgradedToHTTPS = false
    /// The record's ECHConfigList octets (`ech`, draft-ietf-tls-svcb-ech), as received. Not used:
    /// OpenSSL 3.0 has no Encrypted ClientHello, so the ClientHello still carries the name in clear.
    public var echConfigList: [UInt8]?
    /// Why records were passed over (a hostile one: port 0, hints of the wrong family; one this
    /// client cannot use: a mandatory key it does not know, ALPN it cannot speak), one line each,
    /// in priority order; and what the chosen record offered that was not used (`h3`).
    public var notes: [String] = []

    /// Drops the record: the request goes to the origin's name and port with the client's own
    /// HTTP version, as without records; `note` says why.
    mutating func fallBackToOrigin(_ note: String) {
        notes.append(note)
        record = nil
        port = originPort
        targetName = originName
        httpVersion = nil
        usedAddressHints = false
    }

    /// Whether the record changed anything about the connection (port, name, version, hints).
    public var changesConnection: Bool {
        record != nil && (port != originPort || httpVersion != nil || usedAddressHints || targetName != originName)
    }

    /// Chooses the first usable ServiceMode record of `records` for an `https` request to `host`
    /// and `port`, or the first after `failed` (whose endpoint could not be reached: RFC 9460 §3
    /// tries the next alternative endpoint in priority order).
    ///
    /// A record is passed over, with a line in `notes`, when it is hostile (port 0; an `ipv4hint`
    /// holding an IPv6 address, an `ipv6hint` an IPv4 or IPv4-mapped one) or cannot be used here (a
    /// `mandatory` key not understood, `ech` included; no ALPN protocol in common with `version`).
    /// - Parameters:
    ///   - records: the origin's HTTPS records (AliasMode already followed by the resolver).
    ///   - host: the origin's normalized host name.
    ///   - port: the origin's port (443 for an upgraded `http://` URL).
    ///   - version: the client's HTTP version preference for the request.
    ///   - failed: a record of `records` already tried; only those after it are considered.
    /// - Returns: nil when `records` has no ServiceMode record, or when `port` is not 443: the
    ///   records of a name are those of its port 443 (RFC 9460 §9.1 asks `_PORT._https.NAME` for
    ///   another port, which the resolver does not ask).
    public init?(records: ServiceBindingRecords, host: String, port: Int, version: HTTPVersionPreference, after failed: ServiceBinding? = nil) {
        guard !records.records.isEmpty, port == 443 else { return nil }
        var candidates = records.records[...]
        if let failed, let index = candidates.firstIndex(of: failed) { candidates = candidates[(index + 1)...] }
        self.originName = host
        self.originPort = port
        self.targetName = host
        self.port = port
        self.alpn = []
        self.addressHints = []
        for record in candidates where !record.isAliasMode {
            switch Self.check(record, version: version) {
            case .failure(let reason):
                notes.append("HTTPS record priority \(record.priority) rejected: \(reason)")
            case .success(let usable):
                self.record = record
                self.targetName = record.effectiveTargetName(owner: records.name) ?? host
                if let recordPort = record.parameters.port { self.port = Int(recordPort) }
                self.alpn = usable.alpn
                self.httpVersion = usable.version
                self.addressHints = (record.parameters.ipv4Hints ?? []) + (record.parameters.ipv6Hints ?? [])
                self.echConfigList = record.parameters.ech
                if usable.offersHTTP3 { notes.append("HTTPS record priority \(record.priority): h3 skipped (this libcurl has no HTTP/3)") }
                if echConfigList != nil { notes.append("HTTPS record priority \(record.priority): ech not used (OpenSSL 3.0 has no Encrypted ClientHello)") }
                return
            }
        }
        notes.append("no usable HTTPS record: connecting to \(host)'s addresses on port \(port)")
    }

    /// Whether an `http://` request should go as `https://` (RFC 9460 §9.5): its port is 80 and
    /// `records` holds a ServiceMode record whose `mandatory` keys this client understands (an
    /// AliasMode record has been followed to one by the resolver). Other ports are left: their
    /// records would be `_PORT._https.NAME`'s, which the resolver does not ask.
    public static func upgradesToHTTPS(records: ServiceBindingRecords, port: Int) -> Bool {
        port == 80 && records.records.contains { !$0.isAliasMode && Self.mandatoryProblem($0) == nil }
    }

    /// `url` as `https`, an explicit port 80 dropped (RFC 9460 §9.5: "If the http URL explicitly
    /// specifies port 80, specify port 443", https's default); nil when it cannot be rebuilt.
    public static func upgradedURL(_ url: URL) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        components.scheme = "https"
        if components.port == 80 { components.port = nil }
        return components.url
    }

    /// The ALPN protocols and version a usable record gives.
    struct Usable {
        var alpn: [String]
        var version: HTTPVersionPreference?
        var offersHTTP3: Bool
    }

    /// The record's usable parts, or why it cannot be used.
    static func check(_ record: ServiceBinding, version: HTTPVersionPreference) -> Result<Usable, RejectionReason> {
        let parameters = record.parameters
        if let problem = mandatoryProblem(record) { return .failure(RejectionReason(problem)) }
        if parameters.port == 0 { return .failure(RejectionReason("port 0")) }
        if let wrong = parameters.ipv4Hints?.first(where: { $0.family != .ipv4 }) {
            return .failure(RejectionReason("ipv4hint holds the IPv6 address \(wrong)"))
        }
        if let wrong = parameters.ipv6Hints?.first(where: { $0.family != .ipv6 || Self.isIPv4Mapped($0) }) {
            return .failure(RejectionReason("ipv6hint holds the IPv4 address \(wrong)"))
        }
        var offered = parameters.alpnProtocols
        if !parameters.noDefaultALPN, !offered.contains("http/1.1") { offered.append("http/1.1") }
        let offersHTTP3 = offered.contains("h3")
        var usable = offered.filter { $0 == "h2" || $0 == "http/1.1" }
        if version == .http1_1 { usable.removeAll { $0 == "h2" } }
        guard !usable.isEmpty else {
            let wanted = version == .http1_1 ? "http/1.1 (HTTP/1.1 was asked for)" : "h2 or http/1.1"
            return .failure(RejectionReason("alpn \(offered.joined(separator: ",")) offers no \(wanted)"))
        }
        let chosen: HTTPVersionPreference? =
            switch (usable.contains("h2"), usable.contains("http/1.1")) {
            case (true, false): .http2
            case (false, true) where version != .http1_1: .http1_1
            default: nil
            }
        return .success(Usable(alpn: usable, version: chosen, offersHTTP3: offersHTTP3))
    }

    /// Why a record's `mandatory` keys keep this client from using it (RFC 9460 §8), nil when they do not.
    static func mandatoryProblem(_ record: ServiceBinding) -> String? {
        guard let key = record.parameters.unsupportedMandatoryKey else { return nil }
        if key == .ech { return "ech is mandatory and OpenSSL 3.0 has no Encrypted ClientHello" }
        return "mandatory key \(key) is not supported"
    }

    /// `::ffff:a.b.c.d` (RFC 4291 §2.5.5.2): an IPv4 address in IPv6 form.
    static func isIPv4Mapped(_ address: IPAddress) -> Bool {
        address.bytes.count == 16 && address.bytes.prefix(10).allSatisfy { $0 == 0 } && address.bytes[10] == 0xFF && address.bytes[11] == 0xFF
    }

    /// Why a record was passed over, as said in `notes`.
    struct RejectionReason: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

extension ServiceBindingRoute: CustomStringConvertible {
    /// What the record changed, on one line: `HTTPS record priority 1 (svc.test): port 8443,
    /// alpn h2 (HTTP/2), target alt.test, hints 127.0.0.1 used, upgraded from http`, or
    /// `no HTTPS record used` when none was.
    public var description: String {
        guard let record else { return "no HTTPS record used" + (upgradedToHTTPS ? " (upgraded from http)" : "") }
        var parts: [String] = []
        if upgradedToHTTPS { parts.append("upgraded http to https") }
        parts.append(port == originPort ? "port \(port) (unchanged)" : "port \(port) (not \(originPort))")
        let versionText = httpVersion.map { $0 == .http2 ? " (HTTP/2 only)" : " (HTTP/1.1)" } ?? ""
        parts.append("alpn \(alpn.joined(separator: ","))\(versionText)")
        if targetName != originName { parts.append("target \(targetName)") }
        if !addressHints.isEmpty {
            parts.append("hints \(addressHints.map(\.description).joined(separator: ","))\(usedAddressHints ? " used" : " not needed")")
        }
        if let echConfigList { parts.append("ech \(echConfigList.count) octets (not used)") }
        return "HTTPS record priority \(record.priority): " + parts.joined(separator: ", ")
    }
}
