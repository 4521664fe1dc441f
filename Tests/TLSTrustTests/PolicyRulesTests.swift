import Foundation
import HTTPDNSCore
import Testing
import TLSTrust

/// Pins, host patterns, pin sets and the policy manager, without a network.
@Suite("Trust policy rules")
struct PolicyRulesTests {
    static let digest = Data((0..<32).map { UInt8($0) })

    @Test("sha256//BASE64 parses to a public-key pin and prints back the same")
    func publicKeyPinRoundTrip() throws {
        let text = "sha256//" + Self.digest.base64EncodedString()
        let pin = try CertificatePin(parsing: text)
        #expect(pin == .publicKey(sha256: Self.digest))
        #expect(pin.description == text)
    }

    @Test("certificate pins parse from hex with or without colons, any case")
    func certificatePinFromHex() throws {
        let hex = Self.digest.map { String(format: "%02X", $0) }.joined(separator: ":")
        #expect(try CertificatePin.certificate(hex: hex) == .certificate(sha256: Self.digest))
        #expect(try CertificatePin.certificate(hex: hex.lowercased().replacingOccurrences(of: ":", with: "")) == .certificate(sha256: Self.digest))
    }

    @Test("curl's ';'-separated list parses every pin", arguments: ["sha256//A;sha256//B", " sha256//A ; sha256//B ;"])
    func pinList(separator: String) throws {
        let a = Data(repeating: 1, count: 32).base64EncodedString(), b = Data(repeating: 2, count: 32).base64EncodedString()
        let text = separator.replacingOccurrences(of: "//A", with: "//" + a).replacingOccurrences(of: "//B", with: "//" + b)
        #expect(try CertificatePin.list(parsing: text).count == 2)
    }

    @Test("malformed pins are rejected", arguments: ["sha256//", "sha256//AAAA", "md5//" + Data(count: 32).base64EncodedString(), "", "sha1//x"])
    func malformedPins(text: String) {
        #expect(throws: TrustError.self) { try CertificatePin.list(parsing: text) }
    }

    @Test("host patterns: exact, one label, any depth including the apex")
    func hostPatterns() throws {
        let exact = try HostPattern(parsing: "Example.COM.")
        #expect(exact.matches("example.com") && exact.matches("EXAMPLE.com.") && !exact.matches("a.example.com"))
        let one = try HostPattern(parsing: "*.example.com")
        #expect(one.matches("api.example.com") && !one.matches("example.com") && !one.matches("a.b.example.com"))
        #expect(!one.matches("badexample.com"))
        let any = try HostPattern(parsing: "**.example.com")
        #expect(any.matches("example.com") && any.matches("a.example.com") && any.matches("a.b.example.com"))
        #expect(!any.matches("notexample.com"))
    }

    @Test("wildcards are only allowed as the whole first label", arguments: ["a*.example.com", "example.*.com", "*", "**.", "***.example.com"])
    func badPatterns(text: String) {
        #expect(throws: InvalidHostPatternError.self) { try HostPattern(parsing: text) }
    }

    @Test("the most specific pin set governs a host; expired sets do not apply")
    func pinSetSelection() {
        let now = Date(timeIntervalSince1970: 1_000_000)
        let everyHost = PinSet(pins: [.publicKey(sha256: Data(repeating: 1, count: 32))])
        let wild = PinSet(hosts: ["**.example.com"], pins: [.publicKey(sha256: Data(repeating: 2, count: 32))])
        let exact = PinSet(
            hosts: ["api.example.com"], pins: [.publicKey(sha256: Data(repeating: 3, count: 32))],
            expires: now.addingTimeInterval(60))
        let policy = TrustPolicy(anchors: .system, pinSets: [everyHost, wild, exact])
        #expect(policy.pinSet(for: "api.example.com", at: now) == exact)
        #expect(policy.pinSet(for: "api.example.com", at: now.addingTimeInterval(61)) == wild)
        #expect(policy.pinSet(for: "www.example.com", at: now) == wild)
        #expect(policy.pinSet(for: "other.test", at: now) == everyHost)
    }

    @Test("validate: a backup pin is required when asked, pins-as-anchors needs pins, sets need pins")
    func validation() throws {
        var set = PinSet(pins: [.publicKey(sha256: Self.digest)], requiresBackupPin: true)
        #expect(throws: TrustError.self) { try TrustPolicy(anchors: .system, pinSets: [set]).validate() }
        set.pins.insert(.publicKey(sha256: Data(repeating: 9, count: 32)))
        try TrustPolicy(anchors: .system, pinSets: [set]).validate()
        #expect(throws: TrustError.self) { try TrustPolicy(anchors: .only([]), pinnedCertificatesAreAnchors: true).validate() }
        #expect(throws: TrustError.self) { try TrustPolicy(anchors: .system, pinSets: [PinSet(pins: [])]).validate() }
    }

    @Test("the manager picks the most specific pattern, else the default, or fails when a match is required")
    func manager() throws {
        let pinned = TrustPolicy.publicKeyPins([.publicKey(sha256: Self.digest)])
        let privateCA = TrustPolicy(anchors: .only([]))
        let manager = TrustPolicyManager(policies: ["api.example.com": pinned, "**.example.com": privateCA], default: .system)
        #expect(try manager.policy(for: "api.example.com") == pinned)
        #expect(try manager.policy(for: "example.com") == privateCA)
        #expect(try manager.policy(for: "other.test") == .system)
        let strict = TrustPolicyManager(policies: ["a.test": .system], requiresMatch: true)
        #expect(throws: TrustError.noPolicy(host: "b.test")) { try strict.policy(for: "b.test") }
    }

    @Test("policies that differ in any trust setting are different pool keys")
    func policiesAreDistinctKeys() {
        let base = TrustPolicy.system
        let variants: [TrustPolicy] = [
            base, .publicKeyPins([.publicKey(sha256: Self.digest)]), .insecureSkippingAllVerification,
            base.requiringOCSPStapling(), .pinsAsAnchors([.publicKey(sha256: Self.digest)])
        ]
        #expect(Set(variants).count == variants.count)
    }
}

extension PolicyRulesTests {
    @Test("the pin report's JSON has RFC 7469 §3's fields, in its shapes")
    func reportJSON() throws {
        let other = Data(repeating: 0xAB, count: 32)
        let set = PinSet(
            hosts: ["**.example.com", "other.test"], pins: [.publicKey(sha256: Self.digest), .certificate(sha256: other)],
            expires: Date(timeIntervalSince1970: 86_400), enforcement: .reportOnly)
        let report = PinReport(
            host: "api.example.com", port: 443, remoteAddress: "192.0.2.1", servedChain: [], validatedChain: [], pinSet: set,
            enforced: false, date: Date(timeIntervalSince1970: 0))
        let object = try #require(try JSONSerialization.jsonObject(with: report.jsonBody()) as? [String: Any])
        #expect(object["date-time"] as? String == "1970-01-01T00:00:00Z")
        #expect(object["hostname"] as? String == "api.example.com")
        #expect(object["port"] as? Int == 443)
        #expect(object["effective-expiration-date"] as? String == "1970-01-02T00:00:00Z")
        // The pattern that applied: **.example.com, so example.com with its subdomains.
        #expect(object["noted-hostname"] as? String == "example.com")
        #expect(object["include-subdomains"] as? Bool == true)
        #expect(object["served-certificate-chain"] as? [String] == [])
        #expect(object["validated-certificate-chain"] as? [String] == [])
        // RFC 7469 §2.1 directives, not curl's sha256// form.
        #expect(
            object["known-pins"] as? [String] == ["cert-sha256=\"\(other.base64EncodedString())\"", "pin-sha256=\"\(Self.digest.base64EncodedString())\""])
        #expect(object["verification"] as? String == "verified")
        #expect(object["enforced"] as? Bool == false)
        #expect(object["remote-address"] as? String == "192.0.2.1")
    }

    @Test("a pin report names the exact pattern that applied, and says when verification was disabled")
    func reportJSONExactPatternAndDisabledVerification() throws {
        let set = PinSet(hosts: ["**.test", "a.test"], pins: [.publicKey(sha256: Self.digest)])
        let report = PinReport(
            host: "a.test", port: 8443, remoteAddress: nil, servedChain: [], validatedChain: [], verificationDisabled: true,
            pinSet: set, enforced: true, date: Date(timeIntervalSince1970: 0))
        let object = try #require(try JSONSerialization.jsonObject(with: report.jsonBody()) as? [String: Any])
        #expect(object["noted-hostname"] as? String == "a.test")
        #expect(object["include-subdomains"] as? Bool == false)
        #expect(object["effective-expiration-date"] is NSNull)
        #expect(object["verification"] as? String == "disabled")
        #expect(object["validated-certificate-chain"] as? [String] == [])
        #expect(object["remote-address"] is NSNull)
        // A set for every host: the host itself was noted, without subdomains.
        let everyHost = PinReport(
            host: "b.test", port: 443, remoteAddress: nil, servedChain: [], validatedChain: [], pinSet: PinSet(pins: [.publicKey(sha256: Self.digest)]),
            enforced: true, date: Date(timeIntervalSince1970: 0))
        let everyObject = try #require(try JSONSerialization.jsonObject(with: everyHost.jsonBody()) as? [String: Any])
        #expect(everyObject["noted-hostname"] as? String == "b.test")
        #expect(everyObject["include-subdomains"] as? Bool == false)
    }

    @Test("a pin prints as an RFC 7469 directive")
    func pinDirective() {
        #expect(CertificatePin.publicKey(sha256: Self.digest).directive == "pin-sha256=\"\(Self.digest.base64EncodedString())\"")
        #expect(CertificatePin.certificate(sha256: Self.digest).directive == "cert-sha256=\"\(Self.digest.base64EncodedString())\"")
    }

    @Test("the pin report's message shows each expected pin as written (PinSet.spellings), with its normalized form when that differs")
    func reportMessageShowsPinsAsWritten() throws {
        let hex = "sha256//" + Self.digest.map { String(format: "%02X", $0) }.joined()
        let written = try CertificatePin.writtenList(parsing: " \(hex) ;cert-sha256//" + Self.digest.base64EncodedString())
        #expect(written.map(\.text) == [hex, "cert-sha256//" + Self.digest.base64EncodedString()])
        let keyPin = CertificatePin.publicKey(sha256: Data(repeating: 1, count: 32))
        var spellings = Dictionary(uniqueKeysWithValues: written.map { ($0.pin, $0.text) })
        spellings[keyPin] = keyPin.description
        let set = PinSet(pins: Set(written.map(\.pin) + [keyPin]), spellings: spellings)
        let report = PinReport(
            host: "api.example.com", port: 443, remoteAddress: nil, servedChain: [], validatedChain: [], pinSet: set, enforced: true,
            date: Date(timeIntervalSince1970: 0))
        let certificateHex = Self.digest.map { String(format: "%02x", $0) }.joined()
        let expected = [
            "\(hex) (sha256//\(Self.digest.base64EncodedString()))",
            "cert-sha256//\(Self.digest.base64EncodedString()) (cert-sha256//\(certificateHex))",
            keyPin.description
        ].sorted().joined(separator: "; ")
        #expect(report.description.hasPrefix("certificate pinning failed for api.example.com:443: no certificate of the chain matches \(expected)\n"), "\(report)")
        // Without spellings, the normalized forms.
        let plain = PinReport(
            host: "api.example.com", port: 443, remoteAddress: nil, servedChain: [], validatedChain: [], pinSet: PinSet(pins: [keyPin]), enforced: true,
            date: Date(timeIntervalSince1970: 0))
        #expect(plain.description.contains("matches \(keyPin.description)\n"), "\(plain)")
    }

    @Test("the pin report's message brackets an IPv6 host before its port; a name stays as it is")
    func reportMessageBracketsIPv6() {
        let set = PinSet(pins: [.publicKey(sha256: Self.digest)])
        let literal = PinReport(
            host: "2001:db8::1", port: 8443, remoteAddress: "2001:db8::1", servedChain: [], validatedChain: [], pinSet: set,
            enforced: true, date: Date(timeIntervalSince1970: 0))
        #expect(literal.description.hasPrefix("certificate pinning failed for [2001:db8::1]:8443 (2001:db8::1): "), "\(literal)")
        let name = PinReport(
            host: "api.example.com", port: 443, remoteAddress: "192.0.2.1", servedChain: [], validatedChain: [], pinSet: set,
            enforced: true, date: Date(timeIntervalSince1970: 0))
        #expect(name.description.hasPrefix("certificate pinning failed for api.example.com:443 (192.0.2.1): "), "\(name)")
    }
}
