// DNSWire: RFC 1035 message parsing, the address-answer interpretation and re-encoding.
import DNSWire
import FuzzSupport

runFuzzer { bytes in
    guard let message = try? DNSMessage(parsing: bytes) else { return }
    let name = message.questions.first?.name ?? "www.example.test"
    for type in [DNSRecordType.a, .aaaa, .cname] {
        _ = message.addressAnswer(for: name, type: type)
        try? message.validateResponse(toQueryFor: name, type: type, id: message.id)
    }
    // What parsed and re-encodes must parse again to the same message.
    if let encoded = try? message.encoded() {
        guard let again = try? DNSMessage(parsing: encoded) else {
            fatalError("re-encoded message does not parse: \(encoded)")
        }
        precondition(again == message, "re-encoded message parses differently:\n\(message)\n\(again)\nencoded: \(encoded)")
    }
}
