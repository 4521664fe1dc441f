import DNSSEC
import DNSWire
import Foundation
import HTTPDNSCore

/// Validates RFC 8484 answers (RFC 4035 §5): fetches the DNSKEY and DS records of the zones between
/// a trust anchor and the answer over the endpoint that answered, with DO and CD, and keeps each
/// zone's verdict for its TTL, capped by the signatures' expiry (RFC 4035 §5.3.3).
///
/// A zone's DNSKEY and DS queries go out together; each level waits only for its parent's verdict.
final class DNSSECChain: Sendable {
    /// An answer and what validation made of it.
    struct Lookup: Sendable {
        var answer: ProviderAnswer
        var status: DNSSECStatus
        /// The responses it came in, by query type: what another resolver's answer is judged by.
        var responses: [(type: DNSRecordType, message: DNSMessage)] = []
    }

    /// What is known about a zone's keys.
    enum ZoneTrust: Sendable {
        /// The DNSKEY RRset validated from an anchor or a validated DS.
        case trusted(DNSSECTrustedKeySet)
        /// Anything else: insecure, bogus or indeterminate, with why.
        case untrusted(DNSSECStatus)
    }

    /// A failure to fetch a chain record, which makes the answer indeterminate.
    struct FetchFailure: Error {
        var reason: String
    }

    /// Verdicts kept after a failure to fetch, in seconds: a short while, so a flapping endpoint is asked again soon.
    static let failureTTL: Int64 = 5
    /// The longest a zone's verdict is kept, in seconds.
    static let maximumTTL: UInt32 = 86_400

    private let settings: HostResolver.DNSSECSettings
    private let transport: any DoHTransport
    private let maxResponseBytes: Int
    let validator: DNSSECValidator
    /// The anchors, loaded at the first validation when `settings.trustAnchors` is nil.
    private let anchors = LockedValue<Result<[TrustAnchor], DNSSECValidationError>?>(nil)
    /// Zone (canonical text) → verdict and when it expires, in the DNSSEC clock's seconds.
    private let zones = LockedValue<[String: (trust: ZoneTrust, expires: Int64)]>([:])
    /// Zone → the fetch of its verdict under way, which concurrent lookups (and the anchor zone's
    /// fetch started beside the address queries) share.
    private let fetching = LockedValue<[String: Task<ZoneTrust, Never>]>([:])

    /// nil when no host is validated (`configuration.dnssec`'s policies are all `.off`).
    init?(_ configuration: HostResolver.Configuration, transport: any DoHTransport) {
        guard configuration.dnssec.validatesAny else { return nil }
        self.settings = configuration.dnssec
        self.transport = transport
        self.maxResponseBytes = configuration.maxResponseBytes
        self.validator = DNSSECValidator(clock: configuration.dnssec.clock)
        if let given = configuration.dnssec.trustAnchors { anchors.withLock { $0 = .success(given) } }
    }

    /// Looks `name` up at `endpoint` with DO and CD (as `DoHClient.lookup`), then validates each
    /// family's response; the status is the worst of them (bogus, indeterminate, insecure, secure).
    /// - Throws: As `DoHClient.lookup`.
    func lookup(_ name: String, families: AddressFamilies, endpoint: DoHEndpoint, timeout: TimeInterval) async throws(ProviderFailure) -> Lookup {
        let messages = LockedValue<[(DNSRecordType, DNSMessage)]>([])
        var client = DoHClient(transport: transport, maxResponseBytes: maxResponseBytes)
        client.dnssecMessages = { type, message in messages.withLock { $0.append((type, message)) } }
        let context = Context(endpoint: endpoint, timeout: timeout)
        // Every chain to the name starts at the closest anchor's zone: its keys are asked for beside
        // the address queries (a child task, so the lookup owns it), and need no round trip of their own.
        let anchorZone = closestAnchorZone(of: name).flatMap { isKnown($0) ? nil : $0 }
        // Not awaited: validation below asks for the same zone and shares the fetch under way.
        async let _ = prefetchTrust(of: anchorZone, context)
        var answer = try await client.lookup(name, families: families, endpoint: endpoint, timeout: timeout)
        let received = messages.withLock { $0 }
        var statuses: [DNSSECStatus] = []
        var ttlCap: UInt32?
        for (type, message) in received {
            let (status, cap) = await validate(message, name: name, type: type, context)
            statuses.append(status)
            if let cap { ttlCap = min(ttlCap ?? cap, cap) }
        }
        if let ttlCap, case .addresses(let addresses, let ttl) = answer {
            answer = .addresses(addresses, ttl: min(ttl, TimeInterval(ttlCap)))
        }
        let status = statuses.max(by: { Self.rank($0) < Self.rank($1) }) ?? .indeterminate(reason: "no response to validate")
        return Lookup(answer: answer, status: status, responses: received.map { (type: $0.0, message: $0.1) })
    }

    /// Bogus outranks indeterminate, which outranks insecure, which outranks secure.
    static func rank(_ status: DNSSECStatus) -> Int {
        switch status {
        case .secure: 0
        case .insecure: 1
        case .indeterminate: 2
        case .bogus: 3
        }
    }

    struct Context: Sendable {
        var endpoint: DoHEndpoint
        var timeout: TimeInterval
    }

    // MARK: - One response

    /// Validates the answer section RRset by RRset (each CNAME link and the final RRset), and, when
    /// the final name has no RRset of `type`, the NXDOMAIN or NODATA proof in the authority section.
    /// - Returns: The status and the least signature-capped TTL of the answer's RRsets.
    private func validate(_ message: DNSMessage, name: String, type: DNSRecordType, _ context: Context) async -> (DNSSECStatus, UInt32?) {
        let now = settings.clock.secondsSince1970()
        var statuses: [DNSSECStatus] = []
        var ttlCap: UInt32?
        let answerSignatures = Self.signatures(in: message.answers)
        var owner = DNSCanonicalForm.name(name) ?? name
        var answered = false
        // Follow the chain from the name: each link's RRset is validated on its own (CNAME chains
        // may cross zones).
        for _ in 0..<16 {
            let cname = message.answers.filter { $0.type == .cname && DNSCanonicalForm.name($0.name) == owner }
            let wanted = message.answers.filter { $0.type == type && DNSCanonicalForm.name($0.name) == owner }
            let rrset = wanted.isEmpty ? cname : wanted
            guard !rrset.isEmpty else { break }
            let (status, cap) = await validateRRset(
                rrset, signatures: answerSignatures.filter { DNSCanonicalForm.name($0.owner) == owner }.map(\.rrsig), authority: message.authorities, now: now, context)
            statuses.append(status)
            if let cap { ttlCap = min(ttlCap ?? cap, cap) }
            if !wanted.isEmpty {
                answered = true
                break
            }
            guard case .cname(let target) = cname[0].data else { break }
            owner = DNSCanonicalForm.name(target) ?? target
        }
        if !answered {
            statuses.append(await validateDenial(message, name: owner, type: type, now: now, context))
        }
        let status = statuses.max(by: { Self.rank($0) < Self.rank($1) }) ?? .indeterminate(reason: "empty response")
        return (status, ttlCap)
    }

    /// One RRset of the answer: signed by its zone's trusted keys, with a wildcard expansion's proof;
    /// an unsigned RRset is insecure only below a proven unsigned delegation.
    private func validateRRset(
        _ rrset: [DNSResourceRecord], signatures: [RRSIG], authority: [DNSResourceRecord], now: Int64, _ context: Context
    ) async -> (DNSSECStatus, UInt32?) {
        let owner = DNSCanonicalForm.name(rrset[0].name) ?? rrset[0].name
        let type = rrset[0].type
        let covering = signatures.filter { $0.typeCovered == type }
        guard let signer = covering.first.map({ DNSCanonicalForm.name($0.signerName) ?? $0.signerName }) else {
            return (await insecurity(of: owner, unsigned: "\(Self.show(owner)) \(type)", context), nil)
        }
        if let wrong = wrongSigner(signer, owner: owner, type: type) { return (wrong, nil) }
        switch await trust(of: signer, context) {
        case .untrusted(let status):
            return (status, nil)
        case .trusted(let keySet):
            do throws(DNSSECValidationError) {
                let verified = try validator.verify(rrset, signatures: covering, keys: keySet.keys, zone: signer)
                let labels: Int
                do {
                    labels = try DNSCanonicalForm.labelCount(of: owner)
                } catch {
                    throw .malformedRecord(error)
                }
                if Int(verified.signature.labels) < labels {
                    let denial = try verifiedDenial(authority, zone: signer, keys: keySet.keys)
                    try denial.proveWildcardExpansion(owner, type: type, signatureLabels: verified.signature.labels)
                }
                return (.secure, verified.cappedTTL(rrset.map(\.ttl).min() ?? 0, now: now))
            } catch {
                return (Self.status(error), nil)
            }
        }
    }

    /// NXDOMAIN or NODATA for `name`: the SOA and NSEC/NSEC3 RRsets verified with the zone's keys,
    /// then `DNSSECDenial`'s proof.
    private func validateDenial(_ message: DNSMessage, name: String, type: DNSRecordType, now: Int64, _ context: Context) async -> DNSSECStatus {
        let signatures = Self.signatures(in: message.authorities)
        guard let signer = signatures.first(where: { [.soa, .nsec, .nsec3].contains($0.rrsig.typeCovered) }).map({ DNSCanonicalForm.name($0.rrsig.signerName) ?? $0.rrsig.signerName })
        else {
            return await insecurity(of: name, unsigned: "the denial of \(Self.show(name)) \(type)", context)
        }
        if let wrong = wrongSigner(signer, owner: name, type: .soa) { return wrong }
        switch await trust(of: signer, context) {
        case .untrusted(let status):
            return status
        case .trusted(let keySet):
            do {
                let denial = try verifiedDenial(message.authorities, zone: signer, keys: keySet.keys)
                let proof =
                    message.responseCode == .nameError ? try denial.proveNameError(name) : try denial.proveNoData(name, type: type)
                if case .nameError(optOut: true) = proof {
                    return .insecure(reason: "\(Self.show(name)) may be an unsigned delegation in an NSEC3 Opt-Out span of \(Self.show(signer))")
                }
                return .secure
            } catch {
                return Self.status(error)
            }
        }
    }

    /// The NSEC and NSEC3 records of `zone` in `records`, each RRset verified with `keys`.
    /// - Throws: `DNSSECValidationError` from `verify` or `DNSSECDenial`.
    private func verifiedDenial(_ records: [DNSResourceRecord], zone: String, keys: [DNSKEY]) throws(DNSSECValidationError) -> DNSSECDenial {
        let signatures = Self.signatures(in: records)
        let denials = records.filter { $0.type == .nsec || $0.type == .nsec3 }
        var verified: [DNSResourceRecord] = []
        for (owner, type) in Set(denials.map { RRsetKey(owner: DNSCanonicalForm.name($0.name) ?? $0.name, type: $0.type) }).map({ ($0.owner, $0.type) }) {
            var rrset = denials.filter { $0.type == type && DNSCanonicalForm.name($0.name) == owner }
            let covering = signatures.filter { DNSCanonicalForm.name($0.owner) == owner }.map(\.rrsig)
            let proof = try validator.verify(rrset, signatures: covering, keys: keys, zone: zone)
            // unbound's auth-zone hands out a wildcard's NSEC under the expanded name; its RRSIG's
            // labels show where it really is (RFC 4035 §5.3.2), and that is the owner it proves for.
            if let labels = try? DNSCanonicalForm.labels(of: owner), Int(proof.signature.labels) < labels.count {
                let wildcard = "*." + DNSCanonicalForm.name(labels: labels.suffix(Int(proof.signature.labels)))
                for index in rrset.indices { rrset[index].name = wildcard }
            }
            verified += rrset
        }
        return try DNSSECDenial(records: verified, zone: zone)
    }

    /// Bogus when `signer` cannot have signed data at `owner`: it must be the owner or an ancestor
    /// (RFC 4035 §5.3.1), and not above the closest trust anchor enclosing the owner, whose zone
    /// alone may start the chain (else a forged RRSIG naming a zone above the anchor would make
    /// signed data indeterminate rather than bogus).
    private func wrongSigner(_ signer: String, owner: String, type: DNSRecordType) -> DNSSECStatus? {
        let closestAnchor = closestAnchorZone(of: owner)
        guard DNSCanonicalForm.isSameOrAncestor(signer, of: owner), closestAnchor.map({ DNSCanonicalForm.isSameOrAncestor($0, of: signer) }) ?? true else {
            return .bogus(reason: DNSSECValidationError.wrongSigner(owner: owner, type: type, signer: signer).reason)
        }
        return nil
    }

    /// A name as messages show it: the root as ".".
    static func show(_ name: String) -> String { name.isEmpty ? "." : name }

    private struct RRsetKey: Hashable {
        var owner: String
        var type: DNSRecordType
    }

    /// RFC 6840 §5.2: an unsupported algorithm or digest is insecure, anything else bogus.
    static func status(_ error: DNSSECValidationError) -> DNSSECStatus {
        error.isBogus ? .bogus(reason: error.reason) : .insecure(reason: error.reason)
    }

    /// The RRSIGs among `records`, with their owners.
    static func signatures(in records: [DNSResourceRecord]) -> [(owner: String, rrsig: RRSIG)] {
        records.compactMap { record in
            guard record.type == .rrsig, case .rrsig(let rrsig)? = try? record.dnssecData() else { return nil }
            return (record.name, rrsig)
        }
    }

    // MARK: - Unsigned data

    /// Whether unsigned data at or below `name` is allowed: only below a delegation the parent proves,
    /// with a signed NSEC/NSEC3, to have no DS (RFC 4035 §5.2). Asks for the DS of `name`, then of
    /// each enclosing zone the unsigned answers name in their SOA, up to the root.
    private func insecurity(of name: String, unsigned what: String, _ context: Context) async -> DNSSECStatus {
        var candidate = name
        while true {
            if anchorsLoaded().contains(where: { $0.zone == candidate }) {
                return .bogus(reason: "\(what) has no RRSIG, yet the trust anchor for \(Self.show(candidate)) covers it")
            }
            let message: DNSMessage
            do {
                message = try await fetch(candidate, .ds, context)
            } catch {
                return .indeterminate(reason: "cannot fetch the DS of \(Self.show(candidate)): \(error.reason)")
            }
            let ds = message.answers.filter { $0.type == .ds && DNSCanonicalForm.name($0.name) == candidate }
            if !ds.isEmpty {
                return .bogus(reason: "\(what) has no RRSIG, yet \(Self.show(candidate)) has a DS, so its zone is signed")
            }
            let signatures = Self.signatures(in: message.authorities)
            if let signer = signatures.first.map({ DNSCanonicalForm.name($0.rrsig.signerName) ?? $0.rrsig.signerName }) {
                if let wrong = wrongSigner(signer, owner: candidate, type: .ds) { return wrong }
                // A DS, and its denial, come from the parent's side of the cut (RFC 4035 §5.2).
                if signer == candidate, !candidate.isEmpty {
                    return .bogus(reason: DNSSECValidationError.wrongSigner(owner: candidate, type: .ds, signer: signer).reason)
                }
                switch await trust(of: signer, context) {
                case .untrusted(let status):
                    return status
                case .trusted(let keySet):
                    do {
                        _ = try verifiedDenial(message.authorities, zone: signer, keys: keySet.keys).proveInsecureDelegation(candidate)
                        return .insecure(reason: "\(Self.show(signer)) proves \(Self.show(candidate)) an unsigned delegation (no DS)")
                    } catch {
                        return .bogus(reason: "\(what) has no RRSIG, and \(error.reason)")
                    }
                }
            }
            guard !candidate.isEmpty else {
                return .indeterminate(reason: "\(what) is unsigned, and no signed zone or trust anchor was found above it")
            }
            // The unsigned answer's SOA names the zone it came from: ask its DS next, else go up a label.
            let soaOwner = message.authorities.first(where: { $0.type == .soa }).map { DNSCanonicalForm.name($0.name) ?? $0.name }
            if let soaOwner, soaOwner != candidate, DNSCanonicalForm.isSameOrAncestor(soaOwner, of: candidate) {
                candidate = soaOwner
            } else {
                candidate = DNSCanonicalForm.parent(of: candidate)
            }
        }
    }

    // MARK: - Zone keys

    /// The verdict on `zone`'s keys: from the cache, from an anchor, or from the parent's validated DS
    /// (its DNSKEY and DS asked for together); a signed proof of no DS makes the zone insecure.
    func trust(of zone: String, _ context: Context) async -> ZoneTrust {
        let zone = DNSCanonicalForm.name(zone) ?? zone
        let now = settings.clock.secondsSince1970()
        if let cached = zones.withLock({ $0[zone] }), cached.expires > now { return cached.trust }
        // The task removes itself under the same lock it is added under, so it cannot end unseen.
        let task = fetching.withLock { running -> Task<ZoneTrust, Never> in
            if let task = running[zone] { return task }
            let task = Task {
                let (trust, ttl) = await self.fetchTrust(of: zone, context)
                self.zones.withLock { $0[zone] = (trust, now + ttl) }
                self.fetching.withLock { _ = $0.removeValue(forKey: zone) }
                return trust
            }
            running[zone] = task
            return task
        }
        return await task.value
    }

    /// `trust(of:)` for its cache, when there is a zone.
    private func prefetchTrust(of zone: String?, _ context: Context) async {
        if let zone { _ = await trust(of: zone, context) }
    }

    /// Whether `zone`'s verdict is cached and live, or being fetched.
    private func isKnown(_ zone: String) -> Bool {
        let now = settings.clock.secondsSince1970()
        if let cached = zones.withLock({ $0[zone] }), cached.expires > now { return true }
        return fetching.withLock { $0[zone] != nil }
    }

    /// The zone of the closest trust anchor at or above `name` (canonical), if any.
    private func closestAnchorZone(of name: String) -> String? {
        let owner = DNSCanonicalForm.name(name) ?? name
        return anchorsLoaded().map(\.zone).filter { DNSCanonicalForm.isSameOrAncestor($0, of: owner) }.max { $0.count < $1.count }
    }

    private func fetchTrust(of zone: String, _ context: Context) async -> (ZoneTrust, Int64) {
        let anchors: [TrustAnchor]
        switch loadAnchors() {
        case .success(let loaded): anchors = loaded
        case .failure(let error): return (.untrusted(.indeterminate(reason: error.reason)), Self.failureTTL)
        }
        async let keyResponse = fetchResult(zone, .dnskey, context)
        let zoneAnchors = anchors.filter { $0.zone == zone }
        var dsAnchors = zoneAnchors
        var dsTTL = Self.maximumTTL
        if zoneAnchors.isEmpty {
            guard !zone.isEmpty else {
                _ = await keyResponse
                return (.untrusted(.indeterminate(reason: "no trust anchor leads to the root's keys")), Int64(Self.maximumTTL))
            }
            let message: DNSMessage
            switch await fetchResult(zone, .ds, context) {
            case .failure(let failure):
                _ = await keyResponse
                return (.untrusted(.indeterminate(reason: "cannot fetch the DS of \(zone): \(failure.reason)")), Self.failureTTL)
            case .success(let got): message = got
            }
            let ds = message.answers.filter { $0.type == .ds && DNSCanonicalForm.name($0.name) == zone }
            if ds.isEmpty {
                // No DS: the zone is insecure if its parent proves it, else bogus (or unknown).
                _ = await keyResponse
                let status = await insecurity(of: zone, unsigned: "the keys of \(zone)", context)
                let ttl = Int64(message.authorities.map(\.ttl).min() ?? 60)
                return (.untrusted(status), min(ttl, Int64(Self.maximumTTL)))
            }
            let signatures = Self.signatures(in: message.answers).filter { DNSCanonicalForm.name($0.owner) == zone }.map(\.rrsig)
            guard let parent = signatures.first(where: { $0.typeCovered == .ds }).map({ DNSCanonicalForm.name($0.signerName) ?? $0.signerName }) else {
                _ = await keyResponse
                return (.untrusted(.bogus(reason: DNSSECValidationError.missingSignature(owner: zone, type: .ds).reason)), Int64(ds[0].ttl))
            }
            guard parent != zone, wrongSigner(parent, owner: zone, type: .ds) == nil else {
                _ = await keyResponse
                return (.untrusted(.bogus(reason: DNSSECValidationError.wrongSigner(owner: zone, type: .ds, signer: parent).reason)), Int64(ds[0].ttl))
            }
            switch await trust(of: parent, context) {
            case .untrusted(let status):
                _ = await keyResponse
                return (.untrusted(status), Self.failureTTL)
            case .trusted(let parentKeys):
                do throws(DNSSECValidationError) {
                    let verified = try validator.verify(ds, signatures: signatures, keys: parentKeys.keys, zone: parent)
                    dsTTL = verified.cappedTTL(ds.map(\.ttl).min() ?? 0, now: settings.clock.secondsSince1970())
                    dsAnchors = []
                    for record in ds {
                        do {
                            if case .ds(let parsed)? = try record.dnssecData() { dsAnchors.append(TrustAnchor(zone: zone, key: .ds(parsed))) }
                        } catch {
                            throw .malformedRecord(error)
                        }
                    }
                } catch {
                    _ = await keyResponse
                    return (.untrusted(Self.status(error)), Self.failureTTL)
                }
            }
        }
        let keyMessage: DNSMessage
        switch await keyResponse {
        case .failure(let failure): return (.untrusted(.indeterminate(reason: "cannot fetch the DNSKEY of \(zone): \(failure.reason)")), Self.failureTTL)
        case .success(let got): keyMessage = got
        }
        let keys = keyMessage.answers.filter { $0.type == .dnskey && DNSCanonicalForm.name($0.name) == zone }
        let signatures = Self.signatures(in: keyMessage.answers).filter { DNSCanonicalForm.name($0.owner) == zone }.map(\.rrsig)
        do {
            let keySet = try validator.validateKeySet(keys, signatures: signatures, zone: zone, anchors: dsAnchors)
            let ttl = min(dsTTL, keySet.proof.cappedTTL(keys.map(\.ttl).min() ?? 0, now: settings.clock.secondsSince1970()), Self.maximumTTL)
            return (.trusted(keySet), Int64(ttl))
        } catch {
            return (.untrusted(Self.status(error)), Self.failureTTL)
        }
    }

    private func loadAnchors() -> Result<[TrustAnchor], DNSSECValidationError> {
        anchors.withLock { loaded in
            if let loaded { return loaded }
            let result = Result { () throws(DNSSECValidationError) in try TrustAnchor.root() }
            loaded = result
            return result
        }
    }

    private func anchorsLoaded() -> [TrustAnchor] {
        (try? loadAnchors().get()) ?? []
    }

    // MARK: - Fetching

    private func fetchResult(_ name: String, _ type: DNSRecordType, _ context: Context) async -> Result<DNSMessage, FetchFailure> {
        do {
            return .success(try await fetch(name, type, context))
        } catch {
            return .failure(error)
        }
    }

    /// One query with DO and CD to the endpoint; NOERROR or NXDOMAIN.
    private func fetch(_ name: String, _ type: DNSRecordType, _ context: Context) async throws(FetchFailure) -> DNSMessage {
        let query: [UInt8]
        do {
            query = try DNSMessage.query(name: name.isEmpty ? "." : name, type: type, id: 0, paddingBlockSize: 128, dnssecOK: true, checkingDisabled: true)
        } catch {
            throw FetchFailure(reason: error.description)
        }
        let request = DoHClient.request(for: query, endpoint: context.endpoint)
        if let refusal = ProviderHTTP.cleartextRefusal(request.url) { throw FetchFailure(reason: refusal) }
        let response: DoHHTTPResponse
        do {
            response = try await transport.send(
                url: request.url, method: context.endpoint.method.rawValue, headers: request.headers, body: request.body,
                connectTo: context.endpoint.bootstrapAddresses, timeout: context.timeout, maxResponseBytes: maxResponseBytes)
        } catch {
            throw FetchFailure(reason: ProviderHTTP.oneLine(String(describing: error)))
        }
        guard response.status == 200 else { throw FetchFailure(reason: "HTTP \(response.status)") }
        let message: DNSMessage
        do {
            message = try DNSMessage(parsing: response.body)
            try message.validateResponse(toQueryFor: name.isEmpty ? "." : name, type: type, id: 0)
        } catch {
            throw FetchFailure(reason: "malformed DNS response: \(ProviderHTTP.oneLine(error.description))")
        }
        guard message.responseCode == .noError || message.responseCode == .nameError else {
            throw FetchFailure(reason: "DNS \(message.responseCode)")
        }
        guard !message.isTruncated else { throw FetchFailure(reason: "truncated DNS response (TC)") }
        return message
    }
}
