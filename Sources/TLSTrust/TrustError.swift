import HTTPDNSCore

/// A trust configuration that cannot be used. Thrown when certificates, pins or identities are
/// loaded, or when a policy is first used; never silently ignored.
public enum TrustError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be read (`reason`: `strerror`'s text, or why else).
    case unreadableFile(path: String, reason: String)
    /// A PEM block is malformed (OpenSSL's reason attached).
    case invalidPEM(source: String, reason: String)
    /// The input holds no certificate.
    case noCertificates(source: String)
    /// DER bytes that are not one X.509 certificate.
    case invalidCertificate(source: String, reason: String)
    /// A pin that is not `sha256//BASE64` / `cert-sha256//HEX` with a 32-byte digest.
    case invalidPin(pin: String, reason: String)
    /// A pin set breaks its own rules (fewer than two pins with `requiresBackupPin`, no pins), or
    /// the policy combines options that cannot work together.
    case invalidPolicy(reason: String)
    /// The PKCS#12 password or the PEM key passphrase is wrong or missing.
    case wrongPassword(source: String, reason: String)
    /// The identity file has a certificate but no private key (or the key file has none).
    case noPrivateKey(source: String)
    /// The private key does not belong to the certificate.
    case keyMismatch(source: String)
    /// The client certificate is outside its validity period.
    case identityExpired(source: String, subject: String, notAfter: String)
    /// A malformed identity file, or one that needs an algorithm this OpenSSL cannot provide.
    case invalidIdentity(source: String, reason: String)
    /// No policy matches the host and the manager requires one.
    case noPolicy(host: String)

    public var description: String {
        switch self {
        case .unreadableFile(let path, let reason):
            FileFailure(.read, path, reason: reason).description
        case .invalidPEM(let source, let reason):
            "invalid PEM in '\(source)': \(reason)"
        case .noCertificates(let source):
            "no certificate found in '\(source)' (expected -----BEGIN CERTIFICATE----- blocks)"
        case .invalidCertificate(let source, let reason):
            "invalid certificate in '\(source)': \(reason)"
        case .invalidPin(let pin, let reason):
            "invalid pin '\(pin)': \(reason)"
        case .invalidPolicy(let reason):
            "invalid trust policy: \(reason)"
        case .wrongPassword(let source, let reason):
            "cannot open client identity '\(source)': \(reason)"
        case .noPrivateKey(let source):
            "client identity '\(source)' has no private key (give one with a PEM key file or use a PKCS#12 file that holds it)"
        case .keyMismatch(let source):
            "the private key in '\(source)' does not belong to the client certificate"
        case .identityExpired(let source, let subject, let notAfter):
            "client certificate '\(subject)' from '\(source)' is not valid now (notAfter \(notAfter))"
        case .invalidIdentity(let source, let reason):
            "invalid client identity '\(source)': \(reason)"
        case .noPolicy(let host):
            "no trust policy matches host '\(host)' and every host must match one"
        }
    }
}
