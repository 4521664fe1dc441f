import Foundation
import Testing
import HTTPDNS
import TestSupport

extension TrustSuites {
    /// Certificate and public-key pinning against real nginx, on IP-direct connections.
    @Suite("Pinning", .serialized)
    struct PinningTests {
        let fixture: Fixture
        init() throws { fixture = try Fixture() }

        func client(_ trust: TrustPolicy, events: TrustEventLog? = nil) throws -> HTTPClient {
            var configuration = HTTPClient.Configuration(trust: trust, timeouts: .generous)
            configuration.trustEventHandler = events?.handler
            return try HTTPClient(configuration: configuration, resolver: fixture.sharedResolver())
        }

        @Test("SPKI pins equal what curl's documented openssl pipeline computes")
        func publicKeyPinMatchesOpenSSL() async throws {
            let file = fixture.servers.leaf("a.test").certificate.path
            let script = "openssl x509 -in '\(file)' -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64"
            let result = try await Command.runDetached(URL(fileURLWithPath: "/bin/sh"), ["-c", script])
            #expect(result.status == 0)
            let expected = "sha256//" + result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try fixture.leafCertificate("a.test").publicKeyPin.description == expected)
        }

        @Test("the leaf's SPKI pin matches")
        func leafPublicKeyPinMatches() async throws {
            let pin = try fixture.leafCertificate("a.test").publicKeyPin
            let response = try await client(.publicKeyPins([pin], anchors: fixture.freshAnchors())).execute(HTTPRequest(url: fixture.url("a.test")))
            #expect(response.status == 200)
            #expect(response.text == "vhost=a.test\n")
        }

        @Test("README.md's example: a pin parsed from curl's form, on a private CA given as anchors")
        func readmePinExample() async throws {
            let text = try fixture.leafCertificate("a.test").publicKeyPin.description
            // As README.md writes it, with this suite's pin and CA file.
            let pin = try CertificatePin(parsing: text)
            let ca = try Certificate.certificates(contentsOf: fixture.servers.caCertificate)
            let trust = TrustPolicy.publicKeyPins([pin], hosts: ["a.test"], anchors: .only(ca + [ca[0]]))
            let response = try await client(trust).execute(HTTPRequest(url: fixture.url("a.test")))
            #expect(response.text == "vhost=a.test\n")
            #expect(throws: TrustError.self) { try CertificatePin(parsing: "sha256//not base64!") }
        }

        @Test("a pin of the root CA matches: any certificate of the verified chain counts")
        func caPublicKeyPinMatches() async throws {
            let response = try await client(.publicKeyPins([fixture.testCA[0].publicKeyPin], anchors: fixture.freshAnchors()))
                .execute(HTTPRequest(url: fixture.url("b.test")))
            #expect(response.status == 200)
        }

        @Test("a whole-certificate pin matches the leaf")
        func certificatePinMatches() async throws {
            let leaf = try fixture.leafCertificate("a.test")
            let response = try await client(.pinnedCertificates([leaf], anchors: fixture.freshAnchors())).execute(HTTPRequest(url: fixture.url("a.test")))
            #expect(response.status == 200)
        }

        @Test("a mismatch fails with pinMismatch (curl 90) listing the presented pins and subjects")
        func mismatchFailsListingPresentedPins() async throws {
            let events = TrustEventLog()
            let wrong = fixture.otherCA[0].publicKeyPin
            let error = try await #require(throws: HTTPClientError.self) {
                try await client(.publicKeyPins([wrong], anchors: fixture.freshAnchors()), events: events).execute(HTTPRequest(url: fixture.url("a.test")))
            }
            #expect(error.kind == .pinMismatch)
            #expect(error.curlExitStatus == 90)
            let leafPin = try fixture.leafCertificate("a.test").publicKeyPin
            #expect(error.message.contains(leafPin.description))
            #expect(error.message.contains("CN=a.test"))
            #expect(error.message.contains("CN=httpdns Test Root CA"))
            let report = try #require(error.pinReport)
            #expect(report.host == "a.test")
            #expect(report.enforced)
            #expect(report.presentedChain.map(\.publicKeyPin) == [leafPin, fixture.testCA[0].publicKeyPin])
            #expect(report.remoteAddress != nil)
            #expect(events.pinReports.count == 1)
        }

        @Test("with a backup pin, the set is accepted and the current pin matches")
        func backupPinAccepted() async throws {
            var set = PinSet(pins: [try fixture.leafCertificate("a.test").publicKeyPin, fixture.otherCA[0].publicKeyPin])
            set.requiresBackupPin = true
            let trust = TrustPolicy(anchors: fixture.freshAnchors(), pinSets: [set])
            let response = try await client(trust).execute(HTTPRequest(url: fixture.url("a.test")))
            #expect(response.status == 200)
        }

        @Test("requiring a backup pin with one pin fails before any connection")
        func missingBackupPinIsAConfigurationError() async throws {
            var set = PinSet(pins: [try fixture.leafCertificate("a.test").publicKeyPin])
            set.requiresBackupPin = true
            let error = try await #require(throws: HTTPClientError.self) {
                try await client(TrustPolicy(anchors: fixture.freshAnchors(), pinSets: [set])).execute(HTTPRequest(url: fixture.url("a.test")))
            }
            #expect(error.kind == .trustConfigurationInvalid)
            #expect(error.message.contains("backup pin"))
        }

        @Test("an expired pin set is not enforced")
        func expiredPinSetIsNotEnforced() async throws {
            let set = PinSet(pins: [fixture.otherCA[0].publicKeyPin], expires: Date(timeIntervalSinceNow: -60))
            let response = try await client(TrustPolicy(anchors: fixture.freshAnchors(), pinSets: [set])).execute(HTTPRequest(url: fixture.url("a.test")))
            #expect(response.status == 200)
            #expect(response.connection.pinReport == nil)
        }

        @Test("a report-only mismatch lets the request through and reports it")
        func reportOnlyMismatchIsReported() async throws {
            let events = TrustEventLog()
            let set = PinSet(pins: [fixture.otherCA[0].publicKeyPin], enforcement: .reportOnly)
            let response = try await client(TrustPolicy(anchors: fixture.freshAnchors(), pinSets: [set]), events: events)
                .execute(HTTPRequest(url: fixture.url("a.test")))
            #expect(response.status == 200)
            let report = try #require(response.connection.pinReport)
            #expect(report.enforced == false)
            #expect(report.presentedChain.first?.subject.contains("CN=a.test") == true)
            #expect(events.pinReports.map(\.host) == ["a.test"])
        }

        @Test("pin sets apply by host pattern: *.wild.test pins govern api.wild.test, not a.test")
        func pinSetsApplyByHostPattern() async throws {
            let wrong = PinSet(hosts: ["*.wild.test"], pins: [fixture.otherCA[0].publicKeyPin])
            let trust = TrustPolicy(anchors: fixture.freshAnchors(), pinSets: [wrong])
            let error = try await #require(throws: HTTPClientError.self) {
                try await client(trust).execute(HTTPRequest(url: fixture.url("api.wild.test")))
            }
            #expect(error.kind == .pinMismatch)
            let other = try await client(trust).execute(HTTPRequest(url: fixture.url("a.test")))
            #expect(other.status == 200)
        }

        @Test("the most specific pin set wins: an exact host over **.wild.test")
        func mostSpecificPinSetWins() async throws {
            let wrongForAll = PinSet(hosts: ["**.wild.test"], pins: [fixture.otherCA[0].publicKeyPin])
            let rightForOne = PinSet(hosts: ["api.wild.test"], pins: [try fixture.leafCertificate("wild.test").publicKeyPin])
            let trust = TrustPolicy(anchors: fixture.freshAnchors(), pinSets: [wrongForAll, rightForOne])
            #expect(try await client(trust).execute(HTTPRequest(url: fixture.url("api.wild.test"))).status == 200)
            await #expect(throws: HTTPClientError.self) {
                try await client(trust).execute(HTTPRequest(url: fixture.url("www.wild.test")))
            }
        }

        @Test("a pinned request after an unpinned one to the same host and address opens a new, checked connection")
        func pinnedRequestAfterUnpinnedOnWarmPoolFails() async throws {
            let anchors = fixture.freshAnchors()
            let client = try client(TrustPolicy(anchors: anchors))
            var request = HTTPRequest(url: fixture.url("a.test"))
            request.connectTo = [IPAddress("127.0.0.1")!]
            let warm = try await client.execute(request)
            #expect(warm.status == 200)
            let reused = try await client.execute(request)
            #expect(reused.connection.reusedConnection, "the pool is warm")

            request.trust = TrustPolicy(anchors: anchors, pinSets: [PinSet(pins: [fixture.otherCA[0].publicKeyPin])])
            let error = try await #require(throws: HTTPClientError.self) { try await client.execute(request) }
            #expect(error.kind == .pinMismatch)

            // A matching pin is checked on a connection of its own, never the warm one.
            request.trust = TrustPolicy(anchors: anchors, pinSets: [PinSet(pins: [try fixture.leafCertificate("a.test").publicKeyPin])])
            let pinned = try await client.execute(request)
            #expect(pinned.status == 200)
            #expect(pinned.connection.reusedConnection == false)

            // And the unpinned pool still works, on its warm connection.
            request.trust = nil
            #expect(try await client.execute(request).connection.reusedConnection)
        }

        @Test("a certificate for another name is rejected even when its pin matches")
        func wrongNameRejectedDespiteMatchingPin() async throws {
            let presented = try fixture.leafCertificate("other.test")
            for trust in [
                TrustPolicy.publicKeyPins([presented.publicKeyPin], anchors: fixture.freshAnchors()),
                .pinsAsAnchors([presented.publicKeyPin]), .pinsAsAnchors([presented.certificatePin])
            ] {
                let error = try await #require(throws: HTTPClientError.self) {
                    try await client(trust).execute(HTTPRequest(url: fixture.url("wrong.test")))
                }
                #expect(error.kind == .certificateVerificationFailed)
                #expect(error.curlExitStatus == 60)
            }
        }
    }

}

extension TrustSuites.PinningTests {
    @Test("a mismatch is POSTed as JSON to the pin set's report URL, once per interval")
    func reportIsPostedOnceWithinTheInterval() async throws {
        let path = "/pin-report-\(UUID().uuidString)"
        // Only a.test is pinned, so the report's own POST to b.test is not reported in turn.
        var set = PinSet(hosts: ["a.test"], pins: [fixture.otherCA[0].publicKeyPin], enforcement: .reportOnly)
        set.reportURL = fixture.url("b.test", path)
        let client = try client(TrustPolicy(anchors: fixture.freshAnchors(), pinSets: [set]))
        for _ in 0..<2 {
            #expect(try await client.execute(HTTPRequest(url: fixture.url("a.test"))).status == 200)
        }
        // The upload runs in the background: wait for nginx to log it (bounded), then check that
        // the second, identical report was not sent.
        func posts() throws -> Int {
            let log = try String(contentsOf: fixture.servers.nginxAccessLog, encoding: .utf8)
            return log.split(separator: "\n").filter { $0.contains("\"POST \(path) ") }.count
        }
        let deadline = ContinuousClock.now + .seconds(TestTimeScale.scaled(10))
        while try posts() == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(try posts() == 1)
    }
}
