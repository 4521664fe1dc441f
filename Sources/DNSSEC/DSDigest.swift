internal import COpenSSL
import DNSWire

/// DS digests (RFC 4034 §5.1.4): SHA-256 (RFC 4509) and SHA-384 (RFC 6605 §2).
enum DSDigest {
    /// Whether `type` is one this validator implements.
    static func isSupported(_ type: DNSSECDigestType) -> Bool {
        type == .sha256 || type == .sha384
    }

    /// The digest of `input` for `type`, or `nil` for a digest type this validator does not implement.
    static func digest(_ input: [UInt8], type: DNSSECDigestType) -> [UInt8]? {
        let function: OpaquePointer?
        switch type {
        case .sha256: function = EVP_sha256()
        case .sha384: function = EVP_sha384()
        default: return nil
        }
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_Digest(input, input.count, &output, &length, function, nil) == 1 else {
            ERR_clear_error()
            return nil
        }
        return Array(output.prefix(Int(length)))
    }
}
