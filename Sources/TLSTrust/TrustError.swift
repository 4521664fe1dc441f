/// A trust configuration that cannot be used. Thrown when certificates are loaded, never at
/// connection time.
public enum TrustError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be read.
    case unreadableFile(path: String, reason: String)
    /// A PEM block is malformed (OpenSSL's reason attached).
    case invalidPEM(source: String, reason: String)
    /// The input holds no certificate.
    case noCertificates(source: String)
    /// DER bytes that are not one X.509 certificate.
    case invalidCertificate(source: String, reason: String)

    public var description: String {
        switch self {
        case .unreadableFile(let path, let reason):
            "cannot read certificate file '\(path)': \(reason)"
        case .invalidPEM(let source, let reason):
            "invalid PEM in '\(source)': \(reason)"
        case .noCertificates(let source):
            "no certificate found in '\(source)' (expected -----BEGIN CERTIFICATE----- blocks)"
        case .invalidCertificate(let source, let reason):
            "invalid certificate in '\(source)': \(reason)"
        }
    }
}
