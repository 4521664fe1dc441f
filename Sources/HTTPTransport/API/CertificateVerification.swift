/// How the server's certificate was checked on a connection: verified, not checked because the
/// policy turned verification off, or refused.
///
/// `ConnectionReport.certificateVerification` and `TLSReport.verification` carry it, so that
/// "verification disabled" (`-k`) is never mistaken for "verified", nor for a failure.
public enum CertificateVerification: Sendable, Hashable, CustomStringConvertible {
    /// The chain led to a trust anchor, its dates were valid and the certificate matched the host
    /// name (or, under `TrustPolicy.pinnedCertificatesAreAnchors`, a pinned leaf that matched the
    /// name and dates stood in for the anchor); pins, if any, matched.
    case verified
    /// The policy turned verification off (`TrustPolicy.Verification.insecureSkippingAllVerification`,
    /// curl's `-k`): neither the chain nor the name was checked, and the connection is not
    /// authenticated. Only pins, if any, were checked.
    case disabled
    /// Verification ran and refused the certificate; the request failed
    /// (`HTTPClientError.Kind.certificateVerificationFailed` or `.pinMismatch`). `x509Error` is
    /// OpenSSL's `X509_V_ERR_*` code (CURLINFO_SSL_VERIFYRESULT): 20 no trusted issuer, 10 expired,
    /// 18 self-signed, 62 another host name, 50 a pin mismatch.
    case failed(x509Error: Int)

    /// True only for `.verified`.
    public var isVerified: Bool { self == .verified }

    /// `verified`, `not verified (verification disabled)`, or `not verified (OpenSSL error N)`.
    public var description: String {
        switch self {
        case .verified: "verified"
        case .disabled: "not verified (verification disabled)"
        case .failed(let code): "not verified (OpenSSL error \(code))"
        }
    }
}
