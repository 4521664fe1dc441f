import DNSWire

/// An RRSIG's validity window (RFC 4034 §3.1.5): inception and expiration are 32-bit seconds since
/// 1970 and are compared with the clock in serial-number arithmetic (RFC 1982), so they keep working
/// after 2106 as long as a window is shorter than 68 years.
public struct SignatureValidity: Hashable, Sendable {
    /// Signature inception, 32-bit seconds since 1970 (modulo 2^32).
    public var inception: UInt32
    /// Signature expiration, as `inception`.
    public var expiration: UInt32

    /// The window of `signature`.
    public init(_ signature: RRSIG) {
        inception = signature.inception
        expiration = signature.expiration
    }

    /// Where `now` falls relative to the window.
    public enum Position: Hashable, Sendable {
        /// Inception ≤ now ≤ expiration.
        case valid
        /// Now is before inception.
        case notYetValid
        /// Now is after expiration.
        case expired
    }

    /// Where the moment `now` (seconds since 1970) falls, in serial-number arithmetic on 32 bits.
    public func position(at now: Int64) -> Position {
        let current = UInt32(truncatingIfNeeded: now)
        // RFC 1982 §3.2: a is before b when (b - a) mod 2^32 is in 1...2^31-1.
        if Int32(bitPattern: current &- inception) < 0 { return .notYetValid }
        if Int32(bitPattern: expiration &- current) < 0 { return .expired }
        return .valid
    }
}
