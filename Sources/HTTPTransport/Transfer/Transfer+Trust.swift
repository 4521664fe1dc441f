import Foundation
import HTTPDNSCore
import TLSTrust
internal import CCurl
internal import COpenSSL
internal import CHTTPDNSShims

extension Transfer {
    /// Binds the TLS callback (anchors, pins, client identity) to this transfer's state for
    /// `host`; verification and OCSP stapling are options of the list (`TransferOptions`).
    /// - Throws: `HTTPClientError.Kind.trustConfigurationInvalid` when its state cannot be made.
    func bindTrust(host: String) throws {
        let trust = TransferTrust(compiled: pool.trust, host: host, date: Date())
        guard let data = trust.callbackData else {
            throw HTTPClientError(kind: .trustConfigurationInvalid, message: "out of memory", url: url)
        }
        transferTrust = trust
        try check(httpdns_easy_set_tls_transfer(easy, data.assumingMemoryBound(to: httpdns_tls_transfer.self)), CURLOPT_SSL_CTX_FUNCTION)
    }

    /// The pin report for this transfer's handshake.
    func pinReport(enforced: Bool) -> PinReport? {
        guard let transferTrust, let pinSet = transferTrust.pinSet else { return nil }
        var ip: UnsafePointer<CChar>?
        _ = httpdns_easy_getinfo_string(easy, CURLINFO_PRIMARY_IP, &ip)
        let address = ip.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        return PinReport(
            host: displayHost, port: port, remoteAddress: address,
            servedChain: transferTrust.servedChain, validatedChain: transferTrust.validatedChain,
            verificationDisabled: pool.trust.policy.verification == .insecureSkippingAllVerification,
            pinSet: pinSet, enforced: enforced, date: Date())
    }

    /// nginx (with `ssl_verify_client on`) completes the handshake without a usable client
    /// certificate and answers HTTP 400 with one of these titles.
    func clientCertificateRejection() -> HTTPClientError? {
        // Only a page held back whole (a few hundred bytes): a longer 400 page has gone out already,
        // and is the server's answer even if it mentions a certificate.
        guard isHTTPS, status == 400, holdsBody, !rejectionProbe.isEmpty else { return nil }
        let text = String(decoding: rejectionProbe, as: UTF8.self)
        let marker = ["No required SSL certificate was sent", "The SSL certificate error", "SSL certificate error"].first { text.contains($0) }
        guard let marker else { return nil }
        let presented = pool.trust.policy.identity.map { "the client certificate '\($0.certificate.subject)'" } ?? "a request without a client certificate"
        return HTTPClientError(
            kind: .clientCertificateRejected,
            message: "\(endpoint) rejected \(presented): HTTP 400 \"\(marker)\"",
            url: url, status: 400)
    }

    /// TLS alerts a server sends when it refuses (or misses) the client certificate (RFC 8446 §6.2).
    static func isClientCertificateAlert(_ reason: String) -> Bool {
        let text = reason.lowercased()
        return [
            "alert certificate required", "alert bad certificate", "alert unknown ca", "alert certificate unknown",
            "alert certificate expired", "alert certificate revoked", "alert unsupported certificate"
        ].contains { text.contains($0) }
    }
}
