// TLSTrust loading: DER and PEM certificates, PKCS#12 and PEM client identities, pins and host patterns.
import Foundation
import FuzzSupport
import HTTPDNSCore
import TLSTrust

/// PEM identities are loaded from files: one scratch file per process.
let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("httpdns-fuzz-\(getpid()).pem")
/// 1 January 2030: a fixed moment (inside the seed certificates' validity) so validity checks do
/// not depend on the clock.
let moment = Date(timeIntervalSince1970: 1_893_456_000)

func inspect(_ certificate: Certificate) {
    _ = certificate.subject
    _ = certificate.issuer
    _ = certificate.validity
    _ = certificate.sha256
    _ = certificate.publicKeyPin
    _ = certificate.certificatePin
}

runFuzzer { bytes in
    let (selector, rest) = split(bytes)
    let data = Data(rest)
    switch selector % 6 {
    case 0:
        if let certificate = try? Certificate(der: data) { inspect(certificate) }
    case 1:
        (try? Certificate.certificates(pem: data))?.forEach(inspect)
    case 2:
        if let identity = try? ClientIdentity.pkcs12(data: data, password: "secret", validAt: moment) { inspect(identity.certificate) }
    case 3:
        guard (try? data.write(to: scratch)) != nil else { return }
        if let identity = try? ClientIdentity.pem(certificate: scratch, passphrase: "secret", validAt: moment) { inspect(identity.certificate) }
    case 4:
        _ = try? CertificatePin.list(parsing: String(decoding: rest, as: UTF8.self))
    default:
        if let pattern = try? HostPattern(parsing: String(decoding: rest, as: UTF8.self)) {
            _ = pattern.matches("a.test")
            _ = pattern.matches("www.a.test")
        }
    }
}
