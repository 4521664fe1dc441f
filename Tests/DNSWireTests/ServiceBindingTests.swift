import Testing
import HTTPDNSCore
import DNSWire

/// SVCB and HTTPS RDATA (RFC 9460 §2.2, §7, §8; RFC 9461 §5): the Appendix D test vectors byte for
/// byte, and one test per strict check.
@Suite struct ServiceBindingTests {
    /// Octets from hex digits, ignoring spaces (the RFC's figures, copied as printed).
    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...($0 + 1)]), radix: 16)! }
    }

    static let fooExampleCom = "03 66 6f 6f 07 65 78 61 6d 70 6c 65 03 63 6f 6d 00"
    static let fooExampleOrg = "03 66 6f 6f 07 65 78 61 6d 70 6c 65 03 6f 72 67 00"

    static func parseError(_ rdata: [UInt8], type: DNSRecordType = .svcb) -> DNSWireError? {
        do {
            _ = try ServiceBinding(wireRData: rdata, type: type)
            return nil
        } catch {
            return error
        }
    }

    /// The problem reported for `params` after priority 1 and TargetName foo.example.com (offset 19).
    static func problem(params: String) -> DNSWireError.ServiceBindingProblem? {
        guard case .invalidServiceBinding(_, _, let problem)? = parseError(hex("00 01" + fooExampleCom + params)) else { return nil }
        return problem
    }

    static func address(_ text: String) -> IPAddress { IPAddress(text)! }

    // MARK: RFC 9460 Appendix D.1 and D.2

    struct Vector: CustomTestStringConvertible, Sendable {
        let figure: String
        let wire: String
        let binding: ServiceBinding
        let presentation: String
        var testDescription: String { figure }

        init(_ figure: String, _ wire: String, _ priority: UInt16, _ target: String, _ parameters: ServiceParameters, _ presentation: String) {
            self.figure = figure
            self.wire = wire
            self.binding = ServiceBinding(priority: priority, targetName: target, parameters: parameters)
            self.presentation = presentation
        }
    }

    static func key667(_ value: String) -> ServiceParameters {
        ServiceParameters(unknown: [ServiceParameterKey(rawValue: 667): Array(value.utf8)])
    }

    static let vectors: [Vector] = [
        Vector("Figure 2: AliasMode", "00 00" + fooExampleCom, 0, "foo.example.com", ServiceParameters(), "0 foo.example.com."),
        Vector("Figure 3: TargetName is \".\"", "00 01 00", 1, "", ServiceParameters(), "1 ."),
        Vector("Figure 4: specifies a port", "00 10" + fooExampleCom + "00 03 00 02 00 35", 16, "foo.example.com", ServiceParameters(port: 53), "16 foo.example.com. port=53"),
        Vector("Figure 5: a generic key and unquoted value", "00 01" + fooExampleCom + "02 9b 00 05 68 65 6c 6c 6f", 1, "foo.example.com", key667("hello"), "1 foo.example.com. key667=hello"),
        Vector(
            "Figure 6: a generic key and quoted value with a decimal escape", "00 01" + fooExampleCom + "02 9b 00 09 68 65 6c 6c 6f d2 71 6f 6f", 1, "foo.example.com",
            ServiceParameters(unknown: [ServiceParameterKey(rawValue: 667): Array("hello".utf8) + [0xD2] + Array("qoo".utf8)]), "1 foo.example.com. key667=hello\\210qoo"),
        Vector(
            "Figure 7: two quoted IPv6 hints",
            "00 01" + fooExampleCom + "00 06 00 20 20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 01 20 01 0d b8 00 00 00 00 00 00 00 00 00 53 00 01", 1, "foo.example.com",
            ServiceParameters(ipv6Hints: [address("2001:db8::1"), address("2001:db8::53:1")]), "1 foo.example.com. ipv6hint=2001:db8::1,2001:db8::53:1"),
        Vector(
            "Figure 8: an IPv6 hint using the embedded IPv4 syntax", "00 01 07 65 78 61 6d 70 6c 65 03 63 6f 6d 00 00 06 00 10 20 01 0d b8 01 22 03 44 00 00 00 00 c0 00 02 21", 1,
            "example.com", ServiceParameters(ipv6Hints: [address("2001:db8:122:344::192.0.2.33")]), "1 example.com. ipv6hint=2001:db8:122:344::c000:221"),
        Vector(
            "Figure 9: SvcParamKey ordering is arbitrary in presentation format but sorted in wire format",
            "00 10" + fooExampleOrg + "00 00 00 04 00 01 00 04 00 01 00 09 02 68 32 05 68 33 2d 31 39 00 04 00 04 c0 00 02 01", 16, "foo.example.org",
            ServiceParameters(mandatory: [.alpn, .ipv4Hint], alpn: [Array("h2".utf8), Array("h3-19".utf8)], ipv4Hints: [address("192.0.2.1")]),
            "16 foo.example.org. mandatory=alpn,ipv4hint alpn=h2,h3-19 ipv4hint=192.0.2.1"),
        Vector(
            "Figure 10: an alpn value with an escaped comma and an escaped backslash", "00 10" + fooExampleOrg + "00 01 00 0c 08 66 5c 6f 6f 2c 62 61 72 02 68 32", 16,
            "foo.example.org", ServiceParameters(alpn: [Array("f\\oo,bar".utf8), Array("h2".utf8)]), "16 foo.example.org. alpn=f\\\\\\\\oo\\\\,bar,h2")
    ]

    @Test(arguments: vectors)
    func appendixDVectorParsesToItsFields(vector: Vector) throws {
        #expect(try ServiceBinding(wireRData: Self.hex(vector.wire)) == vector.binding)
    }

    @Test(arguments: vectors)
    func appendixDVectorEncodesByteForByte(vector: Vector) throws {
        #expect(try vector.binding.wireRData() == Self.hex(vector.wire))
    }

    @Test(arguments: vectors)
    func appendixDVectorRendersInPresentationFormat(vector: Vector) {
        #expect(vector.binding.presentationFormat == vector.presentation)
    }

    // MARK: RFC 9460 Appendix D.3 failure cases, in wire form

    @Test func figure11_sameKeyTwiceIsRejected() {
        #expect(Self.problem(params: "00 7b 00 03 61 62 63 00 7b 00 03 64 65 66") == .duplicateKey(ServiceParameterKey(rawValue: 123)))
    }

    @Test(arguments: [ServiceParameterKey.mandatory, .alpn, .port, .ipv4Hint, .ipv6Hint])
    func figure12_keyThatNeedsAValueWithAnEmptyOneIsRejected(key: ServiceParameterKey) {
        let code = String(format: "%04x", key.rawValue)
        #expect(Self.problem(params: code + "0000") == .emptyValue(key))
    }

    @Test func figure13_noDefaultALPNWithAValueIsRejected() {
        #expect(Self.problem(params: "00 01 00 03 02 68 32 00 02 00 03 61 62 63") == .noDefaultALPNHasValue(length: 3))
    }

    @Test func figure14_mandatoryKeyThatIsMissingIsRejected() {
        #expect(Self.problem(params: "00 00 00 02 00 7b") == .mandatoryKeyMissing(ServiceParameterKey(rawValue: 123)))
    }

    @Test func figure15_mandatoryListingItselfIsRejected() {
        #expect(Self.problem(params: "00 00 00 02 00 00") == .mandatoryListsItself)
    }

    @Test func figure16_mandatoryListingAKeyTwiceIsRejected() {
        #expect(Self.problem(params: "00 00 00 04 00 7b 00 7b 00 7b 00 03 61 62 63") == .mandatoryDuplicateKey(ServiceParameterKey(rawValue: 123)))
    }

    // MARK: Key order and lengths

    @Test func keysOutOfOrderAreRejectedAtTheLaterKey() {
        #expect(Self.parseError(Self.hex("00 01 00 00 03 00 02 01 bb 00 01 00 03 02 68 32")) == .invalidServiceBinding(type: .svcb, offset: 9, problem: .keysOutOfOrder(previous: .port, key: .alpn)))
    }

    @Test func valueRunningPastTheRDataIsATruncation() {
        #expect(Self.parseError(Self.hex("00 01 00 00 03 00 04 01 bb")) == .invalidServiceBinding(type: .svcb, offset: 7, problem: .truncated(needed: 4, available: 2)))
    }

    @Test func keyWithoutItsLengthIsATruncation() {
        #expect(Self.parseError(Self.hex("00 01 00 00 03 00")) == .invalidServiceBinding(type: .svcb, offset: 5, problem: .truncated(needed: 2, available: 1)))
    }

    @Test func priorityAloneIsATruncation() {
        #expect(Self.parseError(Self.hex("00")) == .invalidServiceBinding(type: .svcb, offset: 0, problem: .truncated(needed: 2, available: 1)))
    }

    @Test func portOfThreeOctetsIsRejected() {
        #expect(Self.problem(params: "00 03 00 03 01 bb 00") == .badValueLength(.port, length: 3))
    }

    @Test func ipv4HintThatIsNotAMultipleOfFourIsRejected() {
        #expect(Self.problem(params: "00 04 00 05 c0 00 02 01 01") == .badValueLength(.ipv4Hint, length: 5))
    }

    @Test func ipv6HintThatIsNotAMultipleOfSixteenIsRejected() {
        #expect(Self.problem(params: "00 06 00 0f" + String(repeating: "00", count: 15)) == .badValueLength(.ipv6Hint, length: 15))
    }

    @Test func mandatoryOfOddLengthIsRejected() {
        #expect(Self.problem(params: "00 00 00 03 00 01 00 00 01 00 03 02 68 32") == .badValueLength(.mandatory, length: 3))
    }

    @Test func mandatoryOutOfOrderIsRejected() {
        let params = "00 00 00 04 00 04 00 01 00 01 00 03 02 68 32 00 04 00 04 c0 00 02 01"
        #expect(Self.problem(params: params) == .mandatoryKeysOutOfOrder(previous: .ipv4Hint, key: .alpn))
    }

    @Test func emptyALPNIdentifierIsRejected() {
        #expect(Self.problem(params: "00 01 00 04 02 68 32 00") == .emptyALPNIdentifier)
    }

    @Test func alpnIdentifierRunningPastItsValueIsRejected() {
        #expect(Self.problem(params: "00 01 00 03 03 68 32") == .alpnIdentifierOverrun)
    }

    @Test func noDefaultALPNWithoutALPNIsRejected() {
        #expect(Self.problem(params: "00 02 00 00") == .noDefaultALPNWithoutALPN)
    }

    @Test func noDefaultALPNBesideALPNIsAccepted() throws {
        let binding = try ServiceBinding(wireRData: Self.hex("00 01 00 00 01 00 03 02 68 33 00 02 00 00"))
        #expect(binding.parameters.noDefaultALPN)
        #expect(binding.parameters.alpnProtocols == ["h3"])
        #expect(binding.presentationFormat == "1 . alpn=h3 no-default-alpn")
    }

    @Test func emptyECHIsRejected() {
        #expect(Self.problem(params: "00 05 00 00") == .emptyValue(.ech))
    }

    @Test func echIsKeptAsOctetsAndRenderedInBase64() throws {
        let binding = try ServiceBinding(wireRData: Self.hex("00 01 00 00 05 00 03 01 02 03"))
        #expect(binding.parameters.ech == [1, 2, 3])
        #expect(binding.presentationFormat == "1 . ech=AQID")
    }

    @Test func unknownKeyWithAnEmptyValueIsKeptAndRenderedBare() throws {
        let binding = try ServiceBinding(wireRData: Self.hex("00 01 00 ff ff 00 00"))
        #expect(binding.parameters.unknown == [ServiceParameterKey(rawValue: 65535): []])
        #expect(binding.presentationFormat == "1 . key65535")
    }

    // MARK: TargetName

    @Test func compressionPointerInTargetNameIsRejected() {
        #expect(Self.parseError(Self.hex("00 01 c0 00")) == .invalidServiceBinding(type: .svcb, offset: 2, problem: .compressedTargetName))
    }

    @Test func compressionPointerAfterALabelIsRejected() {
        #expect(Self.parseError(Self.hex("00 01 03 66 6f 6f c0 00")) == .invalidServiceBinding(type: .svcb, offset: 6, problem: .compressedTargetName))
    }

    @Test func labelTypeBitsInTargetNameAreRejected() {
        #expect(Self.parseError(Self.hex("00 01 40")) == .invalidServiceBinding(type: .svcb, offset: 2, problem: .invalidTargetNameLabel(lengthOctet: 0x40)))
    }

    @Test func targetNameRunningPastTheRDataIsATruncation() {
        #expect(Self.parseError(Self.hex("00 01 03 66 6f")) == .invalidServiceBinding(type: .svcb, offset: 3, problem: .truncated(needed: 3, available: 2)))
    }

    @Test func targetNameWithoutItsRootLabelIsATruncation() {
        #expect(Self.parseError(Self.hex("00 01 03 66 6f 6f")) == .invalidServiceBinding(type: .svcb, offset: 6, problem: .truncated(needed: 1, available: 0)))
    }

    @Test func targetNameOver255OctetsIsRejected() {
        let label = "3f" + String(repeating: "61", count: 63)
        #expect(Self.parseError(Self.hex("00 01" + String(repeating: label, count: 4) + "00")) == .invalidServiceBinding(type: .svcb, offset: 2, problem: .targetNameTooLong))
    }

    // MARK: dohpath (RFC 9461 §5)

    static func dohPathProblem(_ path: [UInt8]) -> DNSWireError.DoHPathProblem? {
        let rdata = Self.hex("00 01 00 00 07") + [UInt8(path.count >> 8), UInt8(path.count & 0xFF)] + path
        guard case .invalidServiceBinding(_, _, .invalidDoHPath(let problem))? = parseError(rdata) else { return nil }
        return problem
    }

    @Test(arguments: ["/dns-query{?dns}", "/q{?dns,other}", "/{+x}/q{?dns*}", "/dns{?dns:10}", "/ré{?dns}"])
    func dohPathWithADNSVariableIsAccepted(path: String) throws {
        let rdata = Self.hex("00 01 00 00 07") + [0, UInt8(path.utf8.count)] + Array(path.utf8)
        #expect(try ServiceBinding(wireRData: rdata).parameters.dohPath == path)
    }

    @Test func dohPathThatIsNotUTF8IsRejected() {
        #expect(Self.dohPathProblem(Array("/q{?dns}".utf8) + [0xFF]) == .notUTF8)
    }

    @Test(arguments: ["dns-query{?dns}", "//evil.example/q{?dns}", "https://x.example/q{?dns}"])
    func dohPathThatIsNotARelativePathIsRejected(path: String) {
        #expect(Self.dohPathProblem(Array(path.utf8)) == .notRelativePath)
    }

    @Test(arguments: ["/dns-query", "/q{?name}", "/q{?dnsx}"])
    func dohPathWithoutTheDNSVariableIsRejected(path: String) {
        #expect(Self.dohPathProblem(Array(path.utf8)) == .missingDNSVariable)
    }

    @Test(arguments: ["/q{?dns", "/q{?dns}}", "/q{}", "/q{?dns,}", "/q{?dns:0}", "/q{?d-ns}"])
    func dohPathWithAMalformedExpressionIsRejected(path: String) {
        #expect(Self.dohPathProblem(Array(path.utf8)) == .malformedExpression)
    }

    @Test func dohPathWithASpaceIsRejected() {
        #expect(Self.dohPathProblem(Array("/q {?dns}".utf8)) == .invalidCharacter(0x20))
    }

    // MARK: AliasMode

    @Test func aliasModeParametersAreParsedAndKept() throws {
        let binding = try ServiceBinding(wireRData: Self.hex("00 00" + Self.fooExampleCom + "00 03 00 02 01 bb"))
        #expect(binding.isAliasMode)
        #expect(binding.parameters.port == 443)
        #expect(try binding.wireRData() == Self.hex("00 00" + Self.fooExampleCom + "00 03 00 02 01 bb"))
    }

    @Test func effectiveTargetNameFollowsRFC9460Section2_5() {
        #expect(ServiceBinding(priority: 1, targetName: "").effectiveTargetName(owner: "svc.test") == "svc.test")
        #expect(ServiceBinding(priority: 1, targetName: "cdn.test").effectiveTargetName(owner: "svc.test") == "cdn.test")
        #expect(ServiceBinding(priority: 0, targetName: "").effectiveTargetName(owner: "svc.test") == nil)
    }

    // MARK: Inside a message

    /// A response to `svc.test HTTPS` whose one answer carries `rdata` (RDATA starts at offset 46).
    static func response(rdata: [UInt8]) -> [UInt8] {
        WireBytes.header(flags: WireBytes.responseFlags(), an: 1) + WireBytes.question("svc.test", type: 65)
            + WireBytes.record("svc.test", type: 65, ttl: 300, rdata: rdata)
    }

    @Test func httpsRecordInAResponseIsDecoded() throws {
        let rdata = Self.hex("00 01 00 00 01 00 03 02 68 32 00 03 00 02 20 fb")
        let message = try DNSMessage(parsing: Self.response(rdata: rdata))
        let expected = ServiceBinding(priority: 1, targetName: "", parameters: ServiceParameters(alpnProtocols: ["h2"], port: 8443))
        #expect(message.answers.first?.data == .serviceBinding(expected))
        #expect(try message.encoded() == Self.response(rdata: rdata))
    }

    @Test func malformedRecordInAResponseReportsTheMessageOffset() {
        let error = MalformedInputTests.parseError(Self.response(rdata: Self.hex("00 01 00 00 03 00 01 01")))
        #expect(error == .invalidServiceBinding(type: .https, offset: 53, problem: .badValueLength(.port, length: 1)))
    }

    @Test func malformedRecordIsKeptAsOctetsWhenServiceBindingsAreNotDecoded() throws {
        let rdata = Self.hex("00 01 00 00 03 00 01 01")
        let message = try DNSMessage(parsing: Self.response(rdata: rdata), decodingServiceBindings: false)
        #expect(message.answers.first?.data == .other(rdata))
    }

    @Test func pointerToTheOwnerNameInATargetNameIsRejected() {
        // 0xC0 0x0C would be a valid pointer to the question name elsewhere in a message.
        let error = MalformedInputTests.parseError(Self.response(rdata: Self.hex("00 01 c0 0c")))
        #expect(error == .invalidServiceBinding(type: .https, offset: 48, problem: .compressedTargetName))
    }

    @Test func recordShorterThanItsTargetNameStopsAtRDLength() {
        // RDLENGTH 4 covers the priority and "\x03fo"; the rest of the name lies beyond it.
        let record = WireBytes.record("svc.test", type: 65, ttl: 300, rdata: Self.hex("00 01 03 66")) + Self.hex("6f 00")
        let bytes = WireBytes.header(flags: WireBytes.responseFlags(), an: 1) + WireBytes.question("svc.test", type: 65) + record
        #expect(MalformedInputTests.parseError(bytes) == .invalidServiceBinding(type: .https, offset: 49, problem: .truncated(needed: 3, available: 1)))
    }

    // MARK: Reading an answer

    static func answer(_ records: [DNSResourceRecord], code: DNSResponseCode = .noError, truncated: Bool = false) -> DNSMessage {
        DNSMessage(
            isResponse: true, isTruncated: truncated, responseCode: code, questions: [DNSQuestion(name: "svc.test", type: .https, recordClass: 1)],
            answers: records)
    }

    static let serviceMode = ServiceBinding(priority: 1, targetName: "", parameters: ServiceParameters(alpnProtocols: ["h2"]))

    @Test func answerFollowsACNAMEToTheRRsetAndTakesTheLeastTTL() {
        let message = Self.answer([
            DNSResourceRecord(name: "svc.test", type: .cname, ttl: 30, data: .cname("cdn.test")),
            DNSResourceRecord(name: "cdn.test", type: .https, ttl: 300, data: .serviceBinding(Self.serviceMode)),
            DNSResourceRecord(name: "other.test", type: .https, ttl: 300, data: .serviceBinding(ServiceBinding(priority: 9, targetName: "evil.test")))
        ])
        #expect(message.serviceBindingAnswer(for: "SVC.test.", type: .https) == .records([Self.serviceMode], ttl: 30, owner: "cdn.test"))
    }

    @Test func answerWithoutTheTypeIsNoData() {
        #expect(Self.answer([]).serviceBindingAnswer(for: "svc.test", type: .https) == .noData(negativeTTL: nil))
        let svcbOnly = Self.answer([DNSResourceRecord(name: "svc.test", type: .svcb, ttl: 30, data: .serviceBinding(Self.serviceMode))])
        #expect(svcbOnly.serviceBindingAnswer(for: "svc.test", type: .https) == .noData(negativeTTL: nil))
    }

    @Test func answerOfNXDOMAINOrAnotherCodeOrTCIsReportedAsSuch() {
        #expect(Self.answer([], code: .nameError).serviceBindingAnswer(for: "svc.test", type: .https) == .nameError(negativeTTL: nil))
        #expect(Self.answer([], code: .refused).serviceBindingAnswer(for: "svc.test", type: .https) == .failure(.refused))
        #expect(Self.answer([], truncated: true).serviceBindingAnswer(for: "svc.test", type: .https) == .truncated)
    }

    @Test func answerWithACNAMELoopIsAServerFailure() {
        let message = Self.answer([
            DNSResourceRecord(name: "svc.test", type: .cname, ttl: 30, data: .cname("b.test")),
            DNSResourceRecord(name: "b.test", type: .cname, ttl: 30, data: .cname("svc.test"))
        ])
        #expect(message.serviceBindingAnswer(for: "svc.test", type: .https) == .failure(.serverFailure))
    }

    // MARK: Encoding

    static func encodingProblem(_ parameters: ServiceParameters) -> DNSWireError.ServiceBindingProblem? {
        do {
            _ = try ServiceBinding(priority: 1, targetName: "", parameters: parameters).wireRData()
            return nil
        } catch {
            guard case .invalidServiceBinding(_, _, let problem) = error else { return nil }
            return problem
        }
    }

    @Test func encodingAnEmptyALPNListIsRejected() {
        #expect(Self.encodingProblem(ServiceParameters(alpn: [])) == .emptyValue(.alpn))
    }

    @Test func encodingAMandatoryKeyThatIsAbsentIsRejected() {
        #expect(Self.encodingProblem(ServiceParameters(mandatory: [.port])) == .mandatoryKeyMissing(.port))
    }

    @Test func encodingADecodedKeyAsUnknownIsRejected() {
        #expect(Self.encodingProblem(ServiceParameters(unknown: [.port: [1, 187]])) == .decodedKeyInUnknown(.port))
    }

    @Test func encodingAnIPv6AddressAsAnIPv4HintIsRejected() {
        #expect(Self.encodingProblem(ServiceParameters(ipv4Hints: [Self.address("::1")])) == .wrongAddressFamily(.ipv4Hint))
    }

    @Test func encodingAnALPNIdentifierOver255OctetsIsRejected() {
        #expect(Self.encodingProblem(ServiceParameters(alpn: [Array(repeating: 0x61, count: 256)])) == .alpnIdentifierTooLong(length: 256))
    }

    @Test func encodingAnInvalidDoHPathIsRejected() {
        #expect(Self.encodingProblem(ServiceParameters(dohPath: "/dns-query")) == .invalidDoHPath(.missingDNSVariable))
    }

    // MARK: Presentation format

    @Test func presentationFormatListsKeysInAscendingOrder() {
        let binding = ServiceBinding(
            priority: 1, targetName: "", parameters: ServiceParameters(alpnProtocols: ["h2", "h3"], port: 8443, ipv4Hints: [Self.address("192.0.2.1")]))
        #expect(binding.presentationFormat == "1 . alpn=h2,h3 port=8443 ipv4hint=192.0.2.1")
        #expect(binding.description == binding.presentationFormat)
    }

    @Test func presentationFormatEscapesDoHPathAndSpecialOctets() {
        let binding = ServiceBinding(
            priority: 2, targetName: "doh.test",
            parameters: ServiceParameters(dohPath: "/dns-query{?dns}", unknown: [ServiceParameterKey(rawValue: 9): Array("a b\"c;".utf8)]))
        #expect(binding.presentationFormat == "2 doh.test. dohpath=/dns-query{?dns} key9=a\\032b\\\"c\\;")
    }

    @Test func problemsReadAsSentences() {
        let error = DNSWireError.invalidServiceBinding(type: .https, offset: 43, problem: .badValueLength(.port, length: 1))
        #expect(error.description == "HTTPS record RDATA is malformed at offset 43: SvcParam port has a 1-octet value; it must be exactly 2 (RFC 9460 §7.2)")
    }
}
