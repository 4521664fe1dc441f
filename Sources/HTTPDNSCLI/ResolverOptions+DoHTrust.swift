import Foundation
import HTTPDNS

extension ResolverOptions {
    /// The DoH endpoints' policy: the command's anchors, `--doh-cacert` anchors and
    /// `--doh-pinnedpubkey` pins, independent of the target's pins and client certificate.
    /// - Throws: `UsageError` for an unreadable certificate file or a malformed pin.
    static func dohTrust(_ parsed: ArgumentParser.Parsed, anchors: [Certificate], command: String) throws(UsageError) -> TrustPolicy {
        var all = anchors
        for path in parsed.all("doh-cacert") {
            do {
                all += try Certificate.certificates(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw UsageError("--doh-cacert: \(error)", command: command)
            }
        }
        var policy = TrustPolicy.anchors(all)
        var pins: [CertificatePin: String] = [:]
        do {
            for text in parsed.all("doh-pinnedpubkey") {
                for (pin, written) in try CertificatePin.writtenList(parsing: text) { pins[pin] = written }
            }
        } catch {
            throw UsageError("--doh-pinnedpubkey: \(error)", command: command)
        }
        if !pins.isEmpty { policy.pinSets = [PinSet(pins: Set(pins.keys), spellings: pins)] }
        return policy
    }
}
