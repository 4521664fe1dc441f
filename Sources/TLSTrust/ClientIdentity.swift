import Foundation

/// A client certificate with its private key, for mutual TLS (RFC 8446 §4.4.2; curl's `--cert`,
/// `--key`, `--cert-type`). Load it with `pkcs12(contentsOf:password:)` or
/// `pem(certificate:key:passphrase:)`; both check the password, that a key is present and
/// belongs to the certificate, and that the certificate is valid now.
///
/// Equal identities (same certificate, chain and key) share connections; the key is compared as
/// bytes and never printed.
public struct ClientIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The certificate sent to the server.
    public let certificate: Certificate
    /// Intermediate certificates sent after it, leaf first order.
    public let chain: [Certificate]
    /// The private key, DER (OpenSSL `i2d_PrivateKey`). Internal: it never leaves the module.
    let privateKeyDER: Data
    /// Where it was loaded from, for messages.
    public let source: String

    init(certificate: Certificate, chain: [Certificate], privateKeyDER: Data, source: String) {
        self.certificate = certificate
        self.chain = chain
        self.privateKeyDER = privateKeyDER
        self.source = source
    }

    public var description: String { "ClientIdentity(\(certificate.subject), from \(source))" }
}
