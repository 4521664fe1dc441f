// DNSSEC: the DNSKEY, RRSIG, DS, NSEC, NSEC3 and NSEC3PARAM parsers and encoders, type bitmaps,
// canonical RDATA, key loading and signature checks through OpenSSL, NSEC/NSEC3 denial proofs and
// trust-anchor text.
import DNSSEC
import DNSWire
import FuzzSupport

let types: [DNSRecordType] = [.dnskey, .rrsig, .ds, .nsec, .nsec3, .nsec3param]
let namedTypes: [DNSRecordType] = [.ns, .mx, .srv, .ptr, .dname, DNSRecordType(rawValue: 26)]
let validator = DNSSECValidator(clock: FixedDNSSECClock(1_893_456_000))

runFuzzer { bytes in
    let (selector, rest) = split(bytes)
    switch selector % 9 {
    case 0...5:
        let type = types[Int(selector % 9)]
        guard let data = try? DNSSECRecordData(type: type, rdata: rest) else { return }
        // What parses encodes to RDATA that parses back to the same value (names lower-cased once).
        guard let encoded = try? data.rdata(), let again = try? DNSSECRecordData(type: type, rdata: encoded) else {
            fatalError("parsed \(type) RDATA does not re-encode and parse: \(rest)")
        }
        precondition(again == data, "\(type) RDATA parses differently after encoding:\n\(data)\n\(again)")
        exercise(data, rdata: rest)
    case 6:
        // A strictly parsed bitmap has exactly one wire form: the one it was read from.
        if let bitmap = try? DNSTypeBitmap(parsing: rest, type: .nsec) {
            precondition(bitmap.encoded == rest, "type bitmap re-encodes differently: \(rest) -> \(bitmap.encoded)")
        }
    case 7:
        let type = namedTypes[Int(selector / 9) % namedTypes.count]
        _ = try? DNSCanonicalForm.rdata(.other(rest), type: type)
    default:
        _ = try? TrustAnchor.parse(String(decoding: rest, as: UTF8.self), source: "fuzz")
    }
}

/// Puts a parsed record to work: keys are loaded and checked against a signature made of the same
/// bytes, NSEC/NSEC3 records are asked for denial proofs.
func exercise(_ data: DNSSECRecordData, rdata: [UInt8]) {
    let owner = "fuzz.test"
    switch data {
    case .dnskey(let key):
        let signature = RRSIG(
            typeCovered: .a, algorithm: key.algorithm, labels: 2, originalTTL: 300, expiration: 2_000_000_000, inception: 1_800_000_000,
            keyTag: key.keyTag, signerName: owner, signature: Array(rdata.suffix(96)))
        let record = DNSResourceRecord(name: owner, type: .a, ttl: 300, data: .other([192, 0, 2, 1]))
        try? validator.verify(signature, over: [record], with: key)
        _ = try? validator.matches(DS(keyTag: key.keyTag, algorithm: key.algorithm, digestType: .sha256, digest: rdata), key: key, owner: owner)
    case .nsec, .nsec3:
        var name = owner
        if case .nsec3 = data { name = NSEC3Hash.base32hex(Array(rdata.prefix(20))) + ".test" }
        guard let record = try? DNSResourceRecord(name: name, ttl: 300, dnssec: data),
            let denial = try? DNSSECDenial(records: [record], zone: "test")
        else { return }
        _ = try? denial.proveNameError("nope.fuzz.test")
        _ = try? denial.proveNoData(owner, type: .a)
        _ = try? denial.proveNoData("fuzz.test", type: .ds)
    default:
        break
    }
}
