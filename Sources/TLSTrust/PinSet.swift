import Foundation
import HTTPDNSCore

/// Pins for the hosts that match `hosts`, with TrustKit's optional rules (backup pin, expiry,
/// report-only).
///
/// A connection to a matching host succeeds only when at least one certificate of the verified
/// chain (leaf, intermediates or anchor) carries one of `pins`. Pins are checked after the chain
/// and the host name verified, never instead of them, unless the policy sets
/// `TrustPolicy.pinnedCertificatesAreAnchors`.
public struct PinSet: Sendable, Hashable {
    /// Whether a mismatch fails the connection.
    public enum Enforcement: Sendable, Hashable {
        /// A mismatch fails the request with `HTTPClientError.Kind.pinMismatch` (curl: 90).
        case enforce
        /// A mismatch is only reported (to the trust event handler and `reportURL`); the request
        /// goes on. For rolling pins out.
        case reportOnly
    }

    /// The hosts this set applies to; empty means every host.
    public var hosts: [HostPattern]
    /// Accepted pins; one match in the chain is enough.
    public var pins: Set<CertificatePin>
    /// After this moment the set is not enforced nor reported (TrustKit `expirationDate`), so an
    /// app that is never updated does not lock itself out. nil: never expires.
    public var expires: Date?
    /// Enforce or only report.
    public var enforcement: Enforcement
    /// Require at least two pins, one of them a backup key not in the current chain (RFC 7469
    /// §4.3). Checked when the policy is used: a set with fewer pins fails every request to its
    /// hosts with `.trustConfigurationInvalid`.
    public var requiresBackupPin: Bool
    /// Where to POST a JSON report of each mismatch (TrustKit `reportURIs`), rate-limited to one
    /// identical report per `HTTPClient.Configuration.pinReportInterval`. nil: no upload.
    public var reportURL: URL?
    /// How pins were written, for messages: `PinReport.description` shows a pin as written, with
    /// its `description` (`sha256//BASE64`, `cert-sha256//HEX`) beside it when that differs (a hex
    /// digest, colons, capitals, a key file's path). Pins missing from it are shown as their
    /// `description`. Nothing is checked against it. Default empty.
    public var spellings: [CertificatePin: String]

    /// A pin set; the defaults enforce the pins for every host, forever, without a backup rule or report URL.
    public init(
        hosts: [HostPattern] = [], pins: Set<CertificatePin>, expires: Date? = nil,
        enforcement: Enforcement = .enforce, requiresBackupPin: Bool = false, reportURL: URL? = nil,
        spellings: [CertificatePin: String] = [:]
    ) {
        self.spellings = spellings
        self.hosts = hosts
        self.pins = pins
        self.expires = expires
        self.enforcement = enforcement
        self.requiresBackupPin = requiresBackupPin
        self.reportURL = reportURL
    }

    /// `pin` as messages show it: as written (`spellings`), then its normalized form in parentheses
    /// when that differs; else its `description`.
    func written(_ pin: CertificatePin) -> String {
        guard let text = spellings[pin], text != pin.description else { return pin.description }
        return "\(text) (\(pin.description))"
    }

    /// Whether this set applies to `host` at `date` (matching and not expired).
    public func applies(to host: String, at date: Date) -> Bool {
        if let expires, date >= expires { return false }
        return hosts.isEmpty || hosts.contains { $0.matches(host) }
    }
}
