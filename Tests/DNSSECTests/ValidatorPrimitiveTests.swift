import Foundation
import Testing
@testable import DNSSEC
import DNSWire
import TestSupport

/// The validator's building blocks: DS digests against RFC vectors and the real root anchor,
/// serial-number arithmetic on validity windows, ECDSA signature conversion, trust anchors.
@Suite struct ValidatorPrimitiveTests {
    static let validator = DNSSECValidator(clock: FixedDNSSECClock(0))

    /// RFC 4509 §2.3: the RFC 4034 §5.4 key `dskey.example.com.` with its SHA-256 DS.
    static let rfc4509Key = DNSKEY(
        flags: 256, algorithm: .rsaSHA1,
        publicKey: [UInt8](
            Data(
                base64Encoded: "AQOeiiR0GOMYkDshWoSKz9XzfwJr1AYtsmx3TGkJaNXVbfi/2pHm822aJ5iI9BMzNXxeYCmZDRD99WYwYqUSdjMmmAphXdvx"
                    + "egXd/M5+X7OrzKBaMbCVdFLUUh6DhweJBjEVv5f2wwjM9XzcnOf+EPbtG9DMBmADjFDc2w/rljwvFw==")!))
    static let rfc4509DS = DS(
        keyTag: 60485, algorithm: .rsaSHA1, digestType: .sha256,
        digest: OpenSSLTool.bytes(hex: "D4B7D520E7BB5F0F67674A0CCEB1E3E0614B93C4F9E99B8383F6A1E4469DA50A"))

    @Test func signatureTimesAreShownInTheirPresentationFormAndReasonsSayDNSSECOnce() {
        // RFC 4034 §3.2's own example: 20030220173103 is 1045762263.
        #expect(DNSSECValidationError.time(1_045_762_263) == "20030220173103")
        // Serial number arithmetic (§3.1.5): after 2106 the 32-bit value has wrapped.
        #expect(DNSSECValidationError.time(UInt32(truncatingIfNeeded: Int64(4_294_967_296 + 100)), near: 4_294_967_296) == "21060207062956")
        let expired = DNSSECValidationError.signatureExpired(owner: "www.test", type: .a, expiration: 1_045_762_263, now: 1_045_762_264)
        #expect(expired.reason == "the RRSIG over www.test A expired at 20030220173103 (now 20030220173104): the zone must be re-signed, or the clock is wrong")
        #expect(expired.description == "DNSSEC: " + expired.reason)
        let anchor = DNSSECValidationError.invalidTrustAnchor(source: "root.key", reason: "no DS or DNSKEY line")
        #expect(anchor.description == "DNSSEC trust anchor root.key: no DS or DNSKEY line")
    }

    @Test func dsOfTheRFC4509ExampleMatchesItsKey() throws {
        #expect(try Self.validator.matches(Self.rfc4509DS, key: Self.rfc4509Key, owner: "dskey.example.com."))
    }

    @Test func dsWithOneDigestOctetChangedDoesNotMatch() throws {
        var ds = Self.rfc4509DS
        ds.digest[5] ^= 0x01
        #expect(try !Self.validator.matches(ds, key: Self.rfc4509Key, owner: "dskey.example.com"))
        #expect(try !Self.validator.matches(Self.rfc4509DS, key: Self.rfc4509Key, owner: "other.example.com"))
    }

    @Test func sha1DSIsAnUnsupportedDigestTypeNotBogus() {
        let ds = DS(keyTag: 60485, algorithm: .rsaSHA1, digestType: .sha1, digest: OpenSSLTool.bytes(hex: "2BB183AF5F22588179A53B0A98631FAD1A292118"))
        #expect(throws: DNSSECValidationError.unsupportedDigestType(.sha1, zone: "dskey.example.com")) {
            try Self.validator.matches(ds, key: Self.rfc4509Key, owner: "dskey.example.com")
        }
        #expect(!DNSSECValidationError.unsupportedDigestType(.sha1, zone: "x").isBogus)
        #expect(DNSSECValidationError.dsMismatch(zone: "x", keyTags: []).isBogus)
    }

    @Test func debianRootAnchorsAreTheRootKSKs() throws {
        let anchors = try TrustAnchor.root()
        #expect(anchors.allSatisfy { $0.zone.isEmpty })
        #expect(anchors.map(\.keyTag).contains(20326))
        guard case .ds(let ds) = try #require(anchors.first { $0.keyTag == 20326 }).key else {
            Issue.record("root.ds holds DS records")
            return
        }
        #expect(ds.algorithm == .rsaSHA256 && ds.digestType == .sha256)
    }

    @Test func trustAnchorsWithWindowsLineEndsParseAsWithLF() throws {
        let text = try String(contentsOfFile: TrustAnchor.debianRootKey, encoding: .utf8)
        let crlf = text.replacingOccurrences(of: "\n", with: "\r\n")
        #expect(try TrustAnchor.parse(crlf, source: "root.key").map(\.keyTag) == (try TrustAnchor.parse(text, source: "root.key")).map(\.keyTag))
    }

    @Test func rootKSKFromRootKeyMatchesTheRootDS() throws {
        let keys = try TrustAnchor.parse(String(contentsOfFile: TrustAnchor.debianRootKey, encoding: .utf8), source: TrustAnchor.debianRootKey)
        let dsAnchors = try TrustAnchor.root()
        guard case .dnskey(let ksk) = try #require(keys.first { $0.keyTag == 20326 }).key,
            case .ds(let ds) = try #require(dsAnchors.first { $0.keyTag == 20326 }).key
        else {
            Issue.record("root.key holds DNSKEYs and root.ds DS records")
            return
        }
        #expect(ksk.isSecureEntryPoint && ksk.isZoneKey)
        #expect(try Self.validator.matches(ds, key: ksk, owner: "."))
    }

    @Test func rootAnchorsFromAMissingDirectoryNameBothFiles() {
        #expect(throws: DNSSECValidationError.self) { try TrustAnchor.root(directory: "/nonexistent") }
        do {
            _ = try TrustAnchor.root(directory: "/nonexistent")
        } catch {
            #expect(error.description.contains("/nonexistent/root.ds or /nonexistent/root.key"))
        }
    }

    @Test func trustAnchorTextAcceptsTTLClassCommentsAndParentheses() throws {
        let text = """
            ; a comment
            $TTL 3600
            Example.COM. 3600 IN DS 60485 5 2 ( D4B7D520E7BB5F0F67674A0C
                CEB1E3E0614B93C4F9E99B8383F6A1E4469DA50A ) ; key id
            example.com. IN 60 DNSKEY 257 3 13 AQID
            example.com. A 192.0.2.1
            """
        let anchors = try TrustAnchor.parse(text, source: "test")
        #expect(anchors.count == 2)
        #expect(anchors[0] == TrustAnchor(zone: "example.com", key: .ds(DS(keyTag: 60485, algorithm: .rsaSHA1, digestType: .sha256, digest: Self.rfc4509DS.digest))))
        #expect(anchors[1].key == .dnskey(DNSKEY(flags: 257, algorithm: .ecdsaP256SHA256, publicKey: [1, 2, 3])))
    }

    @Test func trustAnchorWithARelativeOwnerOrBadDigestNamesTheLine() {
        #expect(throws: DNSSECValidationError.invalidTrustAnchor(source: "t", reason: "line 2: the owner name must be absolute (end in a dot)")) {
            try TrustAnchor.parse("\nexample DS 1 8 2 AA", source: "t")
        }
        #expect(throws: DNSSECValidationError.invalidTrustAnchor(source: "t", reason: "line 1: a DS needs key tag, algorithm, digest type and a hex digest")) {
            try TrustAnchor.parse("example. DS 1 8 2 XYZ", source: "t")
        }
    }

    @Test func validityWindowUsesSerialNumberArithmetic() {
        var window = SignatureValidity(RRSIG(typeCovered: .a, algorithm: .ed25519, labels: 1, originalTTL: 1, expiration: 2000, inception: 1000, keyTag: 1, signerName: "", signature: []))
        #expect(window.position(at: 1000) == .valid)
        #expect(window.position(at: 2000) == .valid)
        #expect(window.position(at: 999) == .notYetValid)
        #expect(window.position(at: 2001) == .expired)
        // A window across the 2106 wrap of 32-bit time: 2^32 - 10 ... 10 (mod 2^32).
        window = SignatureValidity(RRSIG(typeCovered: .a, algorithm: .ed25519, labels: 1, originalTTL: 1, expiration: 10, inception: UInt32.max - 9, keyTag: 1, signerName: "", signature: []))
        #expect(window.position(at: (1 << 32) + 5) == .valid)
        #expect(window.position(at: (1 << 32) - 5) == .valid)
        #expect(window.position(at: (1 << 32) + 11) == .expired)
    }

    @Test func ecdsaSignatureBecomesDERWithMinimalIntegers() {
        let r = [UInt8](repeating: 0, count: 31) + [0x01]
        let s = [0x80] + [UInt8](repeating: 0x11, count: 31)
        let der = DNSSECAlgorithmSuite.derSignature(r: r[...], s: s[...])
        #expect(der == [0x30, 3 + 35, 0x02, 1, 0x01, 0x02, 33, 0x00] + s)
    }

    @Test func ecdsaSignatureOfTheWrongLengthIsRefused() throws {
        let suite = try #require(DNSSECAlgorithmSuite(.ecdsaP256SHA256))
        #expect(suite.opensslSignature([UInt8](repeating: 1, count: 63)) == nil)
        #expect(DNSSECAlgorithmSuite(.rsaSHA1) == nil)
        #expect(DNSSECAlgorithmSuite(.ed448) == nil)
    }

    @Test func rsaKeyWithATwoOctetExponentLengthIsRead() throws {
        let key = [0, 0, 3, 1, 0, 1] + [UInt8](repeating: 0xC1, count: 64)
        let parts = try #require(DNSSECPublicKey.rsaComponents(key))
        #expect(parts.exponent == [1, 0, 1])
        #expect(parts.modulus.count == 64)
        #expect(DNSSECPublicKey.rsaComponents([3, 1, 0, 1]) == nil)
    }

    @Test func keyOfTheWrongLengthIsAnInvalidKey() {
        let key = DNSKEY(flags: 256, algorithm: .ed25519, publicKey: [1, 2, 3])
        #expect(throws: DNSSECValidationError.invalidKey(keyTag: key.keyTag, algorithm: .ed25519, reason: "an Ed25519 key is 32 octets, not 3")) {
            _ = try DNSSECPublicKey(key, zone: "test")
        }
        let point = DNSKEY(flags: 256, algorithm: .ecdsaP256SHA256, publicKey: [UInt8](repeating: 7, count: 64))
        #expect(throws: DNSSECValidationError.self) { _ = try DNSSECPublicKey(point, zone: "test") }
    }
}
