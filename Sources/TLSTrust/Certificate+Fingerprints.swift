import Foundation
internal import COpenSSL
internal import CHTTPDNSShims

extension Certificate {
    /// The SPKI pin of this certificate: SHA-256 of its DER SubjectPublicKeyInfo (RFC 7469 §2.4),
    /// as curl's `--pinnedpubkey sha256//BASE64` and OkHttp's `CertificatePinner` write it.
    public var publicKeyPin: CertificatePin {
        .publicKey(sha256: withX509 { x509 in Self.digest(x509, httpdns_x509_spki_sha256) } ?? Data())
    }

    /// The whole-certificate pin: SHA-256 of the DER certificate (AFNetworking's certificate mode,
    /// `--pin-cert`).
    public var certificatePin: CertificatePin { .certificate(sha256: Data(sha256)) }

    /// SHA-256 of the DER certificate, 32 bytes.
    public var sha256: Data { withX509 { x509 in Self.digest(x509, httpdns_x509_sha256) } ?? Data() }

    /// The validity period (RFC 5280 §4.1.2.5), to the second; `distantPast...distantPast` when it
    /// cannot be read or `notAfter` is before `notBefore`.
    public var validity: ClosedRange<Date> {
        guard let (notBefore, notAfter) = validityBounds, notBefore <= notAfter else { return Date.distantPast...Date.distantPast }
        return notBefore...notAfter
    }

    /// `notAfter`: the last moment the certificate is valid (also when it is before `notBefore`, for
    /// which `validity` is no usable range); `Date.distantPast` when it cannot be read.
    public var expiresAt: Date { validityBounds?.notAfter ?? Date.distantPast }

    /// notBefore and notAfter as OpenSSL reads them, nil when it cannot.
    private var validityBounds: (notBefore: Date, notAfter: Date)? {
        var notBefore: Int64 = 0
        var notAfter: Int64 = 0
        guard withX509({ x509 in httpdns_x509_validity(x509, &notBefore, &notAfter) }) == 1 else { return nil }
        return (Date(timeIntervalSince1970: TimeInterval(notBefore)), Date(timeIntervalSince1970: TimeInterval(notAfter)))
    }

    private static func digest(_ x509: OpaquePointer, _ function: (OpaquePointer?, UnsafeMutablePointer<UInt8>?) -> Int32) -> Data {
        var out = [UInt8](repeating: 0, count: 32)
        guard function(x509, &out) == 1 else { return Data() }
        return Data(out)
    }
}
