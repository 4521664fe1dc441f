import Foundation
import HTTPDNSCore
internal import COpenSSL

/// MD5, HMAC-SHA256, AES-CBC and DES-ECB for the vendor HTTPDNS APIs, through OpenSSL's EVP interface (never hand-rolled).
///
/// MD5 is what Alibaba's signed API specifies for its URL signature; it is not used for anything
/// security-critical on our side (the answer is still only an address, verified by TLS on the name).
enum ProviderCrypto {
    /// Lower-case hex of MD5(`text`'s UTF-8 bytes).
    static func md5Hex(_ text: String) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let bytes = Array(text.utf8)
        let ok = bytes.withUnsafeBytes { raw in
            EVP_Digest(raw.baseAddress, raw.count, &digest, &length, EVP_md5(), nil)
        }
        precondition(ok == 1, "EVP_Digest(MD5) failed")
        return hex(Array(digest.prefix(Int(length))))
    }

    /// Why an AES operation failed.
    struct CryptoError: Error, CustomStringConvertible {
        var description: String
    }

    /// AES-CBC with PKCS#7 padding; the key length (16, 24 or 32 bytes) picks AES-128/192/256.
    static func aesCBC(encrypt: Bool, key: [UInt8], iv: [UInt8], input: [UInt8]) throws(CryptoError) -> [UInt8] {
        let cipher: OpaquePointer?
        switch key.count {
        case 16: cipher = EVP_aes_128_cbc()
        case 24: cipher = EVP_aes_192_cbc()
        case 32: cipher = EVP_aes_256_cbc()
        default: throw CryptoError(description: "AES key must be 16, 24 or 32 bytes, not \(key.count)")
        }
        guard iv.count == 16 else { throw CryptoError(description: "AES-CBC IV must be 16 bytes, not \(iv.count)") }
        return try run(cipher, name: "AES", encrypt: encrypt, key: key, iv: iv, input: input)
    }

    /// DES-ECB with PKCS#5 padding (Tencent Cloud HTTPDNS's `alg=des`): `key` is 8 bytes.
    ///
    /// OpenSSL 3 keeps single DES in its legacy provider, which is loaded into a library context of
    /// this type's own (`LegacyCiphers`), so that the process's default context is left as it was.
    static func desECB(encrypt: Bool, key: [UInt8], input: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == 8 else { throw CryptoError(description: "DES key must be 8 bytes, not \(key.count)") }
        guard let cipher = LegacyCiphers.shared.desECB else {
            throw CryptoError(description: "DES-ECB is not available: OpenSSL's legacy provider (ossl-modules/legacy.so) could not be loaded")
        }
        return try run(cipher, name: "DES", encrypt: encrypt, key: key, iv: nil, input: input)
    }

    /// HMAC-SHA256 of `input` under `key`, 32 bytes.
    static func hmacSHA256(key: [UInt8], input: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            input.withUnsafeBytes { inputBytes in
                HMAC(EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count), inputBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), inputBytes.count, &digest, &length)
            }
        }
        precondition(result != nil, "HMAC(SHA-256) failed")
        return Array(digest.prefix(Int(length)))
    }

    /// One whole encryption or decryption with `cipher` (PKCS padding).
    private static func run(_ cipher: OpaquePointer?, name: String, encrypt: Bool, key: [UInt8], iv: [UInt8]?, input: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError(description: "out of memory") }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_CipherInit_ex(context, cipher, nil, key, iv, encrypt ? 1 : 0) == 1 else {
            throw CryptoError(description: "\(name) initialisation failed")
        }
        var output = [UInt8](repeating: 0, count: input.count + 32)
        var written: Int32 = 0
        var total = 0
        guard EVP_CipherUpdate(context, &output, &written, input, Int32(input.count)) == 1 else {
            throw CryptoError(description: "\(name) update failed")
        }
        total = Int(written)
        let finished = output.withUnsafeMutableBufferPointer { buffer in
            EVP_CipherFinal_ex(context, buffer.baseAddress! + total, &written)
        }
        guard finished == 1 else {
            throw CryptoError(description: encrypt ? "\(name) finalisation failed" : "\(name) decryption failed (wrong key or corrupt data)")
        }
        total += Int(written)
        return Array(output.prefix(total))
    }

    /// `count` random bytes from OpenSSL's CSPRNG.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        precondition(RAND_bytes(&bytes, Int32(count)) == 1, "RAND_bytes failed")
        return bytes
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    /// Bytes from hex (either case); `nil` for odd length or a non-hex character.
    static func bytes(hex text: some StringProtocol) -> [UInt8]? {
        HexText.bytes(text)
    }
}

/// OpenSSL 3's legacy provider (single DES) in a library context of its own, loaded once.
/// `@unchecked Sendable`: the context and the fetched cipher are written once, at creation, and
/// OpenSSL's fetched EVP_CIPHER objects are safe to share between threads.
private final class LegacyCiphers: @unchecked Sendable {
    static let shared = LegacyCiphers()

    private let context: OpaquePointer?
    /// `DES-ECB` fetched from the legacy provider; nil when it could not be loaded.
    let desECB: OpaquePointer?

    private init() {
        guard let context = OSSL_LIB_CTX_new() else {
            self.context = nil
            desECB = nil
            return
        }
        self.context = context
        if OSSL_PROVIDER_load(context, "legacy") != nil, OSSL_PROVIDER_load(context, "default") != nil {
            desECB = EVP_CIPHER_fetch(context, "DES-ECB", nil)
        } else {
            desECB = nil
        }
    }
}
