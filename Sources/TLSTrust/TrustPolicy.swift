/// What a TLS connection trusts when it verifies the server's certificate chain and host name.
///
/// Verification is always on: the chain must lead to an anchor and the certificate must match the
/// request's host name (CURLOPT_SSL_VERIFYPEER = 1, CURLOPT_SSL_VERIFYHOST = 2), the original name
/// even when the connection goes to a resolved IP. Connections and TLS sessions are only shared
/// between requests with equal policies.
public struct TrustPolicy: Sendable, Hashable {
    /// Where trust anchors come from.
    public enum Anchors: Sendable, Hashable {
        /// The system's CA bundle (what libcurl was built to use, e.g. /etc/ssl/certs/ca-certificates.crt).
        case system
        /// The system's CA bundle plus these certificates (curl's `--cacert` adds to nothing; here it adds
        /// to the system roots so a private CA and public sites work side by side).
        case systemAnd([Certificate])
        /// Only these certificates (a private CA, or a self-signed server certificate).
        case only([Certificate])
    }

    /// The anchors chains are verified against.
    public var anchors: Anchors

    public init(anchors: Anchors) {
        self.anchors = anchors
    }

    /// System roots only (the default).
    public static let system = TrustPolicy(anchors: .system)

    /// System roots plus `certificates`, or only `certificates` when `includingSystemRoots` is false.
    public static func anchors(_ certificates: [Certificate], includingSystemRoots: Bool = true) -> TrustPolicy {
        if certificates.isEmpty && includingSystemRoots { return .system }
        return TrustPolicy(anchors: includingSystemRoots ? .systemAnd(certificates) : .only(certificates))
    }

    /// The extra anchors, if any.
    public var additionalAnchors: [Certificate] {
        switch anchors {
        case .system: []
        case .systemAnd(let certificates), .only(let certificates): certificates
        }
    }

    /// True when the system roots are trusted.
    public var includesSystemRoots: Bool {
        if case .only = anchors { return false }
        return true
    }
}
