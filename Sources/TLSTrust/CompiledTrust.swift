internal import COpenSSL
internal import CHTTPDNSShims

/// A `TrustPolicy` turned into the C structure the TLS context callback reads
/// (`struct httpdns_trust`, installed with CURLOPT_SSL_CTX_FUNCTION / CURLOPT_SSL_CTX_DATA).
///
/// One per connection pool; it must outlive every transfer that uses it.
public final class CompiledTrust: @unchecked Sendable {  // immutable after init; C side only reads it
    /// The policy this was compiled from.
    public let policy: TrustPolicy
    /// `struct httpdns_trust *`, or nil when the policy needs no callback (system roots only).
    public let callbackData: UnsafeMutableRawPointer?

    public init(_ policy: TrustPolicy) {
        self.policy = policy
        let certificates = policy.additionalAnchors
        if certificates.isEmpty && policy.includesSystemRoots {
            callbackData = nil
            return
        }
        let stack = httpdns_x509_stack_new()
        for certificate in certificates {
            let x509 = certificate.der.withUnsafeBytes { raw -> OpaquePointer? in
                guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return nil }
                return httpdns_der_read_certificate(base, raw.count)
            }
            if let x509, httpdns_x509_stack_push(stack, x509) == 0 { X509_free(x509) }
        }
        callbackData = UnsafeMutableRawPointer(httpdns_trust_new(stack, policy.includesSystemRoots ? 0 : 1))
    }

    deinit {
        if let callbackData {
            httpdns_trust_free(callbackData.assumingMemoryBound(to: httpdns_trust.self))
        }
    }
}
