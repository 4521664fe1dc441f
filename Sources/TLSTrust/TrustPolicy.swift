import Foundation
import HTTPDNSCore

/// What a TLS connection trusts and presents: anchors, verification, pins, client identity and
/// revocation requirements.
///
/// Verification is on unless a policy is built with the explicitly named
/// `insecureSkippingAllVerification`: the chain must lead to an anchor and the certificate must
/// match the request's host name (CURLOPT_SSL_VERIFYPEER = 1, CURLOPT_SSL_VERIFYHOST = 2), the
/// original name even when the connection goes to a resolved IP. There is no way to switch off the
/// host-name check alone. Pins are checked after both, on the verified chain.
///
/// Policies are values: equal policies share connections and TLS sessions, different ones never
/// do (libcurl's reuse keys do not see what the policy changes, so each policy gets its own pool).
public struct TrustPolicy: Sendable, Hashable {
    /// Where trust anchors come from.
    public enum Anchors: Sendable, Hashable {
        /// The system's CA bundle (what libcurl was built to use, e.g. /etc/ssl/certs/ca-certificates.crt).
        case system
        /// The system's CA bundle plus these certificates (curl's `--cacert` adds to nothing; here it adds
        /// to the system roots so a private CA and public sites work side by side).
        case systemAnd([Certificate])
        /// Only these certificates (a private CA, or a self-signed server certificate trusted by
        /// itself; curl's `--cacert` with `--capath /dev/null`).
        case only([Certificate])
    }

    /// Whether certificates are verified at all.
    public enum Verification: Sendable, Hashable {
        /// Chain to an anchor, validity dates, and the host name. The default.
        case full
        /// Nothing is verified, neither chain nor name (curl's `-k`). Pins, if any, are still
        /// enforced. Every new connection under it raises `TrustEvent.insecureConnection`.
        /// - Warning: Anyone on the path can read and change the traffic. For testing only.
        case insecureSkippingAllVerification
    }

    /// The anchors chains are verified against.
    public var anchors: Anchors
    /// Full verification (default) or none.
    public var verification: Verification
    /// Pin sets; for a host, the most specific set that applies (exact pattern over `*.` over
    /// `**.` over a set for every host) is used. Empty: no pinning.
    public var pinSets: [PinSet]
    /// When true, a server certificate that carries a pin of its host's set is trusted even if its
    /// chain leads to no anchor (a self-signed server trusted by its pin). Its host name and
    /// validity dates are still checked. Default false: pins only narrow what verification accepts.
    public var pinnedCertificatesAreAnchors: Bool
    /// The client certificate presented when a server asks for one (mutual TLS), or nil.
    public var identity: ClientIdentity?
    /// Require a stapled, valid OCSP response (RFC 6066 §8) from the server
    /// (CURLOPT_SSL_VERIFYSTATUS). A server that staples nothing fails with
    /// `.certificateStatusInvalid` (curl: 91).
    public var requiresOCSPStapling: Bool
    /// An IP address the server certificate must also carry in its subjectAltName, beside matching
    /// the host name: RFC 9462 §4.2's check that a designated resolver's certificate covers the
    /// unencrypted resolver's address (`DesignatedResolvers` sets it). A certificate without it
    /// fails verification (`X509_V_ERR_IP_ADDRESS_MISMATCH`, curl 60). Default nil: no such check.
    public var requiredIPAddress: IPAddress? = nil

    /// A policy; the defaults are full verification, no pins, no client identity, no OCSP requirement.
    public init(
        anchors: Anchors, verification: Verification = .full, pinSets: [PinSet] = [],
        pinnedCertificatesAreAnchors: Bool = false, identity: ClientIdentity? = nil,
        requiresOCSPStapling: Bool = false
    ) {
        self.anchors = anchors
        self.verification = verification
        self.pinSets = pinSets
        self.pinnedCertificatesAreAnchors = pinnedCertificatesAreAnchors
        self.identity = identity
        self.requiresOCSPStapling = requiresOCSPStapling
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

    /// The pin set that governs `host` at `date`, if any: the most specific one that matches and
    /// has not expired.
    public func pinSet(for host: String, at date: Date = Date()) -> PinSet? {
        let applicable = pinSets.filter { $0.applies(to: host, at: date) }
        func rank(_ set: PinSet) -> (Int, Int) {
            set.hosts.filter { $0.matches(host) }.map(\.specificity).min { $0 < $1 } ?? (3, 0)
        }
        return applicable.min { rank($0) < rank($1) }
    }

    /// Checks the rules a policy states about itself.
    /// - Throws: `TrustError.invalidPolicy` for a pin set without pins, one with
    ///   `requiresBackupPin` and fewer than two pins, or `pinnedCertificatesAreAnchors` without pins.
    public func validate() throws(TrustError) {
        for set in pinSets {
            let hosts = set.hosts.isEmpty ? "every host" : set.hosts.map(\.description).joined(separator: ", ")
            if set.pins.isEmpty {
                throw TrustError.invalidPolicy(reason: "the pin set for \(hosts) has no pins")
            }
            if set.requiresBackupPin && set.pins.count < 2 {
                throw TrustError.invalidPolicy(reason: "the pin set for \(hosts) requires a backup pin but has \(set.pins.count) pin; add the pin of a spare key (RFC 7469 §4.3)")
            }
        }
        if pinnedCertificatesAreAnchors && pinSets.isEmpty {
            throw TrustError.invalidPolicy(reason: "pinnedCertificatesAreAnchors needs at least one pin set")
        }
    }
}
