import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Testing
import HTTPDNS
import TestSupport
@testable import HTTPDNSURLSession

/// `WWW-Authenticate` parsing (RFC 9110 §11.6.1) and the Basic authentication steps, without a server.
@Suite("HTTP authentication challenges and Basic authentication steps")
struct BasicAuthenticationTests {
    typealias Challenge = HTTPAuthenticationChallenge

    @Test("challenges, their parameters and token68 are read from a list that mixes them (RFC 9110 §11.6.1's example)")
    func parsesChallengeList() {
        let parsed = Challenge.parse(#"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple""#)
        #expect(
            parsed == [
                Challenge(scheme: "Newauth", parameters: ["realm": "apps", "type": "1", "title": #"Login to "apps""#], token68: nil),
                Challenge(scheme: "Basic", parameters: ["realm": "simple"], token68: nil)
            ])
        #expect(Challenge.parse("Bearer mF_9.B5f-4.1JqM==") == [Challenge(scheme: "Bearer", parameters: [:], token68: "mF_9.B5f-4.1JqM==")])
        #expect(Challenge.parse("Negotiate") == [Challenge(scheme: "Negotiate", parameters: [:], token68: nil)])
        #expect(Challenge.parse(#"basic REALM = "a, b" , charset="UTF-8""#).first?.parameters == ["realm": "a, b", "charset": "UTF-8"])
        #expect(Challenge.parse(#"Basic realm="first", realm="second""#).first?.realm == "first")
    }

    @Test(
        "malformed fields give fewer challenges, never a crash",
        arguments: ["", ",,,", "=", "realm=x", #"Basic realm="unterminated"#, "Basic realm=", "\"Basic\"", "Basic realm=\"a\" junk", "Ba(sic"])
    func malformedFields(value: String) {
        let parsed = Challenge.parse(value)
        #expect(parsed.allSatisfy { !$0.scheme.isEmpty })
        #expect(parsed.allSatisfy { $0.realm == nil || $0.realm == "a" })
    }

    @Test("random challenge lists, written as RFC 9110 §11.6.1 allows (quoting, escapes, OWS, empty elements), read back unchanged")
    func roundTrips() {
        var generator = SeededGenerator(seed: 0x4854_5450_444e_53)
        let tokenCharacters = Array("abcXYZ019!#$%&'*+-.^_`|~")
        func token() -> String { String((0..<Int.random(in: 1...6, using: &generator)).map { _ in tokenCharacters.randomElement(using: &generator)! }) }
        func quotedText() -> String {
            String((0..<Int.random(in: 0...8, using: &generator)).map { _ in Array(#"a b,=;"é"#).randomElement(using: &generator)! })
        }
        for _ in 0..<2_000 {
            var expected: [Challenge] = []
            var elements: [String] = []
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let scheme = token()
                var parameters: [String: String] = [:]
                var written: [String] = []
                for _ in 0..<Int.random(in: 0...3, using: &generator) {
                    let name = token().lowercased()
                    guard parameters[name] == nil else { continue }
                    let quoted = Bool.random(using: &generator)
                    let value = quoted ? quotedText() : token()
                    parameters[name] = value
                    let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                    written.append("\(name)\(Bool.random(using: &generator) ? " = " : "=")\(quoted ? "\"\(escaped)\"" : value)")
                }
                expected.append(Challenge(scheme: scheme, parameters: parameters, token68: nil))
                elements.append(([scheme + (written.isEmpty ? "" : " " + written[0])] + written.dropFirst()).joined(separator: ", "))
                if Bool.random(using: &generator) { elements.append("") } // an empty list element
            }
            let value = elements.joined(separator: Bool.random(using: &generator) ? ", " : " ,\t")
            #expect(Challenge.parse(value) == expected, "\(value)")
        }
    }

    func head(_ status: Int, _ challenges: [String]) -> HTTPResponseHead {
        HTTPResponseHead(status: status, headers: HTTPHeaders(challenges.map { ("WWW-Authenticate", $0) }), version: .http1_1, reasonPhrase: "")
    }

    @Test("a protection space only for a 401 offering Basic (among several fields), with the URL's port or the scheme's")
    func protectionSpace() throws {
        let url = URL(string: "https://A.test/x")!
        let space = try #require(BasicAuthentication.protectionSpace(for: head(401, [#"Bearer realm="api""#, #"Basic realm="r""#]), url: url))
        #expect(space.realm == "r")
        #expect(space.port == 443)
        #expect(space.authenticationMethod == NSURLAuthenticationMethodHTTPBasic)
        #expect(BasicAuthentication.protectionSpace(for: head(401, [#"Basic realm="r""#]), url: URL(string: "http://a.test:8080/")!)?.port == 8080)
        #expect(BasicAuthentication.protectionSpace(for: head(401, [#"Bearer realm="api""#]), url: url) == nil)
        #expect(BasicAuthentication.protectionSpace(for: head(403, [#"Basic realm="r""#]), url: url) == nil)
        #expect(BasicAuthentication.protectionSpace(for: head(401, []), url: url) == nil)
    }

    @Test("each disposition's step; a refused credential is never sent again; an accepted one is returned for the storage")
    func steps() {
        let alice = URLCredential(user: "alice", password: "a", persistence: .forSession)
        let bob = URLCredential(user: "bob", password: "b", persistence: .forSession)
        var auth = BasicAuthentication()
        #expect(auth.step(for: .cancelAuthenticationChallenge, credential: alice, proposed: nil) == .cancel)
        #expect(auth.step(for: .rejectProtectionSpace, credential: alice, proposed: alice) == .deliver)
        #expect(auth.step(for: .useCredential, credential: nil, proposed: alice) == .deliver)
        #expect(auth.step(for: .performDefaultHandling, credential: nil, proposed: nil) == .deliver)
        #expect(auth.step(for: .performDefaultHandling, credential: bob, proposed: alice) == .send(alice))
        #expect(auth.answered(status: 401) == nil)
        #expect(auth.refused.map(\.user) == ["alice"])
        #expect(auth.step(for: .useCredential, credential: URLCredential(user: "alice", password: "a", persistence: .none), proposed: nil) == .deliver)
        #expect(auth.step(for: .useCredential, credential: bob, proposed: nil) == .send(bob))
        #expect(auth.answered(status: 200) === bob)
        #expect(auth.answered(status: 200) == nil)
    }

    @Test("the storage's credential is found for an equal space made again (it compares spaces by identity), and not once refused")
    func proposedFromStorage() {
        func space() -> URLProtectionSpace {
            URLProtectionSpace(host: "a.test", port: 443, protocol: "https", realm: "r", authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        }
        let storage = URLCredentialStorage()
        let alice = URLCredential(user: "alice", password: "a", persistence: .forSession)
        storage.setDefaultCredential(alice, for: space())
        var auth = BasicAuthentication()
        #expect(auth.proposedCredential(for: space(), in: storage) === alice)
        let other = URLProtectionSpace(host: "a.test", port: 443, protocol: "https", realm: "other", authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        #expect(auth.proposedCredential(for: other, in: storage) == nil)
        #expect(auth.step(for: .performDefaultHandling, credential: nil, proposed: alice) == .send(alice))
        _ = auth.answered(status: 401)
        #expect(auth.proposedCredential(for: space(), in: storage) == nil)
    }

    @Test("Authorization is Basic and the UTF-8 user-pass in base64 (RFC 7617 §2)")
    func authorization() {
        #expect(BasicAuthentication.authorization(URLCredential(user: "Aladdin", password: "open sesame", persistence: .none)) == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        #expect(BasicAuthentication.authorization(URLCredential(user: "test", password: "123£", persistence: .none)) == "Basic dGVzdDoxMjPCow==")
    }
}
