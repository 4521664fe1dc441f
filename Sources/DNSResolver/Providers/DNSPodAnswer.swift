import Foundation
import HTTPDNSCore

/// The text answer of Tencent Cloud HTTPDNS (after decryption), as "HTTP 请求方式查询" documents it
/// (https://www.tencentcloud.com/document/product/1130/44468, "请求说明" and "请求异常或无记录说明"):
///
///     2.3.3.4;2.3.3.5,120                                  one family, ttl=1
///     2.3.3.4;2.3.3.5,120-2402:4e00::2345,120|1.2.3.4      type=addrs (A, then AAAA), clientip
///     cloud.tencent.com.:2.3.3.4,120                       the name first (batch, query=1)
///     cloud.tencent.com.:0-0                               "0": no record of that family
///
/// A batch answer is one such line per name, separated by line feeds; the `|CLIENT-IP` suffix comes
/// once, after the last line. An empty text is "no record" for every name asked.
enum DNSPodAnswer {
    /// The answers for `names` in `text`.
    /// - Parameters:
    ///   - names: The names asked, normalized; a line for any other name is ignored. With one name,
    ///     a line without a `NAME.:` prefix is taken for it.
    ///   - families: The families asked, in the order the parts come: `[.ipv4]`, `[.ipv6]` or
    ///     `[.ipv4, .ipv6]` (`type=addrs`).
    /// - Returns: An answer for each name the text has a line for (for every name when it is empty):
    ///   `.addresses` (IPv6 first, the least TTL of the parts, 0 when none is given) or
    ///   `.noAddresses(negativeTTL: nil)`.
    /// - Throws: `.endpointFailed` for a line that is not of that form: a part that is neither `0`
    ///   nor `ADDRESS;ADDRESS...[,TTL]`, an address of another family, a TTL that is not a
    ///   non-negative integer, more parts than families asked, or a line without a name in a batch.
    static func parse(_ text: String, names: [String], families: [IPAddress.Family], endpoint: URL) throws(ProviderFailure) -> [String: ProviderAnswer] {
        var body = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !body.isEmpty else { return Dictionary(uniqueKeysWithValues: names.map { ($0, .noAddresses(negativeTTL: nil)) }) }
        // "|CLIENT-IP" (clientip=1) after the last line: the address the answer was chosen for.
        if let bar = body.lastIndex(of: "|") {
            let client = body[body.index(after: bar)...]
            guard IPAddress(client) != nil else { throw malformed("'|\(client.prefix(60))' is not a client address", endpoint: endpoint) }
            body = String(body[..<bar])
        }
        var answers: [String: ProviderAnswer] = [:]
        for line in body.split(whereSeparator: \.isNewline) where !line.allSatisfy(\.isWhitespace) {
            var records = Substring(line)
            var name: String? = names.count == 1 ? names[0] : nil
            // "NAME.:" first: an address holds no ".:" (IPv6 has ":" but never after a ".").
            if let prefix = line.range(of: ".:") {
                let given = String(line[..<prefix.lowerBound])
                guard let normalized = HostName.normalize(given) else { throw malformed("'\(given.prefix(60))' is not a host name", endpoint: endpoint) }
                name = normalized
                records = line[prefix.upperBound...]
            }
            guard let name else { throw malformed("a batch answer's line has no 'NAME.:' first: '\(line.prefix(80))'", endpoint: endpoint) }
            guard names.contains(name) else { continue }
            answers[name] = try answer(records, families: families, endpoint: endpoint)
        }
        return answers
    }

    /// `A-PART[-AAAA-PART]`, each `0` or `ADDRESS;ADDRESS...[,TTL]`.
    private static func answer(_ records: Substring, families: [IPAddress.Family], endpoint: URL) throws(ProviderFailure) -> ProviderAnswer {
        // IPv6 addresses hold no "-", so it only separates the parts.
        let parts = records.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count <= families.count else {
            throw malformed("\(parts.count) parts in '\(records.prefix(80))' for \(families.count) address \(families.count == 1 ? "family" : "families")", endpoint: endpoint)
        }
        var ipv4: [IPAddress] = []
        var ipv6: [IPAddress] = []
        var ttl: TimeInterval?
        for (part, family) in zip(parts, families) {
            let (addresses, partTTL) = try self.part(part, family: family, endpoint: endpoint)
            if family == .ipv4 { ipv4 = addresses } else { ipv6 = addresses }
            if let partTTL, !addresses.isEmpty { ttl = min(ttl ?? partTTL, partTTL) }
        }
        let addresses = ipv6 + ipv4
        return addresses.isEmpty ? .noAddresses(negativeTTL: nil) : .addresses(addresses, ttl: ttl ?? 0)
    }

    private static func part(_ part: Substring, family: IPAddress.Family, endpoint: URL) throws(ProviderFailure) -> ([IPAddress], TimeInterval?) {
        let fields = part.split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count <= 2 else { throw malformed("'\(part.prefix(80))'", endpoint: endpoint) }
        var ttl: TimeInterval?
        if fields.count == 2 {
            guard let value = Int(fields[1]), value >= 0 else { throw malformed("malformed TTL in '\(part.prefix(80))'", endpoint: endpoint) }
            ttl = TimeInterval(value)
        }
        var addresses: [IPAddress] = []
        for item in fields[0].split(separator: ";", omittingEmptySubsequences: false) {
            // "0": no record of this family ("0表示没有记录").
            if item == "0" { continue }
            guard let address = IPAddress(item), address.family == family else {
                throw malformed("'\(item.prefix(60))' is not an \(family == .ipv4 ? "IPv4" : "IPv6") address", endpoint: endpoint)
            }
            if !addresses.contains(address) { addresses.append(address) }
        }
        return (addresses, ttl)
    }

    private static func malformed(_ detail: String, endpoint: URL) -> ProviderFailure {
        .endpointFailed(endpoint, reason: "malformed answer: \(ProviderHTTP.printable(detail))")
    }
}
