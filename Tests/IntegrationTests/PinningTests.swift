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

extension TrustSuites.PinningTests {
    /// The JSON body of `report`, as an object.
    func reportObject(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Checks an RFC 7469 §3 report of a mismatch on a.test, field by field, against the PKI
    /// files: served chain as nginx sends it, validated chain leaf to the test root, as PEM.
    func expectRFC7469Report(_ object: [String: Any], pinSet: PinSet, verified: Bool) throws {
        let leaf = try fixture.leafCertificate("a.test")
        let served = try Certificate.certificates(contentsOf: fixture.servers.leaf("a.test").certificate)
        #expect(object["hostname"] as? String == "a.test")
        #expect(object["port"] as? Int == fixture.servers.httpsPort)
        #expect(object["noted-hostname"] as? String == "a.test")
        #expect(object["include-subdomains"] as? Bool == false)
        #expect(object["effective-expiration-date"] is NSNull)
        let date = try #require(object["date-time"] as? String)
        let parsed = try #require(ISO8601DateFormatter().date(from: date), "RFC 3339: \(date)")
        #expect(abs(parsed.timeIntervalSinceNow) < 600)
        // PEM strings that read back to the very certificates.
        let servedPEM = try #require(object["served-certificate-chain"] as? [String])
        #expect(servedPEM.allSatisfy { $0.hasPrefix("-----BEGIN CERTIFICATE-----\n") && $0.hasSuffix("-----END CERTIFICATE-----\n") })
        #expect(try servedPEM.map { try Certificate.certificates(pem: Data($0.utf8)) } == served.map { [$0] })
        let validatedPEM = try #require(object["validated-certificate-chain"] as? [String])
        if verified {
            #expect(try validatedPEM.map { try Certificate.certificates(pem: Data($0.utf8)) } == [[leaf], [fixture.testCA[0]]])
        } else {
            #expect(validatedPEM.isEmpty)
        }
        #expect(object["known-pins"] as? [String] == pinSet.pins.map { "pin-sha256=\"\($0.sha256.base64EncodedString())\"" }.sorted())
        #expect(object["verification"] as? String == (verified ? "verified" : "disabled"))
        #expect(object["enforced"] as? Bool == false)
        #expect(object["remote-address"] as? String == "127.0.0.1")
    }

    /// A request to a.test (at 127.0.0.1) under a report-only pin set that does not match, and the
    /// report it raised.
    func reportOnlyMismatchOnA(_ verification: TrustPolicy.Verification) async throws -> (PinSet, PinReport) {
        let events = TrustEventLog()
        let set = PinSet(hosts: ["a.test"], pins: [fixture.otherCA[0].publicKeyPin], enforcement: .reportOnly)
        var request = HTTPRequest(url: fixture.url("a.test"))
        request.connectTo = [IPAddress("127.0.0.1")!]
        let trust = TrustPolicy(anchors: fixture.freshAnchors(), verification: verification, pinSets: [set])
        #expect(try await client(trust, events: events).execute(request).status == 200)
        return (set, try #require(events.pinReports.first))
    }

    @Test("a pin report has RFC 7469 §3's fields: PEM served and validated chains, noted host name, pin-sha256 directives")
    func reportHasRFC7469Shape() async throws {
        let (set, report) = try await reportOnlyMismatchOnA(.full)
        #expect(report.validatedChain == [try fixture.leafCertificate("a.test"), fixture.testCA[0]])
        #expect(!report.verificationDisabled)
        try expectRFC7469Report(try reportObject(report.jsonBody()), pinSet: set, verified: true)
    }

    @Test("without verification a pin report has no validated chain and says verification was disabled")
    func insecureReportHasNoValidatedChain() async throws {
        let (set, report) = try await reportOnlyMismatchOnA(.insecureSkippingAllVerification)
        #expect(report.validatedChain.isEmpty)
        #expect(report.verificationDisabled)
        #expect(report.servedChain == (try Certificate.certificates(contentsOf: fixture.servers.leaf("a.test").certificate)))
        try expectRFC7469Report(try reportObject(report.jsonBody()), pinSet: set, verified: false)
    }

    @Test("the report POSTed to the collector is RFC 7469 §3's JSON, field by field")
    func postedReportHasRFC7469Shape() async throws {
        let path = "/collect/pin-report-\(UUID().uuidString)"
        var set = PinSet(hosts: ["a.test"], pins: [fixture.otherCA[0].publicKeyPin], enforcement: .reportOnly)
        set.reportURL = fixture.url("b.test", path)
        var request = HTTPRequest(url: fixture.url("a.test"))
        request.connectTo = [IPAddress("127.0.0.1")!]
        #expect(try await client(TrustPolicy(anchors: fixture.freshAnchors(), pinSets: [set])).execute(request).status == 200)
        // The upload runs in the background: wait (bounded) for nginx to log its body.
        func posted() throws -> String? {
            let log = (try? String(contentsOf: fixture.servers.nginxBodyLog, encoding: .utf8)) ?? ""
            return log.split(separator: "\n").first { $0.hasPrefix("\(path) ") }.map { String($0.dropFirst(path.count + 1)) }
        }
        let deadline = ContinuousClock.now + .seconds(TestTimeScale.scaled(10))
        while try posted() == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        let body = try #require(try posted(), "no report reached \(path)")
        try expectRFC7469Report(try reportObject(Data(body.utf8)), pinSet: set, verified: true)
    }
}
