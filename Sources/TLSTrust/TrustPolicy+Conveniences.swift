import Foundation
import HTTPDNSCore

extension TrustPolicy {
    /// System roots only, full verification (the default; curl without `--cacert`).
    public static let system = TrustPolicy(anchors: .system)

    /// System roots plus `certificates`, or only `certificates` when `includingSystemRoots` is false
    /// (curl's `--cacert FILE`; CURLOPT_CAINFO / CURLOPT_CAINFO_BLOB).
    public static func anchors(_ certificates: [Certificate], includingSystemRoots: Bool = true) -> TrustPolicy {
        if certificates.isEmpty && includingSystemRoots { return .system }
        return TrustPolicy(anchors: includingSystemRoots ? .systemAnd(certificates) : .only(certificates))
    }

    /// A self-signed server certificate trusted as its own (and only) anchor. Its host name and
    /// dates are still verified.
    public static func selfSigned(_ certificate: Certificate) -> TrustPolicy {
        TrustPolicy(anchors: .only([certificate]))
    }

    /// Public-key pins (RFC 7469 SPKI SHA-256; curl's `--pinnedpubkey` / CURLOPT_PINNEDPUBLICKEY)
    /// for `hosts` (empty: every host), on top of normal verification against `anchors`.
    /// - Parameters:
    ///   - pins: Accepted pins; one match anywhere in the verified chain is enough.
    ///   - hosts: Where they apply; other hosts are verified without pins.
    ///   - anchors: What chains must lead to. Default: the system roots.
    public static func publicKeyPins(_ pins: [CertificatePin], hosts: [HostPattern] = [], anchors: Anchors = .system) -> TrustPolicy {
        TrustPolicy(anchors: anchors, pinSets: [PinSet(hosts: hosts, pins: Set(pins))])
    }

    /// Whole-certificate pins of `certificates` (AFNetworking's certificate mode), on top of
    /// normal verification against `anchors`.
    public static func pinnedCertificates(_ certificates: [Certificate], hosts: [HostPattern] = [], anchors: Anchors = .system) -> TrustPolicy {
        TrustPolicy(anchors: anchors, pinSets: [PinSet(hosts: hosts, pins: Set(certificates.map(\.certificatePin)))])
    }

    /// Trust exactly the servers whose certificate carries one of `pins`, without any CA: the
    /// pinned certificate is the anchor (self-signed servers). Host name and dates are still
    /// verified.
    public static func pinsAsAnchors(_ pins: [CertificatePin], hosts: [HostPattern] = []) -> TrustPolicy {
        TrustPolicy(anchors: .only([]), pinSets: [PinSet(hosts: hosts, pins: Set(pins))], pinnedCertificatesAreAnchors: true)
    }

    /// No verification at all: any certificate for any name is accepted (curl's `-k`,
    /// CURLOPT_SSL_VERIFYPEER = 0 and CURLOPT_SSL_VERIFYHOST = 0). Each new connection raises
    /// `TrustEvent.insecureConnection` (printed on stderr when no handler is set).
    /// - Warning: Anyone on the network path can impersonate the server. For testing only.
    public static let insecureSkippingAllVerification = TrustPolicy(anchors: .system, verification: .insecureSkippingAllVerification)

    /// This policy with `set` added.
    public func pinning(_ set: PinSet) -> TrustPolicy {
        var copy = self
        copy.pinSets.append(set)
        return copy
    }

    /// This policy presenting `identity` to servers that ask for a client certificate.
    public func presenting(_ identity: ClientIdentity?) -> TrustPolicy {
        var copy = self
        copy.identity = identity
        return copy
    }

    /// This policy requiring a stapled OCSP response (CURLOPT_SSL_VERIFYSTATUS; curl's
    /// `--cert-status`).
    public func requiringOCSPStapling(_ required: Bool = true) -> TrustPolicy {
        var copy = self
        copy.requiresOCSPStapling = required
        return copy
    }
}
