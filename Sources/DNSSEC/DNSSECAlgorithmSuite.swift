internal import COpenSSL
import DNSWire

/// What OpenSSL needs for one supported DNSSEC algorithm: the key type and the digest.
struct DNSSECAlgorithmSuite {
    enum KeyType {
        case rsa
        /// The OpenSSL group name and the public key length (x ‖ y) in octets.
        case ecdsa(group: StaticString, keyLength: Int)
        case ed25519
    }

    let algorithm: DNSSECAlgorithm
    let keyType: KeyType

    /// The algorithms this validator implements (RFC 8624 §3.1's MUST and RECOMMENDED set less the
    /// SHA-1 ones): 8, 10, 13, 14, 15. `nil` for any other.
    init?(_ algorithm: DNSSECAlgorithm) {
        switch algorithm {
        case .rsaSHA256, .rsaSHA512: keyType = .rsa
        case .ecdsaP256SHA256: keyType = .ecdsa(group: "P-256", keyLength: 64)
        case .ecdsaP384SHA384: keyType = .ecdsa(group: "P-384", keyLength: 96)
        case .ed25519: keyType = .ed25519
        default: return nil
        }
        self.algorithm = algorithm
    }

    /// The digest the signature is made over; `nil` for Ed25519, which hashes internally (RFC 8032).
    var digest: OpaquePointer? {
        switch algorithm {
        case .rsaSHA256, .ecdsaP256SHA256: EVP_sha256()
        case .rsaSHA512: EVP_sha512()
        case .ecdsaP384SHA384: EVP_sha384()
        default: nil
        }
    }

    /// The signature as OpenSSL verifies it: ECDSA's r ‖ s (RFC 6605 §4) as a DER `ECDSA-Sig-Value`;
    /// `nil` when the length is wrong for the curve. Other algorithms' signatures pass unchanged.
    func opensslSignature(_ signature: [UInt8]) -> [UInt8]? {
        switch keyType {
        case .ecdsa(_, let length):
            guard signature.count == length else { return nil }
            return Self.derSignature(r: signature[..<(length / 2)], s: signature[(length / 2)...])
        case .ed25519:
            return signature.count == 64 ? signature : nil
        case .rsa:
            return signature
        }
    }

    /// `SEQUENCE { INTEGER r, INTEGER s }` in DER (X9.62); short-form lengths suffice up to P-384.
    static func derSignature(r: ArraySlice<UInt8>, s: ArraySlice<UInt8>) -> [UInt8] {
        func integer(_ octets: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(octets.drop { $0 == 0 })
            if value.isEmpty || value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(r) + integer(s)
        return [0x30, UInt8(body.count)] + body
    }
}
