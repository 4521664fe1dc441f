// WWW-Authenticate parsing (RFC 9110 §11.6.1) and the Basic protection space a 401 gives.
import Foundation
import FuzzSupport
import HTTPDNS
@testable import HTTPDNSURLSession

let url = URL(string: "https://a.test/")!

/// `value` with `\` and `"` escaped, for a quoted-string.
func quoted(_ value: String) -> String {
    var bytes: [UInt8] = []
    for byte in value.utf8 {
        if byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\"") { bytes.append(UInt8(ascii: "\\")) }
        bytes.append(byte)
    }
    return String(decoding: bytes, as: UTF8.self)
}

runFuzzer { bytes in
    let text = String(decoding: bytes, as: UTF8.self)
    let challenges = HTTPAuthenticationChallenge.parse(text)
    for challenge in challenges {
        precondition(!challenge.scheme.isEmpty && !challenge.scheme.contains(" "), "empty or spaced scheme from \(Array(text.utf8))")
        precondition(challenge.parameters.keys.allSatisfy { !$0.isEmpty && $0 == $0.lowercased() }, "parameter name not lowercased")
    }
    // Written back with every value quoted, the list reads the same.
    let written = challenges.map { challenge -> String in
        let parameters = challenge.parameters.map { name, value in
            "\(name)=\"\(quoted(value))\""
        }
        let first = [challenge.scheme, challenge.token68].compactMap { $0 }.joined(separator: " ")
        return ([first] + parameters).joined(separator: ", ")
    }.joined(separator: ", ")
    precondition(HTTPAuthenticationChallenge.parse(written) == challenges, "written back, \(Array(text.utf8)) reads differently: \(written)")
    guard challenges.contains(where: { $0.isScheme("Basic") }) else { return }
    let head = HTTPResponseHead(status: 401, headers: HTTPHeaders([("WWW-Authenticate", text)]), version: .http1_1)
    if let space = BasicAuthentication.protectionSpace(for: head, url: url) {
        precondition(space.realm == challenges.first { $0.isScheme("Basic") }?.realm, "realm is not the Basic challenge's")
    }
}
