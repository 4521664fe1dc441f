import DNSSEC
import DNSWire
import Foundation
import HTTPDNSCore

extension DNSSECChain {
    /// What the zone's signatures make of another resolver's answer for `name` (the system
    /// resolver's, in a hijack check), judged by the responses `trusted` came in: for each family
    /// asked, the RRSIGs over the name's addresses are verified over the other answer's addresses.
    ///
    /// - `secure`: the signatures verify over the other answer's addresses (its address set is the
    ///   signed one), or its addresses are all in a secure trusted answer.
    /// - `bogus`: the zone's keys are trusted and the other answer is not what they signed: other
    ///   addresses, addresses where a secure denial says there are none, or NXDOMAIN where signed
    ///   records exist.
    /// - `insecure` / `indeterminate`: nothing signed to judge it by (as the trusted answer was), or
    ///   no addresses of a family the zone signs (getaddrinfo may leave a family out).
    /// - Returns: nil when the other answer is no answer (its resolver failed).
    func judge(_ other: Result<[IPAddress], ResolutionError>, name: String, by trusted: Lookup, _ context: Context) async -> DNSSECStatus? {
        let addresses: [IPAddress]
        var deniesName = false
        switch other {
        case .success(let found): addresses = found
        case .failure(.nameNotFound):
            addresses = []
            deniesName = true
        case .failure(.noAddresses): addresses = []
        case .failure: return nil
        }
        var trustedAddresses: [IPAddress] = []
        if case .addresses(let found, _) = trusted.answer { trustedAddresses = found }
        var statuses: [DNSSECStatus] = []
        for (type, message) in trusted.responses {
            let family = addresses.filter { ($0.family == .ipv4) == (type == .a) }
            statuses.append(
                await judge(family, deniesName: deniesName, type: type, name: name, in: message, trusted: trusted.status, trustedAddresses: trustedAddresses, context))
        }
        return statuses.max { Self.rank($0) < Self.rank($1) } ?? .indeterminate(reason: "no response to judge by")
    }

    /// One family: `addresses` (maybe none) against the RRSIGs for `type` at the end of `name`'s
    /// CNAME chain in `message`.
    private func judge(
        _ addresses: [IPAddress], deniesName: Bool, type: DNSRecordType, name: String, in message: DNSMessage, trusted: DNSSECStatus, trustedAddresses: [IPAddress],
        _ context: Context
    ) async -> DNSSECStatus {
        let owner = Self.chainEnd(of: name, in: message)
        let signatures = Self.signatures(in: message.answers).filter { DNSCanonicalForm.name($0.owner) == owner && $0.rrsig.typeCovered == type }
        let shown = Self.show(owner)
        guard let signer = signatures.first.map({ DNSCanonicalForm.name($0.rrsig.signerName) ?? $0.rrsig.signerName }) else {
            // Nothing signed for the type at the name: a secure trusted answer proved its absence.
            guard trusted == .secure else { return Self.unjudged(trusted) }
            if addresses.isEmpty { return .secure }
            return .bogus(reason: "the zone's signed denial says \(shown) has no \(type) record, yet this answer has \(Self.list(addresses))")
        }
        let keys: [DNSKEY]
        switch await trust(of: signer, context) {
        case .untrusted(let status): return Self.unjudged(status)
        case .trusted(let keySet): keys = keySet.keys
        }
        guard !addresses.isEmpty else {
            let signed = "\(Self.show(signer)) signs \(type) records for \(shown)"
            if deniesName { return .bogus(reason: "\(signed), yet this answer says the name does not exist") }
            return .indeterminate(reason: "\(signed); this answer has none (a resolver may leave a family out)")
        }
        let ttl = signatures[0].rrsig.originalTTL
        let rrset = addresses.map { address in
            DNSResourceRecord(name: signatures[0].owner, type: type, ttl: ttl, data: type == .a ? .a(address) : .aaaa(address))
        }
        do {
            _ = try validator.verify(rrset, signatures: signatures.map(\.rrsig), keys: keys, zone: signer)
            return .secure
        } catch {
            // A part of a validated address set is the zone's data too (getaddrinfo may give fewer).
            if trusted == .secure, Set(addresses).isSubset(of: trustedAddresses) { return .secure }
            return .bogus(reason: "\(Self.list(addresses)) for \(shown) \(type) is not what \(Self.show(signer)) signed (\(error))")
        }
    }

    /// `name`'s canonical form after the CNAME links in `message`'s answer section (at most 16).
    private static func chainEnd(of name: String, in message: DNSMessage) -> String {
        var owner = DNSCanonicalForm.name(name) ?? name
        for _ in 0..<16 {
            guard let link = message.answers.first(where: { $0.type == .cname && DNSCanonicalForm.name($0.name) == owner }),
                case .cname(let target) = link.data
            else { break }
            owner = DNSCanonicalForm.name(target) ?? target
        }
        return owner
    }

    /// With nothing signed to judge by, another answer is no better known than the trusted one was:
    /// insecure or indeterminate; a bogus chain leaves it indeterminate.
    private static func unjudged(_ status: DNSSECStatus) -> DNSSECStatus {
        guard case .bogus(let reason) = status else { return status }
        return .indeterminate(reason: "cannot be judged: \(reason)")
    }

    private static func list(_ addresses: [IPAddress]) -> String {
        addresses.map(\.description).joined(separator: ", ")
    }
}
