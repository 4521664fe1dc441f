import Foundation
internal import COpenSSL
internal import CHTTPDNSShims

/// A `TrustPolicy` turned into the C structure the TLS context callback reads
/// (`struct httpdns_trust`: anchors, verification, client identity).
///
/// One per connection pool; it must outlive every transfer that uses it.
public final class CompiledTrust: @unchecked Sendable { // immutable after init; C side only reads it
    /// The policy this was compiled from.
    public let policy: TrustPolicy
    /// Why the policy cannot be used, if it cannot; every transfer under it then fails with this.
    public let configurationError: TrustError?
    /// `struct httpdns_trust *`.
    let trust: UnsafeMutablePointer<httpdns_trust>?

    /// Compiles `policy`; a policy that cannot be used is recorded in `configurationError`
    /// rather than thrown, so the pool exists and every request under it fails with that reason.
    public init(_ policy: TrustPolicy) {
        self.policy = policy
        var problem: TrustError?
        do {
            try policy.validate()
        } catch {
            problem = error
        }
        let stack = httpdns_x509_stack_new()
        for certificate in policy.additionalAnchors {
            if let x509 = Self.x509(certificate), httpdns_x509_stack_push(stack, x509) == 0 { X509_free(x509) }
        }
        let trust = httpdns_trust_new(stack, policy.includesSystemRoots ? 0 : 1)
        trust?.pointee.insecure = policy.verification == .insecureSkippingAllVerification ? 1 : 0
        if let address = policy.requiredIPAddress, let trust {
            withUnsafeMutableBytes(of: &trust.pointee.required_ip) { $0.copyBytes(from: address.bytes) }
            trust.pointee.required_ip_length = address.bytes.count
        }
        if let identity = policy.identity, let trust, problem == nil {
            problem = Self.install(identity, in: trust)
        }
        self.trust = trust
        configurationError = problem ?? (trust == nil ? .invalidPolicy(reason: "out of memory") : nil)
    }

    deinit { httpdns_trust_free(trust) }

    /// Whether `certificate` alone chains to this policy's roots (dates checked, no host name):
    /// for tests of what the store holds.
    func verifiesChain(of certificate: Certificate) -> Bool {
        guard let trust, let x509 = Self.x509(certificate) else { return false }
        defer { X509_free(x509) }
        return httpdns_trust_verifies(trust, x509) == 1
    }

    private static func install(_ identity: ClientIdentity, in trust: UnsafeMutablePointer<httpdns_trust>) -> TrustError? {
        let key = identity.privateKeyDER.withUnsafeBytes { raw in
            httpdns_private_key_from_der(raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
        }
        guard let key, let leaf = x509(identity.certificate) else {
            return .invalidIdentity(source: identity.source, reason: "cannot decode the stored identity")
        }
        let chain = httpdns_x509_stack_new()
        for certificate in identity.chain {
            if let x509 = x509(certificate), httpdns_x509_stack_push(chain, x509) == 0 { X509_free(x509) }
        }
        guard httpdns_trust_set_identity(trust, leaf, key, chain) == 1 else {
            X509_free(leaf)
            httpdns_private_key_free(key)
            httpdns_x509_stack_free(chain)
            return .keyMismatch(source: identity.source)
        }
        return nil
    }

    static func x509(_ certificate: Certificate) -> OpaquePointer? {
        certificate.der.withUnsafeBytes { raw -> OpaquePointer? in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return nil }
            return httpdns_der_read_certificate(base, raw.count)
        }
    }
}
