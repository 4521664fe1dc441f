internal import COpenSSL
import DNSWire

/// The sole owner of one OpenSSL `EVP_MD_CTX`, freed in `deinit`; verifies one signature.
final class SignatureVerifier {
    private let context: OpaquePointer

    /// - Throws: `DNSSECValidationError.openSSL` when OpenSSL cannot allocate the context.
    init() throws(DNSSECValidationError) {
        guard let context = EVP_MD_CTX_new() else { throw .openSSL(function: "EVP_MD_CTX_new", reason: "out of memory") }
        self.context = context
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    /// Whether `signature` (in OpenSSL's form) is `key`'s signature over `data`. Any OpenSSL failure,
    /// a malformed signature included, counts as "does not verify"; the error queue is cleared.
    func verify(_ signature: [UInt8], over data: [UInt8], with key: DNSSECPublicKey) -> Bool {
        defer { ERR_clear_error() }
        guard EVP_DigestVerifyInit(context, nil, key.suite.digest, nil, key.pointer) == 1 else { return false }
        return EVP_DigestVerify(context, signature, signature.count, data, data.count) == 1
    }
}
