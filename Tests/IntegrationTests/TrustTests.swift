import Foundation
import Testing
import HTTPDNS
import TestSupport

extension TrustSuites {
    /// Anchors, self-signed servers, the insecure opt-in, per-host policies and OCSP stapling,
    /// against real nginx virtual hosts.
    @Suite("Trust anchors and policies", .serialized)
    struct TrustTests {
        let fixture: Fixture
        init() throws { fixture = try Fixture() }

        func client(_ trust: TrustPolicy, events: TrustEventLog? = nil, policies: TrustPolicyManager? = nil) throws -> HTTPClient {
            var configuration = HTTPClient.Configuration(trust: trust, timeouts: .generous)
            configuration.trustEventHandler = events?.handler
            configuration.trustPolicies = policies
            return try HTTPClient(configuration: configuration, resolver: fixture.sharedResolver())
        }

        @Test("an expired server certificate fails verification (60)")
        func expiredServerCertificateRejected() async throws {
            let error = try await #require(throws: HTTPClientError.self) {
                try await client(fixture.trust).execute(HTTPRequest(url: fixture.url("expired.test")))
            }
            #expect(error.kind == .certificateVerificationFailed)
            #expect(error.message.contains("expired"))
        }

        @Test("a wildcard certificate verifies for one label and not for two")
        func wildcardCertificate() async throws {
            let response = try await client(fixture.trust).execute(HTTPRequest(url: fixture.url("api.wild.test")))
            #expect(response.text == "vhost=wild.test\n")
            let error = try await #require(throws: HTTPClientError.self) {
                try await client(fixture.trust).execute(HTTPRequest(url: fixture.url("a.b.wild.test")))
            }
            #expect(error.kind == .certificateVerificationFailed)
        }

        @Test("a self-signed server is rejected by default")
        func selfSignedRejectedByDefault() async throws {
            let error = try await #require(throws: HTTPClientError.self) {
                try await client(fixture.trust).execute(HTTPRequest(url: fixture.url("self-signed.test")))
            }
            #expect(error.kind == .certificateVerificationFailed)
        }

        @Test("a self-signed server is trusted by its own certificate as the only anchor")
        func selfSignedTrustedByItsCertificate() async throws {
            let certificate = try Certificate.certificates(contentsOf: fixture.file("SELF_SIGNED_CERT"))[0]
            let response = try await client(.selfSigned(certificate)).execute(HTTPRequest(url: fixture.url("self-signed.test")))
            #expect(response.text == "vhost=self-signed.test\n")
            // Only that anchor: the CA-signed a.test no longer verifies.
            await #expect(throws: HTTPClientError.self) {
                try await client(.selfSigned(certificate)).execute(HTTPRequest(url: fixture.url("a.test")))
            }
        }

        @Test("a self-signed server is trusted by its pin when pins are anchors", arguments: [false, true])
        func selfSignedTrustedByPin(wholeCertificate: Bool) async throws {
            let certificate = try Certificate.certificates(contentsOf: fixture.file("SELF_SIGNED_CERT"))[0]
            let pin = wholeCertificate ? certificate.certificatePin : certificate.publicKeyPin
            let response = try await client(.pinsAsAnchors([pin])).execute(HTTPRequest(url: fixture.url("self-signed.test")))
            #expect(response.status == 200)
            // The pin does not make other servers trusted.
            let error = try await #require(throws: HTTPClientError.self) {
                try await client(.pinsAsAnchors([pin])).execute(HTTPRequest(url: fixture.url("a.test")))
            }
            #expect(error.kind == .certificateVerificationFailed)
        }

        @Test("anchors load from PEM with many certificates and from DER")
        func anchorsFromPEMAndDER() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-anchors-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let bundle = directory.appendingPathComponent("bundle.pem")
            let pem = try String(contentsOf: fixture.servers.otherCACertificate, encoding: .utf8) + String(contentsOf: fixture.servers.caCertificate, encoding: .utf8)
            try pem.write(to: bundle, atomically: true, encoding: .utf8)
            #expect(try Certificate.certificates(contentsOf: bundle).count == 2)
            let der = directory.appendingPathComponent("ca.der")
            try fixture.testCA[0].der.write(to: der)
            let anchors = try Certificate.certificates(contentsOf: der)
            #expect(anchors == fixture.testCA)
            let response = try await client(.anchors(anchors, includingSystemRoots: false)).execute(HTTPRequest(url: fixture.url("b.test")))
            #expect(response.status == 200)
        }

        @Test("the insecure policy accepts anything and raises an event on every new connection")
        func insecureWarnsPerConnection() async throws {
            let events = TrustEventLog()
            let insecure = TrustPolicy(anchors: fixture.freshAnchors(), verification: .insecureSkippingAllVerification)
            let client = try client(insecure, events: events)
            let first = try await client.execute(HTTPRequest(url: fixture.url("self-signed.test")))
            #expect(first.status == 200)
            #expect(first.connection.verificationSkipped)
            _ = try await client.execute(HTTPRequest(url: fixture.url("wrong.test")))
            #expect(events.insecureConnections == 2)
        }

        @Test(
            "without verification the reports say disabled, never verified, on a new and on a reused connection, whatever the certificate",
            arguments: ["self-signed.test", "wrong.test", "a.test"])
        func insecureReportsVerificationDisabled(host: String) async throws {
            let insecure = TrustPolicy(anchors: fixture.freshAnchors(), verification: .insecureSkippingAllVerification)
            let client = try client(insecure, events: TrustEventLog())
            for round in 0..<2 {
                var request = HTTPRequest(url: fixture.url(host))
                request.reportsTLSDetails = true
                let response = try await client.execute(request)
                #expect(response.status == 200)
                #expect(response.connection.reusedConnection == (round == 1))
                let tls = try #require(response.connection.tls)
                #expect(tls.verification == .disabled)
                #expect(!tls.verified)
                #expect(response.connection.certificateVerification == .disabled)
                #expect(tls.verification.description == "not verified (verification disabled)")
            }
        }

        @Test(
            "without verification the verify result is what verification would have found, as curl -k reports it",
            arguments: [("self-signed.test", 18), ("wrong.test", 62), ("expired.test", 10), ("a.test", 0)])
        func insecureVerifyResultIsTheUnenforcedVerdict(host: String, code: Int) async throws {
            let insecure = TrustPolicy(anchors: fixture.freshAnchors(), verification: .insecureSkippingAllVerification)
            let response = try await client(insecure, events: TrustEventLog()).execute(HTTPRequest(url: fixture.url(host)))
            #expect(response.status == 200)
            #expect(response.connection.certificateVerifyResult == code)
            // Nothing depended on it: even a certificate that would have verified is not "verified".
            #expect(response.connection.certificateVerification == .disabled)
        }

        @Test("with verification a completed request reports verified, and a refused certificate reports failed with OpenSSL's code")
        func verificationVerifiedAndFailed() async throws {
            var request = HTTPRequest(url: fixture.url("a.test"))
            request.reportsTLSDetails = true
            let client = try client(TrustPolicy(anchors: fixture.freshAnchors()))
            let response = try await client.execute(request)
            #expect(response.connection.certificateVerification == .verified)
            #expect(response.connection.tls?.verification == .verified)
            #expect(response.connection.tls?.verified == true)
            for (host, code) in [("wrong.test", 62), ("self-signed.test", 18), ("expired.test", 10)] {
                let error = try await #require(throws: HTTPClientError.self) {
                    try await client.execute(HTTPRequest(url: fixture.url(host)))
                }
                #expect(error.kind == .certificateVerificationFailed)
                #expect(error.connection?.certificateVerification == .failed(x509Error: code), "\(host)")
            }
        }

        @Test(
            "without verification the event comes when the head arrives, before any body byte reaches a streaming destination, once per connection",
            arguments: [false, true])
        func insecureEventPrecedesTheBody(streaming: Bool) async throws {
            let order = LockedValue<[String]>([])
            var configuration = HTTPClient.Configuration(
                trust: TrustPolicy(anchors: fixture.freshAnchors(), verification: .insecureSkippingAllVerification),
                timeouts: .generous)
            configuration.trustEventHandler = { event in
                if case .insecureConnection = event { order.withLock { $0.append("event") } }
            }
            let client = try HTTPClient(configuration: configuration, resolver: fixture.sharedResolver())
            let chunk: @Sendable (Data) -> Void = { _ in order.withLock { $0.append("body") } }
            let destination: ResponseBodyDestination = streaming ? .streaming(head: { _ in order.withLock { $0.append("head") } }, chunk: chunk) : .handler(chunk)
            let response = try await client.execute(HTTPRequest(url: fixture.url("self-signed.test")), to: destination)
            #expect(response.status == 200)
            let events = order.withLock { $0 }
            #expect(events.first == "event", "\(events.prefix(3))")
            #expect(events.filter { $0 == "event" }.count == 1)
            if streaming { #expect(events.prefix(2) == ["event", "head"]) }
        }

        @Test("pins still apply without verification: -k with a pin accepts only the pinned server")
        func insecureStillEnforcesPins() async throws {
            let certificate = try Certificate.certificates(contentsOf: fixture.file("SELF_SIGNED_CERT"))[0]
            var pinned = TrustPolicy.insecureSkippingAllVerification.pinning(PinSet(pins: [certificate.publicKeyPin]))
            pinned.anchors = fixture.freshAnchors()
            #expect(try await client(pinned, events: TrustEventLog()).execute(HTTPRequest(url: fixture.url("self-signed.test"))).status == 200)
            let error = try await #require(throws: HTTPClientError.self) {
                try await client(pinned, events: TrustEventLog()).execute(HTTPRequest(url: fixture.url("wrong.test")))
            }
            #expect(error.kind == .pinMismatch)
            #expect(error.message.contains("CN=other.test"))
        }

        @Test("a per-host manager picks the most specific policy, else the default")
        func managerChoosesPolicyPerHost() async throws {
            let pinned = TrustPolicy(anchors: fixture.freshAnchors(), pinSets: [PinSet(pins: [fixture.otherCA[0].publicKeyPin])])
            let manager = TrustPolicyManager(policies: ["a.test": pinned, "**.wild.test": fixture.trust], default: fixture.trust)
            let client = try client(.system, policies: manager)
            let error = try await #require(throws: HTTPClientError.self) { try await client.execute(HTTPRequest(url: fixture.url("a.test"))) }
            #expect(error.kind == .pinMismatch)
            // (Not b.test: see TransportTests; an HTTP/2 GET racing their HTTP/1.1 upload to the same
            // host in the same pool can stall, a transport issue outside this suite.)
            #expect(try await client.execute(HTTPRequest(url: fixture.url("api.wild.test"))).status == 200)
            #expect(try await client.execute(HTTPRequest(url: fixture.url("localhost"))).status == 200)
        }

        @Test("with requiresMatch, a host no policy matches fails before it is resolved")
        func managerRequiresMatch() async throws {
            let manager = TrustPolicyManager(policies: ["a.test": fixture.trust], requiresMatch: true)
            let client = try client(.system, policies: manager)
            #expect(try await client.execute(HTTPRequest(url: fixture.url("a.test"))).status == 200)
            let error = try await #require(throws: HTTPClientError.self) {
                try await client.execute(HTTPRequest(url: fixture.url("never-resolved.test")))
            }
            #expect(error.kind == .trustConfigurationInvalid)
            #expect(error.resolutionError == nil)
            #expect(error.message.contains("never-resolved.test"))
        }

        @Test("requiring OCSP stapling fails against a server that staples nothing (91)")
        func ocspStaplingRequired() async throws {
            let error = try await #require(throws: HTTPClientError.self) {
                try await client(TrustPolicy(anchors: fixture.freshAnchors()).requiringOCSPStapling()).execute(HTTPRequest(url: fixture.url("a.test")))
            }
            #expect(error.kind == .certificateStatusInvalid)
            #expect(error.curlExitStatus == 91)
        }

        @Test("the DoH endpoint has its own policy: a pin mismatch there fails resolution, not the target")
        func dohEndpointPolicyIsIndependent() async throws {
            let dohPinned = TrustPolicy(anchors: fixture.freshAnchors(), pinSets: [PinSet(pins: [fixture.otherCA[0].publicKeyPin])])
            let configuration = HostResolver.Configuration(endpoints: [fixture.endpoint], requestTimeout: TestTimeScale.scaled(3), fallbackToSystemResolver: false)
            let resolver = try HostResolver(configuration: configuration, dohTrust: dohPinned)
            await #expect(throws: ResolutionError.self) { try await resolver.resolve(host: "a.test", port: 443) }
            let good = try HostResolver(configuration: configuration, dohTrust: .publicKeyPins([try fixture.leafCertificate("dns.test").publicKeyPin], anchors: fixture.freshAnchors()))
            let client = try HTTPClient(configuration: .init(trust: fixture.trust), resolver: good)
            #expect(try await client.execute(HTTPRequest(url: fixture.url("a.test"))).status == 200)
        }
    }
}
