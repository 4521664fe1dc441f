/// The DNSSEC canonical forms (RFC 4034 §6): of a name, of the order of names, of a record's RDATA and
/// of an RRset, as signatures are computed over them.
public enum DNSCanonicalForm {
    /// The canonical wire form of a name (RFC 4034 §6.2): uncompressed, ASCII letters lower-cased.
    /// - Parameter name: Text form, any case, optional trailing dot, RFC 1035 §5.1 escapes; `""` or `"."` is the root.
    /// - Throws: `DNSSECRecordError.unencodableName`.
    public static func wireName(_ name: String) throws(DNSSECRecordError) -> [UInt8] {
        do {
            return try DNSName.encode(name.isEmpty ? "." : name, allowEscapes: true)
        } catch {
            throw .unencodableName(name)
        }
    }

    /// The module's text form of a name given in any case, with or without the trailing dot (`"."` and
    /// `""` give the root `""`); `nil` when it is not a valid name.
    public static func name(_ text: String) -> String? {
        text.isEmpty ? "" : DNSName.canonical(text)
    }

    /// Whether `zone` is `name` or an ancestor of it, label by label, case-insensitively (the root is
    /// an ancestor of every name). Invalid names are never related.
    public static func isSameOrAncestor(_ zone: String, of name: String) -> Bool {
        guard let zone = self.name(zone), let name = self.name(name) else { return false }
        return DNSName.isSameOrAncestor(zone, of: name)
    }

    /// The labels of a name, leftmost first, lower-cased (the root has none).
    /// - Throws: `DNSSECRecordError.unencodableName`.
    public static func labels(of name: String) throws(DNSSECRecordError) -> [[UInt8]] {
        do {
            return try DNSName.labels(of: name.isEmpty ? "." : name, allowEscapes: true)
        } catch {
            throw .unencodableName(name)
        }
    }

    /// The text form of a name from its labels, leftmost first (escapes where needed; no labels is the root `""`).
    public static func name(labels: some Collection<[UInt8]>) -> String {
        var text: [UInt8] = []
        for label in labels {
            if !text.isEmpty { text.append(UInt8(ascii: ".")) }
            DNSName.appendText(of: label[...], to: &text)
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The name one label up (`"b.c"` for `"a.b.c"`); the root for a single-label name or the root
    /// itself, and for an invalid name.
    public static func parent(of name: String) -> String {
        guard let labels = try? labels(of: name), labels.count > 1 else { return "" }
        return self.name(labels: labels.dropFirst())
    }

    /// The label count RRSIG's labels field is compared with (RFC 4034 §3.1.3): the root and a
    /// leading `*` label are not counted.
    /// - Throws: `DNSSECRecordError.unencodableName`.
    public static func labelCount(of name: String) throws(DNSSECRecordError) -> Int {
        let labels = try labels(of: name)
        return labels.first == [UInt8(ascii: "*")] ? labels.count - 1 : labels.count
    }

    /// Whether `lhs` sorts before `rhs` in canonical DNS name order (RFC 4034 §6.1): labels compared
    /// from the rightmost, each as lower-cased unsigned octets, a name before its descendants.
    /// Names that cannot be encoded sort as their raw text, after every valid name.
    public static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        guard let left = try? labels(of: lhs) else { return false }
        guard let right = try? labels(of: rhs) else { return true }
        return left.reversed().lexicographicallyPrecedes(right.reversed()) { $0.lexicographicallyPrecedes($1) }
    }

    /// The canonical RDATA of a record (RFC 4034 §6.2, RFC 6840 §5.1): names lower-cased in the RDATA
    /// of NS, MD, MF, CNAME, SOA, MB, MG, MR, PTR, MINFO, MX, RP, AFSDB, RT, PX, KX, SRV and DNAME;
    /// every other type's octets as held (NSEC's next name is not lower-cased).
    /// - Parameters:
    ///   - data: The record's RDATA as `DNSMessage` decodes it.
    ///   - type: The record's type, which says where `.other` octets hold names.
    /// - Throws: `DNSSECRecordError.invalidName` for octets that do not fit the type's layout,
    ///   `.unencodableName` for a decoded name that cannot be written.
    public static func rdata(_ data: DNSRecordData, type: DNSRecordType) throws(DNSSECRecordError) -> [UInt8] {
        if case .other(let octets) = data {
            var reader = DNSMessageReader(bytes: octets)
            do {
                return try DNSRDataLayout.expandingNames(type: type, reader: &reader, end: octets.count) ?? octets
            } catch {
                throw .invalidName(type: type, field: "RDATA", offset: reader.offset)
            }
        }
        do {
            return try DNSMessage.encode(data, type: type)
        } catch {
            throw .unencodableName("\(data)")
        }
    }

    /// The canonical form of an RRset as signed (RFC 4034 §6.3, §3.1.8.1): each record as owner ‖ type ‖
    /// class ‖ TTL ‖ RDLENGTH ‖ canonical RDATA, sorted by canonical RDATA, duplicates removed.
    /// - Parameters:
    ///   - records: One RRset: the same owner (any case), type and class.
    ///   - owner: The owner name to write, already in canonical wire form (RRSIG verification passes the
    ///     wildcard form, RFC 4035 §5.3.2).
    ///   - ttl: The TTL to write in every record: the RRSIG's original TTL.
    /// - Throws: `DNSSECRecordError.notOneRRset`, or any error of `rdata(_:type:)`.
    public static func rrset(_ records: [DNSResourceRecord], owner: [UInt8], ttl: UInt32) throws(DNSSECRecordError) -> [UInt8] {
        guard let first = records.first else { return [] }
        let firstOwner = try wireName(first.name)
        var rdatas: [[UInt8]] = []
        for record in records {
            guard record.type == first.type, record.recordClass == first.recordClass, try wireName(record.name) == firstOwner else {
                throw .notOneRRset(name: first.name, type: first.type)
            }
            let rdata = try rdata(record.data, type: record.type)
            guard rdata.count <= 65535 else { throw .rdataTooLong(type: record.type) }
            rdatas.append(rdata)
        }
        rdatas.sort { $0.lexicographicallyPrecedes($1) }
        var writer = DNSMessageWriter()
        var previous: [UInt8]?
        for rdata in rdatas where rdata != previous {
            writer.append(contentsOf: owner)
            writer.append(first.type.rawValue)
            writer.append(first.recordClass)
            writer.append(ttl)
            writer.append(UInt16(rdata.count))
            writer.append(contentsOf: rdata)
            previous = rdata
        }
        return writer.bytes
    }
}

extension RRSIG {
    /// The octets this signature is computed over (RFC 4034 §3.1.8.1): the RRSIG RDATA without the
    /// signature, then the RRset in canonical form with the original TTL, and the owner in wildcard
    /// form `*.<closest labels>` when `labels` is less than the owner's label count (RFC 4035 §5.3.2).
    /// - Parameter records: The RRset: one owner, class and type, the type this RRSIG covers.
    /// - Throws: `DNSSECRecordError.notOneRRset` (also for an empty set), `.typeNotCovered`,
    ///   `.tooManyLabels`, or a canonical-form error for a record.
    public func signedData(over records: [DNSResourceRecord]) throws(DNSSECRecordError) -> [UInt8] {
        guard let first = records.first else { throw .notOneRRset(name: "", type: typeCovered) }
        guard first.type == typeCovered else { throw .typeNotCovered(covered: typeCovered, type: first.type) }
        let ownerLabels = try DNSCanonicalForm.labels(of: first.name)
        guard Int(labels) <= ownerLabels.count else { throw .tooManyLabels(labels: labels, owner: first.name) }
        var owner: [UInt8] = []
        if Int(labels) < ownerLabels.count {
            owner = [1, UInt8(ascii: "*")]
        }
        for label in ownerLabels.suffix(Int(labels)) {
            owner.append(UInt8(label.count))
            owner += label
        }
        owner.append(0)
        return try rdataWithoutSignature() + DNSCanonicalForm.rrset(records, owner: owner, ttl: originalTTL)
    }
}
