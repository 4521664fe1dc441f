import Foundation
import Testing
import HTTPDNS
import TestSupport
import HTTPDNSCore

extension TrustSuites {
    /// Client certificates against nginx's mtls.test (`ssl_verify_client on` with a separate client CA).
    @Suite("Mutual TLS", .serialized)
    struct MutualTLSTests {
        let fixture: Fixture
        init() throws { fixture = try Fixture() }

        func fetch(_ identity: ClientIdentity?) async throws -> HTTPResponse {
            let trust = TrustPolicy(anchors: fixture.freshAnchors()).presenting(identity)
            let client = try HTTPClient(configuration: .init(trust: trust, timeouts: .generous), resolver: fixture.sharedResolver())
            return try await client.execute(HTTPRequest(url: fixture.url("mtls.test")))
        }

        @Test("PKCS#12 identities are accepted by the server", arguments: ["CLIENT_P12", "CLIENT_LEGACY_P12"])
        func pkcs12Identity(key: String) async throws {
            let identity = try ClientIdentity.pkcs12(contentsOf: fixture.file(key), password: fixture.clientPassword)
            #expect(identity.certificate.subject.contains("CN=client.test"))
            let response = try await fetch(identity)
            #expect(response.status == 200)
            #expect(response.text == "vhost=mtls.test\n")
            #expect(response.headers[first: "X-Client-Subject"]?.contains("CN=client.test") == true)
        }

        @Test("a PEM certificate with a plain key is accepted")
        func pemIdentity() async throws {
            let identity = try ClientIdentity.pem(certificate: fixture.file("CLIENT_CERT"), key: fixture.file("CLIENT_KEY"))
            #expect(try await fetch(identity).status == 200)
        }

        @Test("a PEM certificate with an encrypted key and its passphrase is accepted")
        func encryptedPEMKeyIdentity() async throws {
            let identity = try ClientIdentity.pem(certificate: fixture.file("CLIENT_CERT"), key: fixture.file("CLIENT_ENCRYPTED_KEY"), passphrase: fixture.clientPassword)
            #expect(try await fetch(identity).status == 200)
        }

        @Test("a wrong PKCS#12 password is a clear error", arguments: ["CLIENT_P12", "CLIENT_LEGACY_P12"])
        func wrongPKCS12Password(key: String) throws {
            #expect {
                try ClientIdentity.pkcs12(contentsOf: fixture.file(key), password: "wrong")
            } throws: { error in
                guard case .wrongPassword(_, let reason) = error as? TrustError else { return false }
                return reason.contains("wrong password")
            }
        }

        @Test("a wrong or missing passphrase for an encrypted PEM key is a clear error, never a prompt")
        func wrongPEMPassphrase() throws {
            for passphrase in ["wrong", nil] as [String?] {
                #expect {
                    try ClientIdentity.pem(certificate: fixture.file("CLIENT_CERT"), key: fixture.file("CLIENT_ENCRYPTED_KEY"), passphrase: passphrase)
                } throws: { error in
                    if case .wrongPassword = error as? TrustError { true } else { false }
                }
            }
        }

        @Test("a PKCS#12 file without a key, or a PEM certificate without one, is noPrivateKey")
        func identityWithoutKey() throws {
            #expect(throws: TrustError.noPrivateKey(source: fixture.file("CLIENT_NOKEY_P12").path)) {
                try ClientIdentity.pkcs12(contentsOf: fixture.file("CLIENT_NOKEY_P12"), password: fixture.clientPassword)
            }
            #expect(throws: TrustError.noPrivateKey(source: fixture.file("CLIENT_CERT").path)) {
                try ClientIdentity.pem(certificate: fixture.file("CLIENT_CERT"))
            }
        }

        @Test("a key that belongs to another certificate is keyMismatch, naming the key's file")
        func keyMismatch() throws {
            #expect(throws: TrustError.keyMismatch(source: fixture.file("CLIENT_EXPIRED_KEY").path)) {
                try ClientIdentity.pem(certificate: fixture.file("CLIENT_CERT"), key: fixture.file("CLIENT_EXPIRED_KEY"))
            }
        }

        @Test("an expired client certificate is refused when loaded, naming its real notAfter")
        func expiredIdentity() throws {
            let error = try #require(throws: TrustError.self) {
                try ClientIdentity.pem(certificate: fixture.file("CLIENT_EXPIRED_CERT"), key: fixture.file("CLIENT_EXPIRED_KEY"))
            }
            guard case .identityExpired(_, _, let notAfter) = error else { Issue.record("\(error)"); return }
            // The test PKI's expired certificate ends a day before it begins; its notAfter is still
            // the date to show (it was shown as 0001-01-01).
            let expected = try #require(try Certificate.certificates(contentsOf: fixture.file("CLIENT_EXPIRED_CERT")).first)
            #expect(notAfter == expected.expiresAt.formatted(.iso8601))
            #expect(!notAfter.hasPrefix("0001"), "\(notAfter)")
            #expect(expected.expiresAt > Date(timeIntervalSinceNow: -7 * 86_400))
        }

        @Test("a client certificate from a CA the server does not accept is rejected (58)")
        func untrustedClientCertificateRejected() async throws {
            let identity = try ClientIdentity.pkcs12(contentsOf: fixture.file("UNTRUSTED_CLIENT_P12"), password: fixture.clientPassword)
            let error = try await #require(throws: HTTPClientError.self) { try await fetch(identity) }
            #expect(error.kind == .clientCertificateRejected)
            #expect(error.curlExitStatus == 58)
            #expect(error.message.contains("rejected the client certificate"))
        }

        @Test("no client certificate where one is required is rejected (58)")
        func missingClientCertificateRejected() async throws {
            let error = try await #require(throws: HTTPClientError.self) { try await fetch(nil) }
            #expect(error.kind == .clientCertificateRejected)
            #expect(error.message.contains("No required SSL certificate was sent"))
        }

        @Test("a streaming destination never receives the page that rejects the client certificate")
        func rejectionPageIsNotStreamed() async throws {
            let received = LockedValue(Data())
            let client = try HTTPClient(
                configuration: .init(trust: TrustPolicy(anchors: fixture.freshAnchors()), timeouts: .generous),
                resolver: fixture.sharedResolver())
            let error = try await #require(throws: HTTPClientError.self) {
                try await client.execute(HTTPRequest(url: fixture.url("mtls.test")), to: .handler { chunk in received.withLock { $0.append(chunk) } })
            }
            #expect(error.kind == .clientCertificateRejected)
            #expect(received.withLock { $0.isEmpty })
        }
    }
}
