import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import HTTPDNS

/// HTTP Basic authentication (RFC 7617) for one load: which 401s go to the task delegate, the
/// credential sent again after each answer, and the credentials already refused.
///
/// Only Basic is answered, as swift-corelibs-foundation's own stack does; a 401 offering another
/// scheme (Bearer, Digest) is the load's response. A credential the server refused is never sent
/// again, so a delegate that keeps giving it (or a stored one that is wrong) ends in the 401
/// rather than a loop.
struct BasicAuthentication {
    /// What to do with a challenge's answer.
    enum Step: Equatable {
        /// Send the request again with this `Authorization` value.
        case send(URLCredential)
        /// The 401 is the response.
        case deliver
        /// The delegate cancelled the challenge: the load fails with `URLError.cancelled`, as on
        /// Apple platforms.
        case cancel
    }

    /// The credentials sent and answered with another 401, oldest first.
    private(set) var refused: [URLCredential] = []
    /// The credential of the request in flight, if it carries one.
    private(set) var pending: URLCredential?

    /// The protection space of a 401 received for `url`, or nil when `head` offers no Basic
    /// challenge (or `url` has no host or is not http(s)).
    static func protectionSpace(for head: HTTPResponseHead, url: URL) -> URLProtectionSpace? {
        guard head.status == 401, let host = url.host, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let basic = HTTPAuthenticationChallenge.parse(head.headers[all: "WWW-Authenticate"].joined(separator: ", ")).first(where: {
                $0.isScheme("Basic")
            })
        else { return nil }
        return URLProtectionSpace(
            host: host, port: url.port ?? (scheme == "http" ? 80 : 443), protocol: scheme, realm: basic.realm,
            authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
    }

    /// The credential offered with the challenge (`proposedCredential`): `storage`'s default for
    /// the space, else its first by user name; nil when it has none or that one was refused.
    func proposedCredential(for space: URLProtectionSpace, in storage: URLCredentialStorage?) -> URLCredential? {
        guard let storage, let stored = Self.storedSpace(matching: space, in: storage) else { return nil }
        let credential = storage.defaultCredential(for: stored) ?? storage.credentials(for: stored)?.sorted { $0.key < $1.key }.first?.value
        return credential.flatMap { isRefused($0) ? nil : $0 }
    }

    /// The space `storage` keeps credentials under that equals `space` (host case-insensitively,
    /// port, protocol, realm, method). swift-corelibs-foundation's `URLProtectionSpace` compares
    /// by identity, so its storage finds nothing for a space made again from the next 401.
    static func storedSpace(matching space: URLProtectionSpace, in storage: URLCredentialStorage) -> URLProtectionSpace? {
        storage.allCredentials.keys.first {
            $0.host.lowercased() == space.host.lowercased() && $0.port == space.port && $0.protocol?.lowercased() == space.protocol?.lowercased()
                && $0.realm == space.realm && $0.authenticationMethod == space.authenticationMethod
        }
    }

    /// The challenge for the delegate: `previousFailureCount` counts the refused credentials.
    func challenge(for space: URLProtectionSpace, proposing credential: URLCredential?, response: HTTPURLResponse) -> URLAuthenticationChallenge {
        URLAuthenticationChallenge(
            protectionSpace: space, proposedCredential: credential, previousFailureCount: refused.count, failureResponse: response, error: nil,
            sender: IgnoredChallengeSender())
    }

    /// The step for the delegate's answer (`urlSession(_:task:didReceive:completionHandler:)`):
    /// `.useCredential` sends its credential, `.performDefaultHandling` the proposed one; either
    /// delivers the 401 when there is none (or it has no user or was refused).
    /// `.rejectProtectionSpace` delivers it (one space per response, as Foundation's own stack),
    /// `.cancelAuthenticationChallenge` cancels.
    mutating func step(
        for disposition: URLSession.AuthChallengeDisposition, credential: URLCredential?, proposed: URLCredential?
    ) -> Step {
        let chosen: URLCredential?
        switch disposition {
        case .useCredential: chosen = credential
        case .performDefaultHandling: chosen = proposed
        case .cancelAuthenticationChallenge: return .cancel
        case .rejectProtectionSpace: return .deliver
        @unknown default: return .deliver
        }
        guard let chosen, chosen.user != nil, !isRefused(chosen) else { return .deliver }
        pending = chosen
        return .send(chosen)
    }

    /// Notes the response to the request that carried `pending`: a 401 refused it.
    /// - Returns: The credential the server accepted (another status), for the storage.
    mutating func answered(status: Int) -> URLCredential? {
        guard let pending else { return nil }
        self.pending = nil
        guard status == 401 else { return pending }
        refused.append(pending)
        return nil
    }

    private func isRefused(_ credential: URLCredential) -> Bool {
        refused.contains { $0.user == credential.user && $0.password == credential.password }
    }

    /// `Authorization`'s value for `credential`: the user-pass in UTF-8, base64 (RFC 7617 §2).
    static func authorization(_ credential: URLCredential) -> String {
        "Basic " + Data("\(credential.user ?? ""):\(credential.password ?? "")".utf8).base64EncodedString()
    }
}

/// The challenge's sender: the session API answers through the completion handler, so the
/// sender's messages (the older API) are not used.
private final class IgnoredChallengeSender: NSObject, URLAuthenticationChallengeSender, @unchecked Sendable { // stateless
    func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {}
    func continueWithoutCredential(for challenge: URLAuthenticationChallenge) {}
    func cancel(_ challenge: URLAuthenticationChallenge) {}
    func performDefaultHandling(for challenge: URLAuthenticationChallenge) {}
    func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) {}
}
