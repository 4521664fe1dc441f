import DNSWire
import Foundation
import HTTPDNSCore

/// An encrypted resolver that an unencrypted one designates through Discovery of Designated
/// Resolvers (RFC 9462): an SVCB record of `_dns.resolver.arpa` naming a DoH server (RFC 9461).
/// Found by `DesignatedResolver.candidates(of:timeout:)`; usable only once verified
/// (`DesignatedResolver.verified(of:dohTrust:timeout:)`, in `HTTPDNS`).
public struct DesignatedResolver: Sendable, Hashable, CustomStringConvertible {
    /// The unencrypted resolver that designated it (whose address the certificate must carry).
    public var unencrypted: PlainDNSServer
    /// The SVCB record, as served.
    public var record: ServiceBinding
    /// Where to send DoH queries: `https://TARGET:PORT` and the record's `dohpath`, reached at the
    /// record's address hints or, without hints, the TargetName's A and AAAA records from the same
    /// unencrypted resolver.
    public var endpoint: DoHEndpoint

    public var description: String { "\(endpoint.url.absoluteString) (designated by \(unencrypted))" }

    /// The SVCB name RFC 9462 §4 defines for the query.
    public static let queryName = "_dns.resolver.arpa"

    /// Asks each of `servers` for its designated resolvers (`_dns.resolver.arpa` SVCB, in parallel),
    /// keeping the records that name a DoH server this client can use, best priority first per server.
    /// - Parameter timeout: Seconds for each server's exchanges.
    /// - Returns: The candidates, in `servers`' order, and one reason per server or record passed over.
    public static func candidates(of servers: [PlainDNSServer], timeout: TimeInterval = 5) async -> (candidates: [DesignatedResolver], passedOver: [String]) {
        let found = await withTaskGroup(of: (Int, [DesignatedResolver], [String]).self) { group in
            for (index, server) in servers.enumerated() {
                group.addTask {
                    let (candidates, reasons) = await candidates(of: server, timeout: timeout)
                    return (index, candidates, reasons)
                }
            }
            var results: [(Int, [DesignatedResolver], [String])] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }
        }
        return (found.flatMap(\.1), found.flatMap(\.2))
    }

    private static func candidates(of server: PlainDNSServer, timeout: TimeInterval) async -> ([DesignatedResolver], [String]) {
        let records: [ServiceBinding]
        do {
            let response = try await PlainDNSExchange.query(queryName, type: .svcb, server: server, timeout: timeout)
            switch response.serviceBindingAnswer(for: queryName, type: .svcb) {
            case .records(let found, _, _): records = found
            case .nameError, .noData: return ([], ["\(server): designates no resolver (no \(queryName) SVCB record)"])
            case .failure(let code): return ([], ["\(server): \(queryName) SVCB: \(code)"])
            case .truncated: return ([], ["\(server): \(queryName) SVCB: truncated"])
            }
        } catch {
            return ([], ["\(server): \(queryName) SVCB: \(error)"])
        }
        var candidates: [DesignatedResolver] = []
        var reasons: [String] = []
        for designation in DesignatedResolverRecords.usable(records, reasons: &reasons, server: server) {
            var addresses = designation.hints
            if addresses.isEmpty {
                for type in [DNSRecordType.aaaa, .a] {
                    if let response = try? await PlainDNSExchange.query(designation.target, type: type, server: server, timeout: timeout),
                        case .addresses(let found, _, _) = response.addressAnswer(for: designation.target, type: type)
                    {
                        addresses += found
                    }
                }
            }
            guard !addresses.isEmpty else {
                reasons.append("\(server): \(designation.target) has no address (no hints, no A or AAAA record)")
                continue
            }
            candidates.append(
                DesignatedResolver(unencrypted: server, record: designation.record, endpoint: DoHEndpoint(url: designation.url, bootstrapAddresses: addresses)))
        }
        return (candidates, reasons)
    }
}

/// Which `_dns.resolver.arpa` SVCB records designate a DoH server this client can use (RFC 9461,
/// RFC 9462 §4), best first.
enum DesignatedResolverRecords {
    /// A usable record: its DoH URL, TargetName and address hints.
    struct Designation {
        var record: ServiceBinding
        var url: URL
        var target: String
        var hints: [IPAddress]
    }

    /// The usable records of `records` by priority (ties in their order); a reason in `reasons`
    /// for each other one.
    static func usable(_ records: [ServiceBinding], reasons: inout [String], server: PlainDNSServer) -> [Designation] {
        var usable: [Designation] = []
        let ordered = records.enumerated().sorted { ($0.element.priority, $0.offset) < ($1.element.priority, $1.offset) }.map(\.element)
        for record in ordered {
            let target = record.targetName.hasSuffix(".") ? String(record.targetName.dropLast()) : record.targetName
            func skip(_ why: String) { reasons.append("\(server): \(target.isEmpty ? "." : target): \(why)") }
            let parameters = record.parameters
            if record.isAliasMode {
                skip("AliasMode: DDR designates with ServiceMode records only")
            } else if target.isEmpty || target.lowercased() == "resolver.arpa" {
                // No certificate may name resolver.arpa (RFC 9462 §6.4): such a record cannot be verified.
                skip("the TargetName must name the designated resolver")
            } else if let unknown = parameters.unsupportedMandatoryKey {
                skip("mandatory key \(unknown) is not supported (RFC 9460 §8)")
            } else if parameters.port == 0 {
                skip("port 0")
            } else if !(parameters.alpnProtocols.contains("h2") || parameters.alpnProtocols.contains("http/1.1")) {
                let named = parameters.alpnProtocols.isEmpty ? "none" : parameters.alpnProtocols.joined(separator: ",")
                skip("alpn \(named): neither h2 nor http/1.1 (h3 cannot be used with this libcurl)")
            } else if let path = parameters.dohPath {
                let port = parameters.port.map { Int($0) } ?? 443
                guard let endpoint = try? DoHEndpoint(parsing: "https://\(target):\(port)\(path)") else {
                    skip("dohpath \(path) does not make a DoH URL")
                    continue
                }
                usable.append(Designation(record: record, url: endpoint.url, target: target, hints: (parameters.ipv6Hints ?? []) + (parameters.ipv4Hints ?? [])))
            } else {
                skip("no dohpath: not a DoH server (DoT or DoQ, which this client does not speak)")
            }
        }
        return usable
    }
}
