import Foundation
import HTTPDNSCore

/// A certificate as the server presented it, with both of its pins.
public struct PresentedCertificate: Sendable, Hashable, CustomStringConvertible {
    /// Subject in RFC 2253 form.
    public var subject: String
    /// Issuer in RFC 2253 form.
    public var issuer: String
    /// `notAfter`.
    public var expiresAt: Date
    /// SPKI SHA-256 pin, `sha256//BASE64` ready for `--pinnedpubkey`.
    public var publicKeyPin: CertificatePin
    /// Whole-certificate SHA-256 pin.
    public var certificatePin: CertificatePin

    /// The facts of `certificate`.
    public init(_ certificate: Certificate) {
        subject = certificate.subject
        issuer = certificate.issuer
        expiresAt = certificate.expiresAt
        publicKeyPin = certificate.publicKeyPin
        certificatePin = certificate.certificatePin
    }

    public var description: String { "\(publicKeyPin) \(subject)" }
}

/// What a pin check found that did not match (RFC 7469 §3's pin validation failure report, as
/// TrustKit sends it).
public struct PinReport: Sendable, Hashable, CustomStringConvertible {
    /// The host name the connection was verified for.
    public var host: String
    /// The port.
    public var port: Int
    /// The address connected to, when known.
    public var remoteAddress: String?
    /// The certificates as the server sent them in the handshake, in its order, leaf first
    /// (RFC 7469 §3 `served-certificate-chain`).
    public var servedChain: [Certificate]
    /// The chain verification built, leaf first and anchor last (OpenSSL's verified chain; RFC 7469
    /// §3 `validated-certificate-chain`). Empty when verification was disabled
    /// (`verificationDisabled`): no chain was validated, and none is made up.
    public var validatedChain: [Certificate]
    /// True when the connection was made without verification
    /// (`TrustPolicy.Verification.insecureSkippingAllVerification`), so the pins were checked
    /// against `servedChain`, the only check made.
    public var verificationDisabled: Bool
    /// The pin set that did not match.
    public var pinSet: PinSet
    /// True when the request was failed; false for a report-only set.
    public var enforced: Bool
    /// When it happened.
    public var date: Date

    /// A report; the fields are as documented on the properties.
    public init(
        host: String, port: Int, remoteAddress: String?, servedChain: [Certificate], validatedChain: [Certificate],
        verificationDisabled: Bool = false, pinSet: PinSet, enforced: Bool, date: Date
    ) {
        self.host = host
        self.port = port
        self.remoteAddress = remoteAddress
        self.servedChain = servedChain
        self.validatedChain = validatedChain
        self.verificationDisabled = verificationDisabled
        self.pinSet = pinSet
        self.enforced = enforced
        self.date = date
    }

    /// The chain the pins were checked against, with each certificate's pins: `validatedChain`,
    /// or `servedChain` when there is none (verification disabled).
    public var presentedChain: [PresentedCertificate] {
        (validatedChain.isEmpty ? servedChain : validatedChain).map(PresentedCertificate.init)
    }

    /// One line per presented certificate, pin first, so the configuration can be fixed. The pins
    /// expected are shown as written (`PinSet.spellings`), each with its normalized form.
    public var description: String {
        // Whole-certificate pins are listed too when the pin set has any, so either kind can be fixed.
        let showsCertificatePins = pinSet.pins.contains { $0.description.hasPrefix("cert-") }
        let presented = presentedChain.map { certificate in
            "  \(certificate.publicKeyPin)  \(showsCertificatePins ? "\(certificate.certificatePin)  " : "")\(certificate.subject)"
        }.joined(separator: "\n")
        let expected = pinSet.pins.map(pinSet.written).sorted().joined(separator: "; ")
        return
            "certificate pinning failed for \(IPAddress.authority(host: host, port: port))\(remoteAddress.map { " (\($0))" } ?? ""): no certificate of the chain matches \(expected)\nthe server presented:\n\(presented)"
    }

    /// The pattern of `pinSet` that made it apply to `host`: the most specific that matches, as
    /// `TrustPolicy.pinSet(for:at:)` ranks them; nil for a set that applies to every host.
    private var notedPattern: HostPattern? {
        pinSet.hosts.filter { $0.matches(host) }.min { $0.specificity < $1.specificity }
    }

    /// The JSON body POSTed to `PinSet.reportURL`: RFC 7469 §3's object, which TrustKit's and other
    /// report collectors read.
    ///
    /// - `date-time`, `effective-expiration-date`: RFC 3339 in UTC (`2026-12-01T23:45:58Z`); the
    ///   expiration date is `null` for a pin set that never expires.
    /// - `hostname`, `port`: where the request went (`host`, `port`).
    /// - `noted-hostname`, `include-subdomains`: the pin set's pattern that applied to `hostname`
    ///   (`example.com` and true for `**.example.com` or `*.example.com`); for a set without host
    ///   patterns, `hostname` and false.
    /// - `served-certificate-chain`, `validated-certificate-chain`: arrays of PEM strings
    ///   (RFC 7468), leaf first; the validated chain is `[]` when verification was disabled.
    /// - `known-pins`: the pin set's pins as RFC 7469 §2.1 directives, sorted:
    ///   `pin-sha256="BASE64"`; a whole-certificate pin, which RFC 7469 does not define, as
    ///   `cert-sha256="BASE64"`.
    ///
    /// Fields beyond RFC 7469, which collectors ignore: `verification` (`"verified"` or
    /// `"disabled"`), `enforced`, `remote-address` (or `null`), and `served-public-key-pins` and
    /// `validated-public-key-pins` (each chain's SPKI pins in curl's `sha256//BASE64` form, ready for
    /// `--pinnedpubkey`).
    public func jsonBody() -> Data {
        let formatter = ISO8601DateFormatter()
        let noted = notedPattern
        let object: [String: Any] = [
            "date-time": formatter.string(from: date),
            "hostname": host,
            "port": port,
            "effective-expiration-date": pinSet.expires.map { formatter.string(from: $0) } ?? NSNull(),
            "include-subdomains": noted.map { $0.kind != .exact } ?? false,
            "noted-hostname": noted?.domain ?? host,
            "served-certificate-chain": servedChain.map(\.pem),
            "validated-certificate-chain": validatedChain.map(\.pem),
            "known-pins": pinSet.pins.map(\.directive).sorted(),
            "verification": verificationDisabled ? "disabled" : "verified",
            "served-public-key-pins": servedChain.map(\.publicKeyPin.description),
            "validated-public-key-pins": validatedChain.map(\.publicKeyPin.description),
            "enforced": enforced,
            "remote-address": remoteAddress ?? NSNull()
        ]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    }
}

/// Security-relevant events of connections, for an observer (`HTTPClient.Configuration.trustEventHandler`).
public enum TrustEvent: Sendable, CustomStringConvertible {
    /// A pin set did not match; `report.enforced` says whether the request failed.
    case pinMismatch(PinReport)
    /// A connection was made without verification (`TrustPolicy.Verification.insecureSkippingAllVerification`).
    case insecureConnection(host: String, port: Int, remoteAddress: String?)

    /// The event as a warning says it: the report's text for a mismatch; for an insecure
    /// connection, that `host:port` (and the address) is not authenticated.
    public var description: String {
        switch self {
        case .pinMismatch(let report):
            report.description
        case .insecureConnection(let host, let port, let remoteAddress):
            "certificate verification is disabled; the connection to \(IPAddress.authority(host: host, port: port))\(remoteAddress.map { " (\($0))" } ?? "") is not authenticated"
        }
    }
}
