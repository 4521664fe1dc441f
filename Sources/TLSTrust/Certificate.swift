import Foundation
import HTTPDNSCore
internal import COpenSSL
internal import CHTTPDNSShims

/// An X.509 certificate, held as its DER encoding (RFC 5280 §4.1).
public struct Certificate: Sendable, Hashable, CustomStringConvertible {
    /// The DER bytes.
    public let der: Data

    /// Parses one DER-encoded certificate.
    /// - Throws: `TrustError.invalidCertificate` when the bytes are not exactly one certificate.
    public init(der: Data) throws(TrustError) {
        let parsed = der.withUnsafeBytes { raw -> OpaquePointer? in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return nil }
            return httpdns_der_read_certificate(base, raw.count)
        }
        guard let parsed else { throw TrustError.invalidCertificate(source: "DER input", reason: "not a DER X.509 certificate") }
        X509_free(parsed)
        self.der = der
    }

    init(trustedDER der: Data) { self.der = der }

    /// Every certificate in PEM text (`-----BEGIN CERTIFICATE-----` blocks, RFC 7468 §5), in order.
    /// - Parameter source: Names the input in error messages (a file path, say).
    /// - Throws: `TrustError.invalidPEM` for a malformed block, `TrustError.noCertificates` when there is none.
    public static func certificates(pem: Data, source: String = "PEM input") throws(TrustError) -> [Certificate] {
        guard let stack = httpdns_x509_stack_new() else { throw TrustError.invalidPEM(source: source, reason: "out of memory") }
        defer { httpdns_x509_stack_free(stack) }
        var message = [CChar](repeating: 0, count: 256)
        guard !pem.isEmpty else { throw TrustError.noCertificates(source: source) }
        let count = pem.withUnsafeBytes { raw -> Int32 in
            guard let base = raw.bindMemory(to: CChar.self).baseAddress else { return 0 }
            return httpdns_pem_read_certificates(base, raw.count, stack, &message, message.count)
        }
        guard count >= 0 else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw TrustError.invalidPEM(source: source, reason: reason)
        }
        guard count > 0 else { throw TrustError.noCertificates(source: source) }
        var result: [Certificate] = []
        for index in 0..<httpdns_x509_stack_count(stack) {
            guard let x509 = httpdns_x509_stack_get(stack, index) else { continue }
            result.append(Certificate(trustedDER: derBytes(of: x509)))
        }
        return result
    }

    /// Every certificate in a PEM file; a DER file (one certificate) is accepted too. The file may
    /// be a pipe (`/dev/fd/N`, a FIFO, `/dev/stdin`): it is read once, whole.
    /// - Throws: `TrustError.unreadableFile`, `TrustError.invalidPEM`, `TrustError.noCertificates`.
    public static func certificates(contentsOf file: URL) throws(TrustError) -> [Certificate] {
        // `URL.path` is worked out anew at each use (a third of this function's time at start-up).
        let path = file.path
        return try certificates(fileContents: try FileContents.trustFile(path), source: path)
    }

    /// The certificates of a file's bytes: one DER certificate, or PEM.
    static func certificates(fileContents data: Data, source: String) throws(TrustError) -> [Certificate] {
        if let first = data.first, first == 0x30, let der = try? Certificate(der: data) {
            return [der]
        }
        return try certificates(pem: data, source: source)
    }

    /// The subject in RFC 2253 form, e.g. `CN=a.test,O=Example`.
    public var subject: String { withX509 { x509 in Self.name(of: x509, httpdns_x509_subject) } ?? "" }
    /// The issuer in RFC 2253 form.
    public var issuer: String { withX509 { x509 in Self.name(of: x509, httpdns_x509_issuer) } ?? "" }

    public var description: String { "Certificate(subject: \(subject), issuer: \(issuer))" }

    /// Calls `body` with a temporary OpenSSL `X509 *` for this certificate.
    func withX509<T>(_ body: (OpaquePointer) -> T) -> T? {
        let x509 = der.withUnsafeBytes { raw -> OpaquePointer? in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return nil }
            return httpdns_der_read_certificate(base, raw.count)
        }
        guard let x509 else { return nil }
        defer { X509_free(x509) }
        return body(x509)
    }

    package static func derBytes(of x509: OpaquePointer) -> Data {
        var out: UnsafeMutablePointer<UInt8>?
        let length = httpdns_x509_to_der(x509, &out)
        guard length > 0, let out else { return Data() }
        defer { httpdns_free(out) }
        return Data(bytes: out, count: Int(length))
    }

    package static func name(of x509: OpaquePointer, _ read: (OpaquePointer?, UnsafeMutablePointer<CChar>?, Int) -> Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 1024)
        let length = read(x509, &buffer, buffer.count)
        guard length >= 0 else { return "" }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
