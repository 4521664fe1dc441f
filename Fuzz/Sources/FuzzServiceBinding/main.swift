// DNSWire: SVCB/HTTPS RDATA (RFC 9460 §2.2) parsing, its presentation format and re-encoding.
import DNSWire
import FuzzSupport
import HTTPDNSCore

runFuzzer { bytes in
    // Bit 0 of the first byte: SVCB or HTTPS (only named in errors; the rules are the same).
    let type: DNSRecordType = (bytes.first ?? 0) & 1 == 0 ? .https : .svcb
    guard let binding = try? ServiceBinding(wireRData: bytes, type: type) else { return }
    _ = binding.presentationFormat
    _ = binding.effectiveTargetName(owner: "svc.test")
    // What parsed must encode, and the encoding must parse back to the same value.
    let encoded: [UInt8]
    do {
        encoded = try binding.wireRData(type: type)
    } catch {
        fatalError("parsed RDATA does not encode: \(error)\ninput: \(bytes)")
    }
    guard let again = try? ServiceBinding(wireRData: encoded, type: type) else {
        fatalError("encoded RDATA does not parse: \(encoded)")
    }
    precondition(again == binding, "encoded RDATA parses differently:\n\(binding)\n\(again)\nencoded: \(encoded)")
}
