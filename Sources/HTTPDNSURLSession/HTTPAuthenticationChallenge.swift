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
        for element in listElements(Array(value.utf8)) {
            var index = 0
            let name = token(element, &index)
            guard !name.isEmpty else { continue }
            let afterName = index
            skipWhitespace(element, &index)
            if index < element.count, element[index] == UInt8(ascii: "=") {
                // An auth-param of the challenge before it.
                guard let last = challenges.indices.last, let value = parameterValue(element, &index) else { continue }
                // The first of a repeated parameter counts.
                if challenges[last].parameters[name.lowercased()] == nil { challenges[last].parameters[name.lowercased()] = value }
                continue
            }
            guard afterName == element.count || index > afterName else { continue } // the scheme must end at a space
            var challenge = (scheme: name, parameters: [String: String](), token68: String?.none)
            let rest = Array(element[index...])
            var restIndex = 0
            let first = token(rest, &restIndex)
            var afterFirst = restIndex
            skipWhitespace(rest, &afterFirst)
            if !first.isEmpty, afterFirst < rest.count, rest[afterFirst] == UInt8(ascii: "="), let value = parameterValue(rest, &afterFirst),
                afterFirst == rest.count
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
    private static func parameterValue(_ bytes: [UInt8], _ index: inout Int) -> String? {
        index += 1
        skipWhitespace(bytes, &index)
        let value: String
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            var unescaped: [UInt8] = []
            index += 1
            var closed = false
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") {
                    closed = true
                    break
                }
                if byte == UInt8(ascii: "\\"), index < bytes.count {
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
        return index == bytes.count ? value : nil
    }

    /// The list's elements (split at commas outside quoted-strings), each trimmed of OWS; empty
    /// elements dropped (RFC 9110 §5.6.1).
    private static func listElements(_ bytes: [UInt8]) -> [[UInt8]] {
        var elements: [[UInt8]] = []
        var current: [UInt8] = []
        var quoted = false
        var escaped = false
        for byte in bytes {
            if quoted {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    quoted = false
                }
            } else if byte == UInt8(ascii: ",") {
                elements.append(current)
                current = []
                continue
            } else if byte == UInt8(ascii: "\"") {
                quoted = true
            }
            current.append(byte)
        }
        elements.append(current)
        return elements.map(trimmed).filter { !$0.isEmpty }
    }

    private static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
        var slice = bytes[...]
        while let first = slice.first, isWhitespace(first) { slice = slice.dropFirst() }
        while let last = slice.last, isWhitespace(last) { slice = slice.dropLast() }
        return Array(slice)
    }

    private static func token(_ bytes: [UInt8], _ index: inout Int) -> String {
        let start = index
        while index < bytes.count, isTokenCharacter(bytes[index]) { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private static func skipWhitespace(_ bytes: [UInt8], _ index: inout Int) {
        while index < bytes.count, isWhitespace(bytes[index]) { index += 1 }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }

    /// tchar (RFC 9110 §5.6.2).
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    /// token68's characters (RFC 9110 §11.2), its trailing '=' padding included.
    private static func isToken68(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: Array("-._~+/=".utf8).contains(byte)
        }
    }
}
