import Foundation

extension Certificate {
    /// The certificate as PEM text (RFC 7468 §5, the strict form of §3): `-----BEGIN CERTIFICATE-----`,
    /// the DER in base64 in lines of 64 characters, `-----END CERTIFICATE-----`, each line ending in LF.
    /// `Certificate.certificates(pem:)` reads it back to an equal certificate.
    public var pem: String {
        "-----BEGIN CERTIFICATE-----\n" + der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed]) + "\n-----END CERTIFICATE-----\n"
    }
}
