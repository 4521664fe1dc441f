import DNSWire

/// What a negative answer's NSEC or NSEC3 records prove.
public enum DNSSECDenialProof: Hashable, Sendable {
    /// The name does not exist, and no wildcard could have made it (NXDOMAIN, RFC 4035 §5.4,
    /// RFC 5155 §8.4). `optOut` is `true` when the NSEC3 covering the next closer name has the
    /// Opt-Out flag: an unsigned delegation could exist there (RFC 5155 §9.2), so the denial is insecure.
    case nameError(optOut: Bool)
    /// The name exists without the type, and without a CNAME (NODATA, RFC 4035 §5.4, RFC 5155 §8.5).
    case noData
    /// The name is made by a wildcard that exists without the type (RFC 4035 §5.4, RFC 5155 §8.7).
    case wildcardNoData
    /// A DS query at an unsigned delegation inside an Opt-Out span (RFC 5155 §8.6): insecure.
    case optOutDelegation
}

/// The NSEC or NSEC3 records of one zone from a negative answer, and the proofs they make.
///
/// - Warning: The records must already be verified (`DNSSECValidator.verify(_:signatures:keys:zone:)`
///   on each NSEC/NSEC3 RRset with the zone's trusted keys): this type only judges what they say.
public struct DNSSECDenial: Sendable {
    /// An NSEC record and its owner.
    public struct NSECEntry: Hashable, Sendable {
        /// The owner name (text form).
        public var owner: String
        /// The RDATA.
        public var nsec: NSEC
    }

    /// An NSEC3 record with its owner's hash decoded.
    public struct NSEC3Entry: Hashable, Sendable {
        /// The owner's first label decoded from Base32hex: the hash of the name it stands for.
        public var ownerHash: [UInt8]
        /// The RDATA.
        public var nsec3: NSEC3
    }

    /// The zone the records belong to (text form).
    public let zone: String
    /// The NSEC records given.
    public let nsecs: [NSECEntry]
    /// The NSEC3 records given whose owner is a hash label directly under `zone`.
    public let nsec3s: [NSEC3Entry]

    /// Collects the NSEC and NSEC3 records among `records` (others, RRSIGs included, are skipped).
    /// - Throws: `DNSSECValidationError.malformedRecord` for NSEC/NSEC3 RDATA that cannot be read.
    public init(records: [DNSResourceRecord], zone: String) throws(DNSSECValidationError) {
        let zoneName = DNSCanonicalForm.name(zone) ?? zone
        var nsecs: [NSECEntry] = []
        var nsec3s: [NSEC3Entry] = []
        for record in records where record.type == .nsec || record.type == .nsec3 {
            let data: DNSSECRecordData?
            do {
                data = try record.dnssecData()
            } catch {
                throw .malformedRecord(error)
            }
            switch data {
            case .nsec(let nsec):
                nsecs.append(NSECEntry(owner: DNSCanonicalForm.name(record.name) ?? record.name, nsec: nsec))
            case .nsec3(let nsec3):
                guard let labels = try? DNSCanonicalForm.labels(of: record.name), let first = labels.first,
                    DNSCanonicalForm.name(labels: labels.dropFirst()) == zoneName,
                    let hash = NSEC3Hash.octets(base32hex: DNSCanonicalForm.name(labels: [first]))
                else { continue }
                nsec3s.append(NSEC3Entry(ownerHash: hash, nsec3: nsec3))
            default:
                continue
            }
        }
        self.zone = zoneName
        self.nsecs = nsecs
        self.nsec3s = nsec3s
    }

    /// Proves `name` does not exist (NXDOMAIN), with NSEC when there are NSEC records, else NSEC3.
    /// - Returns: `.nameError(optOut:)`.
    /// - Throws: `DNSSECValidationError.missingDenialProof` naming the gap.
    public func proveNameError(_ name: String) throws(DNSSECValidationError) -> DNSSECDenialProof {
        let name = DNSCanonicalForm.name(name) ?? name
        let fail = { (gap: DNSSECDenialGap) in DNSSECValidationError.missingDenialProof(name: name, type: .a, gap) }
        if !nsecs.isEmpty {
            if nsecs.contains(where: { $0.owner == name }) { throw fail(.nameExists(name)) }
            guard let cover = nsecs.first(where: { covers($0, name) }) else { throw fail(.nameNotCovered(name)) }
            let encloser = closestEncloser(of: name, cover: cover)
            let wildcard = "*." + encloser
            if nsecs.contains(where: { $0.owner == wildcard }) { throw fail(.wildcardNotDenied(wildcard)) }
            guard nsecs.contains(where: { covers($0, wildcard) }) else { throw fail(.wildcardNotDenied(wildcard)) }
            return .nameError(optOut: false)
        }
        let proof = try closestEncloserProof(name, fail: fail)
        guard proof.encloser != name else { throw fail(.nameExists(name)) }
        let wildcard = "*." + proof.encloser
        guard try nsec3Cover(wildcard, fail: fail) != nil else { throw fail(.wildcardNotDenied(wildcard)) }
        return .nameError(optOut: proof.nextCloserCover.isOptOut)
    }

    /// Proves `name` has no `type` RRset (NODATA), directly, at an empty non-terminal, through a
    /// wildcard, or (for DS, with NSEC3) through an Opt-Out span.
    /// - Throws: `DNSSECValidationError.missingDenialProof` naming the gap.
    public func proveNoData(_ name: String, type: DNSRecordType) throws(DNSSECValidationError) -> DNSSECDenialProof {
        let name = DNSCanonicalForm.name(name) ?? name
        let fail = { (gap: DNSSECDenialGap) in DNSSECValidationError.missingDenialProof(name: name, type: type, gap) }
        if !nsecs.isEmpty {
            if let match = nsecs.first(where: { $0.owner == name }) {
                try Self.checkTypes(match.nsec.types, type: type, at: name, fail: fail)
                return .noData
            }
            guard let cover = nsecs.first(where: { covers($0, name) }) else { throw fail(.nameNotCovered(name)) }
            // An empty non-terminal: the next name in the zone is below the name (RFC 4035 §3.1.3.2).
            if DNSCanonicalForm.isSameOrAncestor(name, of: cover.nsec.nextName) { return .noData }
            let wildcard = "*." + closestEncloser(of: name, cover: cover)
            guard let match = nsecs.first(where: { $0.owner == wildcard }) else { throw fail(.wildcardNotDenied(wildcard)) }
            try Self.checkTypes(match.nsec.types, type: type, at: wildcard, fail: fail)
            return .wildcardNoData
        }
        guard !nsec3s.isEmpty else { throw fail(.noRecords) }
        if let match = try nsec3Match(name, fail: fail) {
            try Self.checkTypes(match.nsec3.types, type: type, at: name, fail: fail)
            return .noData
        }
        let proof = try closestEncloserProof(name, fail: fail)
        if type == .ds {
            guard proof.nextCloserCover.isOptOut else { throw fail(.nameNotCovered(name)) }
            return .optOutDelegation
        }
        let wildcard = "*." + proof.encloser
        guard let match = try nsec3Match(wildcard, fail: fail) else { throw fail(.wildcardNotDenied(wildcard)) }
        try Self.checkTypes(match.nsec3.types, type: type, at: wildcard, fail: fail)
        return .wildcardNoData
    }

    /// Proves `name` is an unsigned delegation, which makes the zone below it insecure (RFC 4035 §5.2):
    /// NODATA for DS at a name whose NSEC or NSEC3 lists NS and not SOA, or (NSEC3) an Opt-Out span
    /// covering the name (RFC 5155 §8.6). A name without DS that is no delegation proves nothing.
    /// - Returns: `.noData` or `.optOutDelegation`.
    /// - Throws: `DNSSECValidationError.missingDenialProof` naming the gap (`.notADelegation` for a
    ///   name that exists without NS).
    public func proveInsecureDelegation(_ name: String) throws(DNSSECValidationError) -> DNSSECDenialProof {
        let name = DNSCanonicalForm.name(name) ?? name
        let fail = { (gap: DNSSECDenialGap) in DNSSECValidationError.missingDenialProof(name: name, type: .ds, gap) }
        let proof = try proveNoData(name, type: .ds)
        switch proof {
        case .optOutDelegation:
            return proof
        case .noData:
            let types = nsecs.isEmpty ? try nsec3Match(name, fail: fail)?.nsec3.types : nsecs.first(where: { $0.owner == name })?.nsec.types
            guard let types, types.contains(.ns), !types.contains(.soa) else { throw fail(.notADelegation(name)) }
            return proof
        case .nameError, .wildcardNoData:
            throw fail(.notADelegation(name))
        }
    }

    /// Proves that a wildcard answer was the right one (RFC 4035 §5.3.4, RFC 5155 §8.8): an answer whose
    /// RRSIG labels field is less than the name's label count was made from `*.<source>`, where the
    /// source is the rightmost `signatureLabels` labels, and is only valid when the name itself (with
    /// NSEC3: the next closer name, the source plus one label) does not exist.
    ///
    /// An answer that is not an expansion (`signatureLabels` at least the name's label count, not
    /// counting a leading `*`) needs no proof: the call returns at once.
    /// - Throws: `DNSSECValidationError.missingDenialProof` with `.nameExists` or `.nameNotCovered`.
    public func proveWildcardExpansion(_ name: String, type: DNSRecordType, signatureLabels: UInt8) throws(DNSSECValidationError) {
        let name = DNSCanonicalForm.name(name) ?? name
        let fail = { (gap: DNSSECDenialGap) in DNSSECValidationError.missingDenialProof(name: name, type: type, gap) }
        guard let labels = try? DNSCanonicalForm.labels(of: name), Int(signatureLabels) < labels.count, labels.first != [UInt8(ascii: "*")] else { return }
        if !nsecs.isEmpty {
            if nsecs.contains(where: { $0.owner == name }) { throw fail(.nameExists(name)) }
            guard nsecs.contains(where: { covers($0, name) }) else { throw fail(.nameNotCovered(name)) }
            return
        }
        guard !nsec3s.isEmpty else { throw fail(.noRecords) }
        let nextCloser = DNSCanonicalForm.name(labels: labels.suffix(Int(signatureLabels) + 1))
        if try nsec3Match(nextCloser, fail: fail) != nil { throw fail(.nameExists(nextCloser)) }
        guard try nsec3Cover(nextCloser, fail: fail) != nil else { throw fail(.nameNotCovered(nextCloser)) }
    }

    /// The type, CNAME and delegation checks of a record that matches the name (RFC 4035 §5.4,
    /// RFC 6840 §4.1, RFC 5155 §8.5-8.6): a DS denial needs the parent side of the cut (no SOA), any
    /// other type the authoritative side (not NS without SOA).
    private static func checkTypes(
        _ types: DNSTypeBitmap, type: DNSRecordType, at name: String, fail: (DNSSECDenialGap) -> DNSSECValidationError
    ) throws(DNSSECValidationError) {
        if types.contains(type) { throw fail(.typeExists(type)) }
        if types.contains(.cname) { throw fail(.cnameExists) }
        if type == .ds {
            if types.contains(.soa), !name.isEmpty { throw fail(.delegationOrDNAME(name)) }
        } else if types.contains(.ns) && !types.contains(.soa) || types.contains(.dname) {
            throw fail(.delegationOrDNAME(name))
        }
    }

    // MARK: NSEC

    /// Whether `entry` covers `name`: owner < name < next in canonical order, the last NSEC wrapping
    /// to the apex; an NSEC at a delegation or DNAME above the name covers nothing below it.
    private func covers(_ entry: NSECEntry, _ name: String) -> Bool {
        guard DNSCanonicalForm.isSameOrAncestor(zone, of: name), entry.owner != name else { return false }
        let types = entry.nsec.types
        if DNSCanonicalForm.isSameOrAncestor(entry.owner, of: name), types.contains(.dname) || types.contains(.ns) && !types.contains(.soa) {
            return false
        }
        let next = DNSCanonicalForm.name(entry.nsec.nextName) ?? entry.nsec.nextName
        let afterOwner = DNSCanonicalForm.precedes(entry.owner, name)
        let beforeNext = DNSCanonicalForm.precedes(name, next)
        return DNSCanonicalForm.precedes(entry.owner, next) ? afterOwner && beforeNext : afterOwner || beforeNext
    }

    /// The closest encloser a covering NSEC implies: the longer of the name's common ancestors with
    /// the NSEC's owner and next name (RFC 4592 §3.3.1 via RFC 4035 §5.4).
    private func closestEncloser(of name: String, cover: NSECEntry) -> String {
        let first = Self.commonAncestor(name, cover.owner), second = Self.commonAncestor(name, cover.nsec.nextName)
        return DNSCanonicalForm.isSameOrAncestor(first, of: second) ? second : first
    }

    private static func commonAncestor(_ lhs: String, _ rhs: String) -> String {
        var candidate = lhs
        while !DNSCanonicalForm.isSameOrAncestor(candidate, of: rhs) { candidate = DNSCanonicalForm.parent(of: candidate) }
        return candidate
    }

    // MARK: NSEC3

    private struct ClosestEncloserProof {
        let encloser: String
        let nextCloserCover: NSEC3
    }

    /// RFC 5155 §8.3: the longest ancestor of `name` (or `name` itself) that an NSEC3 matches, and an
    /// NSEC3 covering the next closer name (the encloser plus one more label of `name`).
    private func closestEncloserProof(_ name: String, fail: (DNSSECDenialGap) -> DNSSECValidationError) throws(DNSSECValidationError) -> ClosestEncloserProof {
        var candidate = name
        var nextCloser: String?
        while DNSCanonicalForm.isSameOrAncestor(zone, of: candidate) {
            if let match = try nsec3Match(candidate, fail: fail) {
                guard let nextCloser else { return ClosestEncloserProof(encloser: candidate, nextCloserCover: match.nsec3) }
                let types = match.nsec3.types
                if types.contains(.dname) || types.contains(.ns) && !types.contains(.soa) { throw fail(.delegationOrDNAME(candidate)) }
                guard let cover = try nsec3Cover(nextCloser, fail: fail) else { throw fail(.nameNotCovered(nextCloser)) }
                return ClosestEncloserProof(encloser: candidate, nextCloserCover: cover.nsec3)
            }
            if candidate.isEmpty { break }
            nextCloser = candidate
            candidate = DNSCanonicalForm.parent(of: candidate)
        }
        throw fail(.noClosestEncloser)
    }

    private func hash(_ name: String, _ entry: NSEC3Entry, fail: (DNSSECDenialGap) -> DNSSECValidationError) throws(DNSSECValidationError) -> [UInt8] {
        let parameters = entry.nsec3.parameters
        guard parameters.iterations <= NSEC3Hash.maximumIterations, let hash = NSEC3Hash.hash(name, parameters: parameters) else {
            throw fail(.unsupportedNSEC3Parameters(hashAlgorithm: parameters.hashAlgorithm, iterations: parameters.iterations))
        }
        return hash
    }

    private func nsec3Match(_ name: String, fail: (DNSSECDenialGap) -> DNSSECValidationError) throws(DNSSECValidationError) -> NSEC3Entry? {
        for entry in nsec3s where try hash(name, entry, fail: fail) == entry.ownerHash { return entry }
        return nil
    }

    /// An NSEC3 whose span (owner hash, next hash) holds the hash of `name`, wrapping at the end.
    private func nsec3Cover(_ name: String, fail: (DNSSECDenialGap) -> DNSSECValidationError) throws(DNSSECValidationError) -> NSEC3Entry? {
        for entry in nsec3s {
            let hashed = try hash(name, entry, fail: fail)
            let owner = entry.ownerHash, next = entry.nsec3.nextHashedOwner
            let afterOwner = owner.lexicographicallyPrecedes(hashed), beforeNext = hashed.lexicographicallyPrecedes(next)
            if owner.lexicographicallyPrecedes(next) ? afterOwner && beforeNext : afterOwner || beforeNext { return entry }
        }
        return nil
    }
}
