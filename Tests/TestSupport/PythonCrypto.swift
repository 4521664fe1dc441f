import Foundation

/// Ciphers the `openssl` command line does not offer (its `enc` refuses AEAD modes), computed by
/// Python's `cryptography` package (Debian's `python3-cryptography`), so that tests check the
/// library's OpenSSL calls against an independent implementation.
public enum PythonCrypto {
    static let executable = URL(fileURLWithPath: "/usr/bin/python3")

    /// AES-GCM (no additional data, 16-byte tag): the ciphertext followed by the tag when
    /// encrypting; the plain text when decrypting `input` (ciphertext then tag).
    public static func aesGCM(decrypt: Bool = false, key: [UInt8], iv: [UInt8], input: [UInt8]) throws -> [UInt8] {
        let script = """
            import sys
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM
            key, iv, op = bytes.fromhex(sys.argv[1]), bytes.fromhex(sys.argv[2]), sys.argv[3]
            data = sys.stdin.buffer.read()
            cipher = AESGCM(key)
            sys.stdout.buffer.write(cipher.decrypt(iv, data, None) if op == "decrypt" else cipher.encrypt(iv, data, None))
            """
        let result = try Command.run(
            executable, ["-c", script, OpenSSLTool.hex(key), OpenSSLTool.hex(iv), decrypt ? "decrypt" : "encrypt"], stdin: Data(input), timeout: 30)
        guard result.status == 0 else { throw OpenSSLTool.Failure(description: "python3 AESGCM: \(result.stderrText)") }
        return Array(result.stdout)
    }

    /// Lower-case hex HMAC-MD5 of `input` under `key` (Python's standard `hmac`).
    public static func hmacMD5(key: String, input: String) throws -> String {
        let script = "import hmac, hashlib, sys; print(hmac.new(sys.argv[1].encode(), sys.stdin.buffer.read(), hashlib.md5).hexdigest())"
        let result = try Command.run(executable, ["-c", script, key], stdin: Data(input.utf8), timeout: 30)
        guard result.status == 0 else { throw OpenSSLTool.Failure(description: "python3 hmac: \(result.stderrText)") }
        return String(decoding: result.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
