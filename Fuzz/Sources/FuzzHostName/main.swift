// Host-name normalization (UTS #46 / IDNA through libidn2, A-labels), the display form and IP literals.
import FuzzSupport
import HTTPDNSCore

runFuzzer { bytes in
    let text = String(decoding: bytes, as: UTF8.self)
    if let normalized = HostName.normalize(text) {
        // The cache key must be a fixed point: normalizing it again changes nothing.
        precondition(HostName.normalize(normalized) == normalized, "normalize is not idempotent on \(Array(text.utf8))")
        precondition(normalized.utf8.count <= 253, "normalized name longer than 253 bytes")
        // The display form (U-labels) normalizes back to the same A-labels.
        let display = HostName.unicode(normalized)
        precondition(HostName.normalize(display) == normalized, "unicode/normalize round trip failed for \(Array(text.utf8))")
    }
    _ = HostName.unicode(text)
    _ = IPAddress(text)
}
