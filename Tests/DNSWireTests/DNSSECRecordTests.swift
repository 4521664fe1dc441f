import Testing
import DNSWire
import HTTPDNSCore

/// DNSKEY, RRSIG, DS, NSEC, NSEC3 and NSEC3PARAM RDATA (RFC 4034 §2-5, RFC 5155 §3-4): RFC vectors,
/// round trips and malformed input.
@Suite struct DNSSECRecordTests {
    @Test func keyTagOfTheRFC4034DSExampleKeyIs60485() {
        #expect(DNSSECFixtures.dskey.keyTag == 60485)
    }

    @Test func keyTagOfTheRFC4034ExampleComKeyIs2642() {
        #expect(DNSSECFixtures.exampleComKey.keyTag == 2642)
    }

    @Test func keyTagOfAnRSAMD5KeyIsTheModulusThirdAndSecondToLastOctets() {
        let key = DNSKEY(flags: 256, algorithm: .rsaMD5, publicKey: [0x01, 0x03, 0xAB, 0xCD, 0xEF, 0x12, 0x34])
        #expect(key.keyTag == 0xEF12)
    }

    @Test func dnskeyFlagsReadZoneKeySecureEntryPointAndRevoke() throws {
        let ksk = try DNSKEY(rdata: [0x01, 0x01, 3, 13, 0xAA])
        #expect(ksk.isZoneKey && ksk.isSecureEntryPoint && !ksk.isRevoked)
        #expect(ksk.algorithm == .ecdsaP256SHA256)
        #expect(ksk.publicKey == [0xAA])
        let revoked = DNSKEY(flags: 0x0181, algorithm: .ed25519, publicKey: [])
        #expect(revoked.isRevoked)
    }

    @Test func dnskeyRoundTripsThroughItsRData() throws {
        let key = DNSSECFixtures.dskey
        #expect(try DNSKEY(rdata: key.rdata) == key)
        #expect(Array(key.rdata.prefix(4)) == [0x01, 0x00, 0x03, 0x05])
    }

    @Test func dnskeyShorterThanItsFixedFieldsIsTruncated() {
        #expect(throws: DNSSECRecordError.truncated(type: .dnskey, field: "algorithm", offset: 3)) { try DNSKEY(rdata: [1, 0, 3]) }
    }

    @Test func dsOfTheRFC4034ExampleParsesToItsFields() throws {
        let rdata = [0xEC, 0x45, 5, 1] + DNSSECFixtures.hex("2BB183AF5F22588179A53B0A98631FAD1A292118")
        let ds = try DS(rdata: rdata)
        #expect(ds.keyTag == 60485)
        #expect(ds.algorithm == .rsaSHA1)
        #expect(ds.digestType == .sha1)
        #expect(ds.digest.count == DNSSECDigestType.sha1.digestLength)
        #expect(ds.rdata == rdata)
    }

    @Test func dsDigestInputIsTheCanonicalOwnerThenTheKeyRData() throws {
        let input = try DS.digestInput(owner: "DSKEY.Example.COM.", key: DNSSECFixtures.dskey)
        let owner: [UInt8] = [5] + Array("dskey".utf8) + [7] + Array("example".utf8) + [3] + Array("com".utf8) + [0]
        #expect(input == owner + DNSSECFixtures.dskey.rdata)
    }

    @Test func rrsigRoundTripsAndLowerCasesTheSignerName() throws {
        let signature = RRSIG(
            typeCovered: .a, algorithm: .ecdsaP256SHA256, labels: 3, originalTTL: 3600, expiration: 1_900_000_000,
            inception: 1_800_000_000, keyTag: 12345, signerName: "example.net", signature: [1, 2, 3, 4])
        let rdata = try signature.rdata()
        #expect(try RRSIG(rdata: rdata) == signature)
        #expect(rdata.count == 18 + 13 + 4)
        var upper = signature
        upper.signerName = "EXAMPLE.net"
        #expect(try upper.rdata() == rdata)
    }

    @Test func rrsigWithACompressedSignerNameIsRejected() {
        let rdata: [UInt8] = [0, 1, 13, 2] + [0, 0, 14, 16] + [0, 0, 0, 1] + [0, 0, 0, 0] + [0, 1] + [0xC0, 0x00] + [9, 9]
        #expect(throws: DNSSECRecordError.invalidName(type: .rrsig, field: "signer's name", offset: 18)) { try RRSIG(rdata: rdata) }
    }

    @Test func rrsigCutInsideItsSignerNameIsTruncated() {
        let rdata: [UInt8] = [0, 1, 13, 2] + [0, 0, 14, 16] + [0, 0, 0, 1] + [0, 0, 0, 0] + [0, 1] + [4, 0x74, 0x65]
        #expect(throws: DNSSECRecordError.truncated(type: .rrsig, field: "signer's name", offset: 18)) { try RRSIG(rdata: rdata) }
    }

    /// RFC 4034 §4.3: `alfa.example.com. NSEC host.example.com. A MX RRSIG NSEC TYPE1234`.
    static let rfc4034NSECRData: [UInt8] =
        [4] + Array("host".utf8) + [7] + Array("example".utf8) + [3] + Array("com".utf8) + [0]
        + [0x00, 0x06, 0x40, 0x01, 0x00, 0x00, 0x00, 0x03]
        + [0x04, 0x1B] + [UInt8](repeating: 0, count: 26) + [0x20]

    @Test func nsecOfTheRFC4034ExampleParsesItsNextNameAndTypes() throws {
        let nsec = try NSEC(rdata: Self.rfc4034NSECRData)
        #expect(nsec.nextName == "host.example.com")
        #expect(nsec.types.types.map(\.rawValue) == [1, 15, 46, 47, 1234])
        #expect(nsec.types.description == "A MX RRSIG NSEC TYPE1234")
        #expect(try nsec.rdata() == Self.rfc4034NSECRData)
    }

    @Test func typeBitmapEncodesTheRFC4034ExampleExactly() {
        let bitmap = DNSTypeBitmap([.nsec, DNSRecordType(rawValue: 1234), .a, .mx, .rrsig, .a])
        #expect(bitmap.encoded == Array(Self.rfc4034NSECRData[18...]))
        #expect(bitmap.contains(.mx) && !bitmap.contains(.aaaa))
    }

    @Test func emptyTypeBitmapIsNoOctets() throws {
        #expect(DNSTypeBitmap([]).encoded.isEmpty)
        #expect(try DNSTypeBitmap(parsing: [], type: .nsec).types.isEmpty)
    }

    @Test func typeBitmapWithWindowsOutOfOrderIsRejected() {
        #expect(throws: DNSSECRecordError.typeBitmap(type: .nsec, .windowOutOfOrder(window: 0, previous: 1))) {
            try DNSTypeBitmap(parsing: [1, 1, 0x80, 0, 1, 0x40], type: .nsec)
        }
        #expect(throws: DNSSECRecordError.typeBitmap(type: .nsec3, .windowOutOfOrder(window: 0, previous: 0))) {
            try DNSTypeBitmap(parsing: [0, 1, 0x40, 0, 1, 0x20], type: .nsec3)
        }
    }

    @Test func typeBitmapWindowLengthsOutside1Through32AreRejected() {
        #expect(throws: DNSSECRecordError.typeBitmap(type: .nsec, .badWindowLength(window: 0, length: 0))) {
            try DNSTypeBitmap(parsing: [0, 0], type: .nsec)
        }
        #expect(throws: DNSSECRecordError.typeBitmap(type: .nsec, .badWindowLength(window: 0, length: 33))) {
            try DNSTypeBitmap(parsing: [0, 33] + [UInt8](repeating: 1, count: 33), type: .nsec)
        }
    }

    @Test func typeBitmapWithATrailingZeroOctetIsRejected() {
        #expect(throws: DNSSECRecordError.typeBitmap(type: .nsec, .trailingZeroOctet(window: 0))) {
            try DNSTypeBitmap(parsing: [0, 2, 0x40, 0x00], type: .nsec)
        }
    }

    @Test func typeBitmapCutShortIsRejected() {
        #expect(throws: DNSSECRecordError.typeBitmap(type: .nsec, .truncatedWindow(window: 0, length: 3, available: 1))) {
            try DNSTypeBitmap(parsing: [0, 3, 0x40], type: .nsec)
        }
        #expect(throws: DNSSECRecordError.typeBitmap(type: .nsec, .truncatedWindowHeader(offset: 3))) {
            try DNSTypeBitmap(parsing: [0, 1, 0x40, 1], type: .nsec)
        }
    }

    @Test func typeBitmapRoundTripsEveryWindow() throws {
        let types = (0...255).map { DNSRecordType(rawValue: UInt16($0) << 8 | UInt16($0 * 7 % 256)) }
        let bitmap = DNSTypeBitmap(types)
        #expect(try DNSTypeBitmap(parsing: bitmap.encoded, type: .nsec) == bitmap)
        #expect(bitmap.types.count == 256)
    }

    @Test func nsec3RoundTripsWithSaltOptOutAndTypes() throws {
        let nsec3 = NSEC3(
            flags: NSEC3.optOutFlag, iterations: 12, salt: [0xAA, 0xBB, 0xCC, 0xDD], nextHashedOwner: [UInt8](repeating: 0x5A, count: 20),
            types: DNSTypeBitmap([.ns, .soa, .mx, .rrsig, .dnskey, .nsec3param]))
        let rdata = try nsec3.rdata()
        #expect(Array(rdata.prefix(9)) == [1, 1, 0, 12, 4, 0xAA, 0xBB, 0xCC, 0xDD])
        let parsed = try NSEC3(rdata: rdata)
        #expect(parsed == nsec3)
        #expect(parsed.isOptOut)
    }

    @Test func nsec3WithAnEmptyNextHashedOwnerIsRejected() {
        #expect(throws: DNSSECRecordError.emptyField(type: .nsec3, field: "next hashed owner name")) {
            try NSEC3(rdata: [1, 0, 0, 0, 0, 0])
        }
    }

    @Test func nsec3WithASaltLongerThanItsRDataIsTruncated() {
        #expect(throws: DNSSECRecordError.truncated(type: .nsec3, field: "salt", offset: 5)) { try NSEC3(rdata: [1, 0, 0, 0, 8, 1, 2]) }
    }

    @Test func nsec3paramRoundTripsAndRejectsTrailingOctets() throws {
        let parameters = NSEC3PARAM(iterations: 0, salt: [])
        #expect(try parameters.rdata() == [1, 0, 0, 0, 0])
        #expect(try NSEC3PARAM(rdata: [1, 0, 0, 10, 2, 0xAB, 0xCD]) == NSEC3PARAM(iterations: 10, salt: [0xAB, 0xCD]))
        #expect(throws: DNSSECRecordError.trailingOctets(type: .nsec3param, offset: 5, count: 1)) { try NSEC3PARAM(rdata: [1, 0, 0, 0, 0, 9]) }
    }

    @Test func recordsFromAParsedMessageDecodeAsDNSSECData() throws {
        let key = DNSSECFixtures.dskey
        let record = try DNSResourceRecord(name: "dskey.example.com", ttl: 86400, dnssec: .dnskey(key))
        let message = DNSMessage(isResponse: true, answers: [record])
        let parsed = try DNSMessage(parsing: try message.encoded())
        #expect(try parsed.answers[0].dnssecData() == .dnskey(key))
        let address = DNSResourceRecord(name: "a", type: .a, ttl: 1, data: .a(IPAddress(bytes: [192, 0, 2, 1])!))
        #expect(try address.dnssecData() == nil)
    }

    @Test func aDNSSECTypeHeldDecodedIsNotRawOctets() {
        let odd = DNSResourceRecord(name: "a", type: .ds, ttl: 1, data: .cname("b"))
        #expect(throws: DNSSECRecordError.notRawOctets(type: .ds)) { try odd.dnssecData() }
    }

    @Test func algorithmAndDigestMnemonics() {
        #expect(DNSSECAlgorithm.ecdsaP384SHA384.description == "ECDSAP384SHA384")
        #expect(DNSSECAlgorithm(rawValue: 200).description == "algorithm 200")
        #expect(DNSSECDigestType.sha384.description == "SHA-384")
        #expect(DNSRecordType.nsec3param.description == "NSEC3PARAM")
    }
}
