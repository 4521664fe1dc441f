import Foundation
import HTTPDNSCore

/// One pin: a SHA-256 digest that a certificate of the server's verified chain must carry.
///
/// ```swift
/// let pin = try CertificatePin(parsing: "sha256//r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=")
/// ```
public enum CertificatePin: Sendable, Hashable, CustomStringConvertible {
    /// SHA-256 of the certificate's DER SubjectPublicKeyInfo (RFC 7469 §2.4; curl's
    /// CURLOPT_PINNEDPUBLICKEY `sha256//`). Survives re-issuing a certificate with the same key.
    case publicKey(sha256: Data)
    /// SHA-256 of the whole DER certificate (AFNetworking's `AFSSLPinningModeCertificate`).
    /// Changes with every re-issue.
    case certificate(sha256: Data)

    /// Parses curl's syntax: `sha256//BASE64` for a public-key pin (44 base64 characters), or
    /// `cert-sha256//HEX` / `cert-sha256//BASE64` for a whole-certificate pin.
    /// - Throws: `TrustError.invalidPin` naming the text and what is wrong.
    public init(parsing text: String) throws(TrustError) {
        let trimmed = text.trimmingWhitespace()
        if trimmed.hasPrefix("sha256//") {
            self = .publicKey(sha256: try Self.digest(String(trimmed.dropFirst(8)), text: text))
        } else if trimmed.hasPrefix("cert-sha256//") {
            self = .certificate(sha256: try Self.digest(String(trimmed.dropFirst(13)), text: text))
        } else {
            throw TrustError.invalidPin(pin: text, reason: "expected sha256//BASE64 (public key) or cert-sha256//HEX (certificate)")
        }
    }

    /// A whole-certificate pin from the hex SHA-256 fingerprint (`openssl x509 -fingerprint -sha256`
    /// output; colons and case are ignored).
    /// - Throws: `TrustError.invalidPin` unless it is 64 hex digits.
    public static func certificate(hex: String) throws(TrustError) -> CertificatePin {
        guard let digest = hexDigest(hex) else {
            throw TrustError.invalidPin(pin: hex, reason: "expected a SHA-256 fingerprint of 64 hex digits")
        }
        return .certificate(sha256: digest)
    }

    /// Several pins separated by `;` as curl's `--pinnedpubkey 'sha256//A;sha256//B'` takes them.
    /// - Throws: `TrustError.invalidPin` for the first bad one.
    public static func list(parsing text: String) throws(TrustError) -> [CertificatePin] {
        try writtenList(parsing: text).map(\.pin)
    }

    /// As `list(parsing:)`, each pin with its text as written (without the white space around it),
    /// for `PinSet.spellings`.
    /// - Throws: `TrustError.invalidPin` for the first bad one.
    public static func writtenList(parsing text: String) throws(TrustError) -> [(pin: CertificatePin, text: String)] {
        var pins: [(pin: CertificatePin, text: String)] = []
        for part in text.split(separator: ";") where !part.trimmingWhitespace().isEmpty {
            pins.append((try CertificatePin(parsing: String(part)), part.trimmingWhitespace()))
        }
        guard !pins.isEmpty else { throw TrustError.invalidPin(pin: text, reason: "no pin given") }
        return pins
    }

    /// The 32-byte digest.
    public var sha256: Data {
        switch self {
        case .publicKey(let digest), .certificate(let digest): digest
        }
    }

    /// `sha256//BASE64` for public-key pins (ready for `--pinnedpubkey`), `cert-sha256//HEX` for
    /// certificate pins.
    public var description: String {
        switch self {
        case .publicKey(let digest): "sha256//" + digest.base64EncodedString()
        case .certificate(let digest): "cert-sha256//" + digest.map { String(format: "%02x", $0) }.joined()
        }
    }

    /// The pin as an RFC 7469 §2.1 directive, as pin reports list it (§3 `known-pins`):
    /// `pin-sha256="BASE64"` for a public-key pin; `cert-sha256="BASE64"`, in the same shape, for a
    /// whole-certificate pin, which RFC 7469 does not define.
    public var directive: String {
        switch self {
        case .publicKey(let digest): "pin-sha256=\"\(digest.base64EncodedString())\""
        case .certificate(let digest): "cert-sha256=\"\(digest.base64EncodedString())\""
        }
    }

    private static func digest(_ encoded: String, text: String) throws(TrustError) -> Data {
        if let hex = hexDigest(encoded) { return hex }
        guard let data = Data(base64Encoded: encoded), data.count == 32 else {
            throw TrustError.invalidPin(pin: text, reason: "the digest must be 32 bytes of SHA-256 in base64 (44 characters) or hex (64 digits)")
        }
        return data
    }

    private static func hexDigest(_ text: String) -> Data? {
        let digits = text.filter { $0 != ":" }
        guard digits.count == 64 else { return nil }
        var bytes = Data()
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}
