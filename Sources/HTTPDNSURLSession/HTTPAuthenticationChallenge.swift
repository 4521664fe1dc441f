/// One challenge of a `WWW-Authenticate` field (RFC 9110 §11.6.1): a scheme and either auth-params
/// or a token68 (§11.2).
struct HTTPAuthenticationChallenge: Equatable, Sendable {
    /// As sent (schemes compare case-insensitively: use `isScheme(_:)`).
    let scheme: String
    /// Names lowercased (they compare case-insensitively); quoted-string values unescaped.
    let parameters: [String: String]
    let token68: String?

    /// The protection space's name (`realm`, §11.5).
    var realm: String? { parameters["realm"] }

    func isScheme(_ name: String) -> Bool { scheme.lowercased() == name.lowercased() }

    /// The challenges of a field value (several fields joined with ", ", as a list field is).
    /// Parts that are not a challenge or a parameter are skipped: a malformed field yields fewer
    /// challenges, never an error.
    static func parse(_ value: String) -> [HTTPAuthenticationChallenge] {
        var challenges: [(scheme: String, parameters: [String: String], token68: String?)] = []
        let bytes = Array(value.utf8)
        for element in listElements(bytes) {
            var index = element.startIndex
            let name = token(element, &index)
            guard !name.isEmpty else { continue }
            let afterName = index
            skipWhitespace(element, &index)
            if index < element.endIndex, element[index] == UInt8(ascii: "=") {
                // An auth-param of the challenge before it.
                guard let last = challenges.indices.last, let value = parameterValue(element, &index) else { continue }
                // The first of a repeated parameter counts.
                if challenges[last].parameters[name.lowercased()] == nil { challenges[last].parameters[name.lowercased()] = value }
                continue
            }
            guard afterName == element.endIndex || index > afterName else { continue } // the scheme must end at a space
            var challenge = (scheme: name, parameters: [String: String](), token68: String?.none)
            let rest = element[index...]
            var restIndex = rest.startIndex
            let first = token(rest, &restIndex)
            var afterFirst = restIndex
            skipWhitespace(rest, &afterFirst)
            if !first.isEmpty, afterFirst < rest.endIndex, rest[afterFirst] == UInt8(ascii: "="), let value = parameterValue(rest, &afterFirst),
                afterFirst == rest.endIndex
            {
                challenge.parameters[first.lowercased()] = value
            } else if !rest.isEmpty, rest.allSatisfy(isToken68) {
                challenge.token68 = String(decoding: rest, as: UTF8.self)
            }
            challenges.append(challenge)
        }
        return challenges.map { HTTPAuthenticationChallenge(scheme: $0.scheme, parameters: $0.parameters, token68: $0.token68) }
    }

    /// The value after `=` at `index` (BWS around it), a token or a quoted-string; nil when
    /// there is neither or something follows it.
    private static func parameterValue(_ bytes: ArraySlice<UInt8>, _ index: inout Int) -> String? {
        index += 1
        skipWhitespace(bytes, &index)
        let value: String
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: "\"") {
            var unescaped: [UInt8] = []
            index += 1
            var closed = false
            while index < bytes.endIndex {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") {
                    closed = true
                    break
                }
                if byte == UInt8(ascii: "\\"), index < bytes.endIndex {
                    unescaped.append(bytes[index])
                    index += 1
                } else {
                    unescaped.append(byte)
                }
            }
            guard closed else { return nil }
            value = String(decoding: unescaped, as: UTF8.self)
        } else {
            value = token(bytes, &index)
            guard !value.isEmpty else { return nil }
        }
        skipWhitespace(bytes, &index)
        return index == bytes.endIndex ? value : nil
    }

    /// The list's elements (split at commas outside quoted-strings), each trimmed of OWS; empty
    /// elements dropped (RFC 9110 §5.6.1).
    private static func listElements(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var elements: [ArraySlice<UInt8>] = []
        var start = 0
        var quoted = false
        var escaped = false
        for (index, byte) in bytes.enumerated() {
            if quoted {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    quoted = false
                }
            } else if byte == UInt8(ascii: ",") {
                elements.append(trimmed(bytes[start..<index]))
                start = index + 1
            } else if byte == UInt8(ascii: "\"") {
                quoted = true
            }
        }
        elements.append(trimmed(bytes[start...]))
        return elements.filter { !$0.isEmpty }
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, isWhitespace(first) { slice = slice.dropFirst() }
        while let last = slice.last, isWhitespace(last) { slice = slice.dropLast() }
        return slice
    }

    private static func token(_ bytes: ArraySlice<UInt8>, _ index: inout Int) -> String {
        let start = index
        while index < bytes.endIndex, isTokenCharacter(bytes[index]) { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private static func skipWhitespace(_ bytes: ArraySlice<UInt8>, _ index: inout Int) {
        while index < bytes.endIndex, isWhitespace(bytes[index]) { index += 1 }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// tchar (RFC 9110 §5.6.2).
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"),
            UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"),
            UInt8(ascii: "~"):
            true
        default: isAlphanumeric(byte)
        }
    }

    /// token68's characters (RFC 9110 §11.2), its trailing '=' padding included.
    private static func isToken68(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="): true
        default: isAlphanumeric(byte)
        }
    }
}
