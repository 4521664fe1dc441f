import Foundation
import HTTPDNSCore
internal import COpenSSL
internal import CHTTPDNSShims

extension ClientIdentity {
    /// How an identity file is encoded (curl's `--cert-type`).
    public enum FileType: String, Sendable, Hashable {
        /// PKCS#12 / PFX (RFC 7292): certificate, key and chain in one password-protected file.
        case pkcs12 = "P12"
        /// PEM certificate(s), with the key in the same file or in a separate key file.
        case pem = "PEM"
    }

    /// Loads a PKCS#12 file: OpenSSL 3's default (AES-256-CBC, PBKDF2) and the legacy formats of
    /// older tools (3DES, RC2-40), for which OpenSSL's legacy provider is loaded on first need.
    /// - Parameters:
    ///   - file: The `.p12` / `.pfx` file.
    ///   - password: Its password; nil or "" for none.
    ///   - date: The moment the certificate must be valid at (default: now).
    /// - Throws: `TrustError.unreadableFile`, `.wrongPassword`, `.noPrivateKey`,
    ///   `.invalidIdentity` (not PKCS#12, or an algorithm OpenSSL cannot provide),
    ///   `.identityExpired`.
    public static func pkcs12(contentsOf file: URL, password: String?, validAt date: Date = Date()) throws(TrustError) -> ClientIdentity {
        try pkcs12(data: try FileContents.trustFile(file.path), password: password, source: file.path, validAt: date)
    }

    /// `pkcs12(contentsOf:password:validAt:)` for bytes in memory; `source` names them in errors.
    public static func pkcs12(data: Data, password: String?, source: String = "PKCS#12 data", validAt date: Date = Date()) throws(TrustError) -> ClientIdentity {
        guard let chain = httpdns_x509_stack_new() else { throw TrustError.invalidIdentity(source: source, reason: "out of memory") }
        defer { httpdns_x509_stack_free(chain) }
        var certificate: OpaquePointer?
        var key: OpaquePointer?
        var message = [CChar](repeating: 0, count: 512)
        let status = data.withUnsafeBytes { raw -> Int32 in
            let base = raw.bindMemory(to: UInt8.self).baseAddress
            return httpdns_pkcs12_parse(base, raw.count, password, &certificate, &key, chain, &message, message.count)
        }
        let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch Int(status) {
        case Int(HTTPDNS_IDENTITY_OK): break
        case Int(HTTPDNS_IDENTITY_WRONG_PASSWORD): throw TrustError.wrongPassword(source: source, reason: reason)
        case Int(HTTPDNS_IDENTITY_NO_KEY): throw TrustError.noPrivateKey(source: source)
        default: throw TrustError.invalidIdentity(source: source, reason: reason)
        }
        guard let certificate, let key else { throw TrustError.invalidIdentity(source: source, reason: "no certificate") }
        defer {
            X509_free(certificate)
            httpdns_private_key_free(key)
        }
        var intermediates: [Certificate] = []
        for index in 0..<httpdns_x509_stack_count(chain) {
            if let x509 = httpdns_x509_stack_get(chain, index) {
                intermediates.append(Certificate(trustedDER: Certificate.derBytes(of: x509)))
            }
        }
        return try make(certificate: certificate, key: key, chain: intermediates, source: source, date: date)
    }

    /// Loads a PEM certificate and private key (curl's `--cert FILE --key FILE --pass PHRASE`).
    /// - Parameters:
    ///   - certificateFile: PEM certificate, optionally followed by intermediates and by the key.
    ///   - keyFile: PEM private key (PKCS#8, traditional, or encrypted); nil when the key is in
    ///     `certificateFile`.
    ///   - passphrase: For an encrypted key. Never prompted for.
    ///   - date: The moment the certificate must be valid at (default: now).
    /// - Throws: `TrustError.unreadableFile`, `.noCertificates`, `.invalidPEM`, `.wrongPassword`,
    ///   `.noPrivateKey`, `.keyMismatch`, `.identityExpired`.
    public static func pem(
        certificate certificateFile: URL, key keyFile: URL? = nil, passphrase: String? = nil,
        validAt date: Date = Date()
    ) throws(TrustError) -> ClientIdentity {
        let certificateData = try FileContents.trustFile(certificateFile.path)
        let certificates = try Certificate.certificates(pem: certificateData, source: certificateFile.path)
        let keySource = keyFile ?? certificateFile
        let keyData = keyFile == nil ? certificateData : try FileContents.trustFile(keySource.path)
        var key: OpaquePointer?
        var message = [CChar](repeating: 0, count: 512)
        let status = keyData.withUnsafeBytes { raw -> Int32 in
            httpdns_pem_private_key(raw.bindMemory(to: CChar.self).baseAddress, raw.count, passphrase, &key, &message, message.count)
        }
        let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch Int(status) {
        case Int(HTTPDNS_IDENTITY_OK): break
        case Int(HTTPDNS_IDENTITY_WRONG_PASSWORD): throw TrustError.wrongPassword(source: keySource.path, reason: reason)
        case Int(HTTPDNS_IDENTITY_NO_KEY): throw TrustError.noPrivateKey(source: keySource.path)
        default: throw TrustError.invalidIdentity(source: keySource.path, reason: reason)
        }
        guard let key else { throw TrustError.noPrivateKey(source: keySource.path) }
        defer { httpdns_private_key_free(key) }
        let leaf = certificates[0]
        guard
            let result = leaf.withX509({ x509 -> Result<ClientIdentity, TrustError> in
                Result { () throws(TrustError) -> ClientIdentity in
                    try make(
                        certificate: x509, key: key, chain: Array(certificates.dropFirst()), source: certificateFile.path,
                        keySource: keySource.path, date: date)
                }
            })
        else { throw TrustError.invalidIdentity(source: certificateFile.path, reason: "unreadable certificate") }
        return try result.get()
    }

    private static func make(
        certificate: OpaquePointer, key: OpaquePointer, chain: [Certificate], source: String,
        keySource: String? = nil, date: Date
    ) throws(TrustError) -> ClientIdentity {
        // Name the file the key came from: with --key that is not the certificate's file.
        guard httpdns_key_matches(certificate, key) != 0 else { throw TrustError.keyMismatch(source: keySource ?? source) }
        var out: UnsafeMutablePointer<UInt8>?
        let length = httpdns_private_key_to_der(key, &out)
        guard length > 0, let out else { throw TrustError.invalidIdentity(source: source, reason: "the private key cannot be encoded") }
        let keyDER = Data(bytes: out, count: Int(length))
        httpdns_free(out)
        let leaf = Certificate(trustedDER: Certificate.derBytes(of: certificate))
        let validity = leaf.validity
        guard validity.contains(date) else {
            throw TrustError.identityExpired(source: source, subject: leaf.subject, notAfter: leaf.expiresAt.formatted(.iso8601))
        }
        return ClientIdentity(certificate: leaf, chain: chain, privateKeyDER: keyDER, source: source)
    }
}
