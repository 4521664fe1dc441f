import Foundation
import HTTPDNSCore
internal import CHTTPDNSShims

extension CertificatePin {
    /// The public-key pin of a key file, as curl's `--pinnedpubkey FILE` (CURLOPT_PINNEDPUBLICKEY with
    /// a path): a PEM `-----BEGIN PUBLIC KEY-----` block or DER SubjectPublicKeyInfo. A certificate
    /// file (PEM or DER) is accepted too and pins the certificate's public key.
    ///
    /// ```
    /// openssl x509 -in server.pem -pubkey -noout > server.pubkey.pem
    /// ```
    /// - Parameter file: The key or certificate file; a pipe (`/dev/fd/N`, a FIFO) is read once, whole.
    /// - Returns: `.publicKey(sha256:)` of the key (RFC 7469 §2.4).
    /// - Throws: `TrustError.unreadableFile` when the file cannot be read, `TrustError.invalidPin` when
    ///   it holds neither a public key nor a certificate.
    public static func publicKey(contentsOf file: URL) throws(TrustError) -> CertificatePin {
        let data = try FileContents.trustFile(file.path)
        var digest = [UInt8](repeating: 0, count: 32)
        let ok = data.withUnsafeBytes { raw -> Int32 in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return 0 }
            return httpdns_public_key_sha256(base, raw.count, &digest)
        }
        if ok == 1 { return .publicKey(sha256: Data(digest)) }
        if let certificate = try? Certificate.certificates(fileContents: data, source: file.path).first { return certificate.publicKeyPin }
        throw TrustError.invalidPin(pin: file.path, reason: "the file holds no PEM or DER public key (BEGIN PUBLIC KEY) and no certificate")
    }
}
