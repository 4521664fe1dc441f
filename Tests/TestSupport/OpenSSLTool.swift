import Foundation

/// The `openssl` command, as an implementation of the vendor APIs' ciphers and signatures that
/// shares nothing with the code under test (which calls libcrypto through its own Swift): the tests
/// compute the expected ciphertexts and signatures with it.
public enum OpenSSLTool {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    static let executable = URL(fileURLWithPath: "/usr/bin/openssl")

    /// `openssl enc -CIPHER -K KEY [-iv IV] -nosalt [-d]` over `input`.
    /// - Parameters:
    ///   - cipher: An `openssl enc` cipher name: `des-ecb`, `aes-128-cbc`, ...
    ///   - key: The raw key (its hex goes to `-K`).
    ///   - iv: The raw IV for a CBC cipher.
    public static func enc(_ cipher: String, decrypt: Bool = false, key: [UInt8], iv: [UInt8]? = nil, input: [UInt8]) throws -> [UInt8] {
        var arguments = ["enc", "-\(cipher)", "-K", hex(key), "-nosalt"]
        if let iv { arguments += ["-iv", hex(iv)] }
        if decrypt { arguments.append("-d") }
        // OpenSSL 3 keeps single DES in its legacy provider.
        if cipher.hasPrefix("des-") { arguments += ["-provider", "legacy", "-provider", "default"] }
        return try run(arguments, input: input)
    }

    /// `openssl dgst -sha256 -mac HMAC -macopt hexkey:KEY`, as lower-case hex.
    public static func hmacSHA256(hexKey: String, input: String) throws -> String {
        let output = try run(["dgst", "-sha256", "-mac", "HMAC", "-macopt", "hexkey:\(hexKey)", "-r"], input: Array(input.utf8))
        return String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
    }

    /// `openssl dgst -md5`, as lower-case hex.
    public static func md5(_ input: String) throws -> String {
        let output = try run(["dgst", "-md5", "-r"], input: Array(input.utf8))
        return String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
    }

    public static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    public static func bytes(hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            if let byte = UInt8(hex[index..<next], radix: 16) { result.append(byte) }
            index = next
        }
        return result
    }

    private static func run(_ arguments: [String], input: [UInt8]) throws -> [UInt8] {
        let result = try Command.run(executable, arguments, stdin: Data(input), timeout: 30)
        guard result.status == 0 else { throw Failure(description: "openssl \(arguments.prefix(2).joined(separator: " ")): \(result.stderrText)") }
        return Array(result.stdout)
    }
}
