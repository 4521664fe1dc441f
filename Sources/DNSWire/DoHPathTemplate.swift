/// Checks a `dohpath` value (RFC 9461 §5): a UTF-8 URI template (RFC 6570) that is a path relative
/// to the TargetName's authority and names the `dns` variable, such as `/dns-query{?dns}`.
enum DoHPathTemplate {
    /// Octets RFC 6570 §2.1 does not allow in a template's literals (besides controls and non-ASCII
    /// handled separately; UTF-8 text outside ASCII is allowed and percent-encoded on expansion).
    private static let forbiddenLiterals: Set<UInt8> = Set(" \"'<>\\^`|".utf8)
    /// RFC 6570 §2.2 operators, including the reserved ones it lists.
    private static let operators: Set<UInt8> = Set("+#./;?&=,!@|".utf8)

    /// The template as text.
    /// - Throws: `DNSWireError.DoHPathProblem`.
    static func validate(_ octets: [UInt8]) throws(DNSWireError.DoHPathProblem) -> String {
        guard let text = String(validating: octets, as: UTF8.self) else { throw .notUTF8 }
        // "//" would start a network-path reference: another authority, not a path (RFC 3986 §4.2).
        guard octets.first == UInt8(ascii: "/"), octets.dropFirst().first != UInt8(ascii: "/") else { throw .notRelativePath }
        var namesDNS = false
        var index = 0
        while index < octets.count {
            let octet = octets[index]
            switch octet {
            case UInt8(ascii: "{"):
                guard let close = octets[index...].firstIndex(of: UInt8(ascii: "}")) else { throw .malformedExpression }
                if try variables(in: octets[(index + 1)..<close]).contains("dns") { namesDNS = true }
                index = close + 1
                continue
            case UInt8(ascii: "}"):
                throw .malformedExpression
            case 0x00...0x20, 0x7F:
                throw .invalidCharacter(octet)
            default:
                guard !forbiddenLiterals.contains(octet) else { throw .invalidCharacter(octet) }
            }
            index += 1
        }
        guard namesDNS else { throw .missingDNSVariable }
        return text
    }

    /// The variable names of one expression's body (between the braces): an optional operator, then
    /// comma-separated varspecs with an optional `*` or `:N` (N 1–9999) modifier (RFC 6570 §2.3, §2.4).
    private static func variables(in body: ArraySlice<UInt8>) throws(DNSWireError.DoHPathProblem) -> [String] {
        var body = body
        if let first = body.first, operators.contains(first) { body = body.dropFirst() }
        var names: [String] = []
        for spec in body.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            var name = spec
            if spec.last == UInt8(ascii: "*") {
                name = spec.dropLast()
            } else if let colon = spec.firstIndex(of: UInt8(ascii: ":")) {
                let digits = spec[(colon + 1)...]
                guard (1...4).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }), digits.first != 0x30 else {
                    throw .malformedExpression
                }
                name = spec[..<colon]
            }
            guard !name.isEmpty, name.allSatisfy(isVariableCharacter) else { throw .malformedExpression }
            names.append(String(decoding: name, as: UTF8.self))
        }
        return names
    }

    /// RFC 6570 §2.3 varchar: ALPHA, DIGIT, `_`, `.` and pct-encoded octets (`%` and hex digits, checked loosely).
    private static func isVariableCharacter(_ octet: UInt8) -> Bool {
        switch octet {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "%"):
            true
        default:
            false
        }
    }
}
