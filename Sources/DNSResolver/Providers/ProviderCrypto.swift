import Foundation
import HTTPDNSCore
internal import COpenSSL

/// MD5, HMAC-SHA256, HMAC-MD5, AES-CBC, AES-GCM and DES-ECB for the vendor HTTPDNS APIs, through OpenSSL's EVP interface (never hand-rolled).
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
        let cipher = try aes(keyLength: key.count, cbc: true)
        guard iv.count == 16 else { throw CryptoError(description: "AES-CBC IV must be 16 bytes, not \(iv.count)") }
        return try run(cipher, name: "AES", encrypt: encrypt, key: key, iv: iv, input: input)
    }

    /// AES-GCM with a 16-byte tag and no additional data (Java's `AES/GCM/NoPadding` with a 128-bit
    /// tag, which Alibaba's `/v2/d` mode 2 uses); the key length picks AES-128/192/256.
    /// Encrypting returns the ciphertext followed by the tag; decrypting takes that and checks the tag.
    /// - Throws: `CryptoError` for a key of another length, an IV that is not 12 bytes, input shorter
    ///   than a tag, or a tag that does not match (a wrong key or altered data).
    static func aesGCM(encrypt: Bool, key: [UInt8], iv: [UInt8], input: [UInt8]) throws(CryptoError) -> [UInt8] {
        let cipher = try aes(keyLength: key.count, cbc: false)
        guard iv.count == gcmIVLength else { throw CryptoError(description: "AES-GCM IV must be \(gcmIVLength) bytes, not \(iv.count)") }
        guard encrypt || input.count >= gcmTagLength else { throw CryptoError(description: "AES-GCM input is shorter than its \(gcmTagLength)-byte tag") }
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError(description: "out of memory") }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_CipherInit_ex(context, cipher, nil, key, iv, encrypt ? 1 : 0) == 1 else {
            throw CryptoError(description: "AES-GCM initialisation failed")
        }
        let body = encrypt ? input : Array(input.dropLast(gcmTagLength))
        var output = [UInt8](repeating: 0, count: body.count + gcmTagLength)
        var written: Int32 = 0
        guard EVP_CipherUpdate(context, &output, &written, body, Int32(body.count)) == 1 else {
            throw CryptoError(description: "AES-GCM update failed")
        }
        var total = Int(written)
        if !encrypt {
            var tag = Array(input.suffix(gcmTagLength))
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(gcmTagLength), &tag) == 1 else {
                throw CryptoError(description: "AES-GCM tag rejected")
            }
        }
        let finished = output.withUnsafeMutableBufferPointer { buffer in
            EVP_CipherFinal_ex(context, buffer.baseAddress! + total, &written)
        }
        guard finished == 1 else {
            throw CryptoError(description: encrypt ? "AES-GCM finalisation failed" : "AES-GCM decryption failed: the tag does not match (wrong key or altered data)")
        }
        total += Int(written)
        guard encrypt else { return Array(output.prefix(total)) }
        var tag = [UInt8](repeating: 0, count: gcmTagLength)
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(gcmTagLength), &tag) == 1 else {
            throw CryptoError(description: "AES-GCM tag unavailable")
        }
        return Array(output.prefix(total)) + tag
    }

    /// AES-128/192/256 in CBC or GCM mode, picked by the key length in bytes.
    private static func aes(keyLength: Int, cbc: Bool) throws(CryptoError) -> OpaquePointer? {
        switch keyLength {
        case 16: cbc ? EVP_aes_128_cbc() : EVP_aes_128_gcm()
        case 24: cbc ? EVP_aes_192_cbc() : EVP_aes_192_gcm()
        case 32: cbc ? EVP_aes_256_cbc() : EVP_aes_256_gcm()
        default: throw CryptoError(description: "AES key must be 16, 24 or 32 bytes, not \(keyLength)")
        }
    }

    /// The AES-GCM IV length Alibaba's SDK uses (`GCM_IV_LENGTH`), in bytes.
    static let gcmIVLength = 12
    /// The AES-GCM tag length (`GCM_TAG_LENGTH` 128 bits), in bytes.
    static let gcmTagLength = 16

    /// HMAC-MD5 of `input` under `key`, as lower-case hex (Alibaba's scheduling API signature).
    static func hmacMD5Hex(key: [UInt8], input: [UInt8]) -> String {
        hex(hmac(EVP_md5(), key: key, input: input))
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
        hmac(EVP_sha256(), key: key, input: input)
    }

    private static func hmac(_ digestType: OpaquePointer?, key: [UInt8], input: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            input.withUnsafeBytes { inputBytes in
                HMAC(digestType, keyBytes.baseAddress, Int32(keyBytes.count), inputBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), inputBytes.count, &digest, &length)
            }
        }
        precondition(result != nil, "HMAC failed")
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
