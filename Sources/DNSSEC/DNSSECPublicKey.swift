internal import COpenSSL
import DNSWire

/// The sole owner of one OpenSSL `EVP_PKEY` loaded from a DNSKEY, freed in `deinit`.
///
/// Key formats: RSA per RFC 3110 §2 (exponent length, exponent, modulus), ECDSA per RFC 6605 §4
/// (x ‖ y, 64 or 96 octets), Ed25519 per RFC 8080 §3 (32 octets).
final class DNSSECPublicKey {
    let pointer: OpaquePointer
    let suite: DNSSECAlgorithmSuite

    /// Loads `key`'s public key.
    /// - Throws: `DNSSECValidationError.unsupportedAlgorithm` for algorithms outside 8, 10, 13, 14, 15;
    ///   `.invalidKey` when the octets do not form a key of the algorithm.
    init(_ key: DNSKEY, zone: String) throws(DNSSECValidationError) {
        guard let suite = DNSSECAlgorithmSuite(key.algorithm) else { throw .unsupportedAlgorithm(key.algorithm, zone: zone) }
        self.suite = suite
        let invalid = { (reason: String) in DNSSECValidationError.invalidKey(keyTag: key.keyTag, algorithm: key.algorithm, reason: reason) }
        let loaded: OpaquePointer?
        switch suite.keyType {
        case .rsa:
            guard let (exponent, modulus) = Self.rsaComponents(key.publicKey) else { throw invalid("not an RFC 3110 RSA public key") }
            loaded = Self.fromData(type: "RSA") { builder in
                guard let n = BN_bin2bn(modulus, Int32(modulus.count), nil) else { return nil }
                defer { BN_free(n) }
                guard let e = BN_bin2bn(exponent, Int32(exponent.count), nil) else { return nil }
                defer { BN_free(e) }
                // The builder reads the numbers when `OSSL_PARAM_BLD_to_param` runs, so that happens here.
                guard OSSL_PARAM_BLD_push_BN(builder, Self.cString("n"), n) == 1, OSSL_PARAM_BLD_push_BN(builder, Self.cString("e"), e) == 1 else { return nil }
                return OSSL_PARAM_BLD_to_param(builder)
            }
        case .ecdsa(let group, let length):
            guard key.publicKey.count == length else { throw invalid("an \(group) key is \(length) octets, not \(key.publicKey.count)") }
            let point = [0x04] + key.publicKey // uncompressed point (SEC 1 §2.3.3)
            loaded = Self.fromData(type: "EC") { builder in
                point.withUnsafeBytes { raw in
                    guard OSSL_PARAM_BLD_push_utf8_string(builder, Self.cString("group"), Self.cString(group), 0) == 1,
                        OSSL_PARAM_BLD_push_octet_string(builder, Self.cString("pub"), raw.baseAddress, raw.count) == 1
                    else { return nil }
                    return OSSL_PARAM_BLD_to_param(builder)
                }
            }
        case .ed25519:
            guard key.publicKey.count == 32 else { throw invalid("an Ed25519 key is 32 octets, not \(key.publicKey.count)") }
            loaded = key.publicKey.withUnsafeBufferPointer { EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, $0.baseAddress, 32) }
        }
        guard let loaded else {
            ERR_clear_error()
            throw invalid("OpenSSL does not accept it as a public key")
        }
        pointer = loaded
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// RFC 3110 §2: a 1-octet exponent length (or 0 and a 2-octet length), the exponent, the modulus.
    static func rsaComponents(_ octets: [UInt8]) -> (exponent: [UInt8], modulus: [UInt8])? {
        guard let first = octets.first else { return nil }
        var start = 1
        var length = Int(first)
        if first == 0 {
            guard octets.count >= 3 else { return nil }
            length = Int(octets[1]) << 8 | Int(octets[2])
            start = 3
        }
        guard length > 0, octets.count > start + length else { return nil }
        return (Array(octets[start..<(start + length)]), Array(octets[(start + length)...]))
    }

    /// A C string that outlives the builder: it keeps parameter names and string values by reference
    /// until `OSSL_PARAM_BLD_to_param`, longer than a bridged Swift string lives.
    private static func cString(_ literal: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(literal.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    /// `EVP_PKEY_PUBLIC_KEY` (a macro Swift does not import): the public key and all parameters.
    private static let publicKeySelection = Int32(OSSL_KEYMGMT_SELECT_PUBLIC_KEY | OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS | OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS)

    /// Makes a public key of `type` from the parameters `build` pushes onto a fresh builder and
    /// converts (while the values it pushed by reference are still alive).
    private static func fromData(type: String, build: (OpaquePointer) -> UnsafeMutablePointer<OSSL_PARAM>?) -> OpaquePointer? {
        guard let builder = OSSL_PARAM_BLD_new() else { return nil }
        defer { OSSL_PARAM_BLD_free(builder) }
        guard let parameters = build(builder) else { return nil }
        defer { OSSL_PARAM_free(parameters) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_fromdata_init(context) == 1 else { return nil }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata(context, &key, Self.publicKeySelection, parameters) == 1 else { return nil }
        return key
    }
}
