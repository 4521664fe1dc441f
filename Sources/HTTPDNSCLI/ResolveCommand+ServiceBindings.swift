import Foundation
import HTTPDNS

extension ResolveCommand {
    /// `resolve --type HTTPS|SVCB`: each HOST's records (RFC 9460), AliasMode followed, one line per
    /// ServiceMode record in zone-file form (`OWNER. TTL IN TYPE RDATA`), `;` comment lines for the
    /// aliases followed and for a name without records; or one JSON object per host.
    static func runServiceBindings(
        _ hosts: [String], type: DNSRecordType, resolver: HostResolver, json: Bool, console: Console, maxTime: TimeInterval?
    ) async -> Int32 {
        var status = HTTPDNSTool.ExitStatus.success
        let deadline = maxTime.map { ContinuousClock.now + .seconds($0) }
        for host in hosts {
            do {
                let records = try await lookup(host, type: type, resolver: resolver, before: deadline, maxTime: maxTime)
                guard records.nameExists else {
                    throw ResolutionError.nameNotFound(host: HostName.normalize(host) ?? host, negativeTTL: records.ttl)
                }
                console.print(json ? jsonLine(host: host, type: type, records: records) : lines(host: host, type: type, records: records))
            } catch {
                status = report(error, host: host, json: json, console: console)
            }
        }
        return status
    }

    /// `resolver.serviceBindings(host:type:)`, given up at `deadline` (`-m`).
    private static func lookup(
        _ host: String, type: DNSRecordType, resolver: HostResolver, before deadline: ContinuousClock.Instant?, maxTime: TimeInterval?
    ) async throws -> ServiceBindingRecords {
        try await TimeLimitOption.limited(host, before: deadline, maxTime: maxTime) { try await resolver.serviceBindings(host: host, type: type) }
    }

    /// The text form: `; HOST: AliasMode -> TARGET` per alias, then `OWNER. TTL IN TYPE RDATA` per record,
    /// or `; HOST: no TYPE records`.
    static func lines(host: String, type: DNSRecordType, records: ServiceBindingRecords) -> String {
        var lines: [String] = []
        var from = HostName.normalize(host) ?? host
        for target in records.aliasChain {
            lines.append("; \(from): AliasMode -> \(target)")
            from = target
        }
        if records.records.isEmpty { lines.append("; \(records.name): no \(type) records") }
        let owner = records.name.isEmpty ? "." : records.name + "."
        for record in records.records {
            lines.append("\(owner) \(Int(records.ttl)) IN \(type) \(record.presentationFormat)")
        }
        return lines.joined(separator: "\n")
    }

    /// `{"host", "type", "name", "alias_chain", "ttl", "records": [{"priority", "target", "params", "presentation"}]}`.
    static func jsonLine(host: String, type: DNSRecordType, records: ServiceBindingRecords) -> String {
        let object: [String: Any] = [
            "host": HostName.normalize(host) ?? host,
            "type": type.description,
            "name": records.name,
            "alias_chain": records.aliasChain,
            "ttl": Int(records.ttl),
            "records": records.records.map { record -> [String: Any] in
                [
                    "priority": Int(record.priority),
                    "target": record.targetName.isEmpty ? "." : record.targetName + ".",
                    "params": jsonParameters(record.parameters),
                    "presentation": record.presentationFormat
                ]
            }
        ]
        return serialized(object)
    }

    /// Each present key by its name: lists for mandatory, alpn and the hints, a number for port,
    /// true for no-default-alpn, text for dohpath, base64 for ech and keys without a decoding.
    private static func jsonParameters(_ parameters: ServiceParameters) -> [String: Any] {
        var object: [String: Any] = [:]
        if let mandatory = parameters.mandatory { object["mandatory"] = mandatory.map(\.description) }
        if parameters.alpn != nil { object["alpn"] = parameters.alpnProtocols }
        if parameters.noDefaultALPN { object["no-default-alpn"] = true }
        if let port = parameters.port { object["port"] = Int(port) }
        if let hints = parameters.ipv4Hints { object["ipv4hint"] = hints.map(\.description) }
        if let ech = parameters.ech { object["ech"] = Data(ech).base64EncodedString() }
        if let hints = parameters.ipv6Hints { object["ipv6hint"] = hints.map(\.description) }
        if let path = parameters.dohPath { object["dohpath"] = path }
        for (key, value) in parameters.unknown { object[key.description] = Data(value).base64EncodedString() }
        return object
    }

    private static func serialized(_ object: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
