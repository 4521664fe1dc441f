import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Testing
import HTTPDNSURLSession

/// `URLError(httpdns:url:)` for failures the real servers of this suite do not produce (expired
/// certificates, client-certificate alerts). Messages are libcurl's and OpenSSL's wording.
@Suite("URLError mapping")
struct URLErrorMappingTests {
    static let url = URL(string: "https://a.test/")!

    static func code(_ kind: HTTPClientError.Kind, _ message: String, curlCode: Int? = nil) -> URLError.Code {
        URLError(httpdns: HTTPClientError(kind: kind, message: message, url: url, curlCode: curlCode), url: url).code
    }

    @Test("certificate failures: bad date, unknown root, otherwise untrusted")
    func certificateFailures() {
        #expect(Self.code(.certificateVerificationFailed, "certificate verification failed for a.test: SSL certificate problem: certificate has expired") == .serverCertificateHasBadDate)
        #expect(Self.code(.certificateVerificationFailed, "SSL certificate problem: certificate is not yet valid") == .serverCertificateHasBadDate)
        #expect(Self.code(.certificateVerificationFailed, "SSL certificate problem: unable to get local issuer certificate") == .serverCertificateHasUnknownRoot)
        #expect(Self.code(.certificateVerificationFailed, "SSL certificate problem: self-signed certificate") == .serverCertificateHasUnknownRoot)
        #expect(Self.code(.certificateVerificationFailed, "SSL: no alternative certificate subject name matches target host name 'a.test'") == .serverCertificateUntrusted)
    }

    @Test("a TLS alert about our certificate is clientCertificateRejected; other handshake failures secureConnectionFailed")
    func handshakeFailures() {
        #expect(Self.code(.transferFailed, "OpenSSL SSL_read: error:0A00045C:SSL routines::tlsv13 alert certificate required", curlCode: 56) == .clientCertificateRejected)
        #expect(Self.code(.tlsHandshakeFailed, "OpenSSL SSL_connect: error:0A000412:SSL routines::sslv3 alert bad certificate") == .clientCertificateRejected)
        #expect(Self.code(.tlsHandshakeFailed, "OpenSSL SSL_connect: SSL_ERROR_SYSCALL") == .secureConnectionFailed)
        #expect(Self.code(.trustConfigurationInvalid, "trust anchors could not be loaded") == .secureConnectionFailed)
    }

    @Test("transport kinds map to their URLError codes, with the error underneath")
    func transportKinds() throws {
        #expect(Self.code(.couldNotConnect, "could not connect") == .cannotConnectToHost)
        #expect(Self.code(.timedOut, "timed out") == .timedOut)
        #expect(Self.code(.tooManyRedirects, "stopped") == .httpTooManyRedirects)
        #expect(Self.code(.unsupportedScheme, "ftp") == .unsupportedURL)
        #expect(Self.code(.transferFailed, "empty reply", curlCode: 52) == .badServerResponse)
        #expect(Self.code(.transferFailed, "connection reset", curlCode: 56) == .networkConnectionLost)
        let resolution = HTTPClientError(
            kind: .couldNotResolve, message: "no resolver", url: Self.url,
            resolutionError: .resolverUnavailable(host: "a.test", reasons: []))
        let error = URLError(httpdns: resolution, url: Self.url)
        #expect(error.code == .dnsLookupFailed)
        #expect(error.failingURL == Self.url)
        #expect((error.userInfo[NSUnderlyingErrorKey] as? HTTPClientError)?.kind == .couldNotResolve)
        #expect(URLError(httpdns: CancellationError(), url: nil).code == .cancelled)
    }
}
