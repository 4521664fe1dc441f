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

/// What a pin check found that did not match (TrustKit's pin failure report, RFC 7469 §3).
public struct PinReport: Sendable, Hashable, CustomStringConvertible {
    /// The host name the connection was verified for.
    public var host: String
    /// The port.
    public var port: Int
    /// The address connected to, when known.
    public var remoteAddress: String?
    /// The chain the server presented, leaf first (the verified chain, anchor included).
    public var presentedChain: [PresentedCertificate]
    /// The pin set that did not match.
    public var pinSet: PinSet
    /// True when the request was failed; false for a report-only set.
    public var enforced: Bool
    /// When it happened.
    public var date: Date

    /// A report; the fields are as documented on the properties.
    public init(host: String, port: Int, remoteAddress: String?, presentedChain: [PresentedCertificate], pinSet: PinSet, enforced: Bool, date: Date) {
        self.host = host
        self.port = port
        self.remoteAddress = remoteAddress
        self.presentedChain = presentedChain
        self.pinSet = pinSet
        self.enforced = enforced
        self.date = date
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

    /// The JSON body POSTed to `PinSet.reportURL` (RFC 7469 §3 field names).
    public func jsonBody() -> Data {
        let formatter = ISO8601DateFormatter()
        let object: [String: Any] = [
            "date-time": formatter.string(from: date),
            "hostname": host,
            "port": port,
            "effective-expiration-date": pinSet.expires.map { formatter.string(from: $0) } ?? NSNull(),
            "include-subdomains": pinSet.hosts.contains { $0.kind != .exact },
            "served-certificate-chain": presentedChain.map(\.subject),
            "served-public-key-pins": presentedChain.map(\.publicKeyPin.description),
            "known-pins": pinSet.pins.map(\.description).sorted(),
            "enforced": enforced,
            "remote-address": remoteAddress ?? NSNull()
        ]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
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
