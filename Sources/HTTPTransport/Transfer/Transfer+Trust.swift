import Foundation
import HTTPDNSCore
import TLSTrust
internal import CCurl
internal import COpenSSL
internal import CHTTPDNSShims

extension Transfer {
    /// Verification, the TLS callbacks (anchors, pins, client identity) and OCSP stapling.
    /// - Throws: `HTTPClientError.Kind.trustConfigurationInvalid` for a policy that cannot be used
    ///   or an option libcurl cannot honour here.
    func configureTrust(target: RequestTarget) throws {
        let compiled = pool.trust
        let policy = compiled.policy
        if let problem = compiled.configurationError {
            throw HTTPClientError(kind: .trustConfigurationInvalid, message: problem.description, url: url)
        }
        // Verification is on unless the policy is the explicitly named insecure one; the name
        // checked is the URL's host. There is no way to turn off the name check alone.
        let verify = policy.verification == .full
        try set(CURLOPT_SSL_VERIFYPEER, verify ? 1 : 0)
        try set(CURLOPT_SSL_VERIFYHOST, verify ? 2 : 0)
        guard target.isHTTPS else { return }
        let trust = TransferTrust(compiled: compiled, host: target.host, date: Date())
        guard let data = trust.callbackData else {
            throw HTTPClientError(kind: .trustConfigurationInvalid, message: "out of memory", url: url)
        }
        transferTrust = trust
        // The callback installs the pool's own store (system roots and anchors, parsed once per
        // pool); libcurl must not parse the system bundle again for every new connection.
        try check(httpdns_easy_setopt_ptr(easy, CURLOPT_CAINFO, nil), CURLOPT_CAINFO)
        try check(httpdns_easy_setopt_ptr(easy, CURLOPT_CAPATH, nil), CURLOPT_CAPATH)
        try check(httpdns_easy_set_tls_transfer(easy, data.assumingMemoryBound(to: httpdns_tls_transfer.self)), CURLOPT_SSL_CTX_FUNCTION)
        if policy.requiresOCSPStapling {
            record(CURLOPT_SSL_VERIFYSTATUS)
            let code = httpdns_easy_setopt_long(easy, CURLOPT_SSL_VERIFYSTATUS, 1)
            guard code == CURLE_OK else {
                throw HTTPClientError(kind: .trustConfigurationInvalid,
                                      message: "OCSP stapling cannot be required with this libcurl/TLS library: \(String(cString: curl_easy_strerror(code)))",
                                      url: url, curlCode: Int(code.rawValue))
            }
        }
    }

    /// The pin report for this transfer's handshake.
    func pinReport(enforced: Bool) -> PinReport? {
        guard let transferTrust, let pinSet = transferTrust.pinSet else { return nil }
        var ip: UnsafePointer<CChar>?
        _ = httpdns_easy_getinfo_string(easy, CURLINFO_PRIMARY_IP, &ip)
        let address = ip.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        return PinReport(host: displayHost, port: port, remoteAddress: address,
                         presentedChain: transferTrust.presentedChain.map(PresentedCertificate.init),
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
        return HTTPClientError(kind: .clientCertificateRejected,
                               message: "\(endpoint) rejected \(presented): HTTP 400 \"\(marker)\"",
                               url: url, status: 400)
    }

    /// TLS alerts a server sends when it refuses (or misses) the client certificate (RFC 8446 §6.2).
    static func isClientCertificateAlert(_ reason: String) -> Bool {
        let text = reason.lowercased()
        return ["alert certificate required", "alert bad certificate", "alert unknown ca", "alert certificate unknown",
                "alert certificate expired", "alert certificate revoked", "alert unsupported certificate"].contains { text.contains($0) }
    }
}

