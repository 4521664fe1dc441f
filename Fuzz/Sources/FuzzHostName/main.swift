// Host-name normalization (IDNA mapping, Punycode A-labels), Punycode itself and IP literals.
import FuzzSupport
import HTTPDNSCore

runFuzzer { bytes in
    let text = String(decoding: bytes, as: UTF8.self)
    if let normalized = HostName.normalize(text) {
        // The cache key must be a fixed point: normalizing it again changes nothing.
        precondition(HostName.normalize(normalized) == normalized, "normalize is not idempotent on \(Array(text.utf8))")
        precondition(normalized.utf8.count <= 253, "normalized name longer than 253 bytes")
        _ = HostName.unicode(normalized)
    }
    _ = IPAddress(text)
    if let decoded = Punycode.decode(text), let encoded = Punycode.encode(decoded) {
        _ = Punycode.decode(encoded)
    }
    if let encoded = Punycode.encode(text) {
        precondition(Punycode.decode(encoded) == text, "Punycode round trip failed for \(Array(text.utf8))")
    }
}
