import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Testing
import HTTPDNSURLSession
import TestSupport

/// HTTP Basic authentication (RFC 7617) through `HTTPDNSURLProtocol`, against nginx's
/// `auth_basic` (`/basic`: user alice, password wonderland): a 401's challenge goes to the task
/// delegate, and the request sent again with the credential goes IP-direct as the first did.
/// Time limits: Foundation left such tasks running for ever before (swift-corelibs-foundation#5456).
@Suite("URLSession HTTP authentication through HTTPDNSURLProtocol", .timeLimit(.minutes(1)))
struct URLSessionAuthenticationTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    static let alice = URLCredential(user: "alice", password: "wonderland", persistence: .forSession)

    func session(
        _ version: HTTPVersionPreference = .http2, delegate: (any URLSessionDelegate)? = nil, storage: URLCredentialStorage? = nil
    ) throws -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [HTTPDNSURLProtocol.makeClass(for: .init(client: try fixture.isolatedClient(version: version)))]
        configuration.urlCredentialStorage = storage
        return URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    var space: URLProtectionSpace {
        URLProtectionSpace(
            host: "a.test", port: fixture.servers.httpsPort, protocol: "https", realm: "httpdns", authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
    }

    func post(_ path: String = "/basic", body: String = "the body") -> URLRequest {
        var request = URLRequest(url: fixture.url("a.test", path))
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        return request
    }

    @Test(
        "a 401 with a Basic challenge and no credential completes with the 401 and its body; its challenge reads through httpdnsAuthenticate",
        arguments: [HTTPVersionPreference.http1_1, .http2])
    func challengeWithoutCredential(version: HTTPVersionPreference) async throws {
        let (data, response) = try await session(version).data(from: fixture.url("a.test", "/challenge"))
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 401)
        #expect(http.httpdnsAuthenticate == "Basic realm=\"httpdns\"")
        #expect(String(decoding: data, as: UTF8.self) == "challenge\n")
        #if canImport(FoundationNetworking)
            #expect(http.value(forHTTPHeaderField: "WWW-Authenticate") == nil)
            #expect(http.value(forHTTPHeaderField: "X-HTTPDNS-WWW-Authenticate") == "Basic realm=\"httpdns\"")
        #endif
    }

    @Test(
        "the delegate's credential is sent again IP-direct with the body: asked once, for the 401's protection space",
        arguments: [HTTPVersionPreference.http1_1, .http2])
    func delegateCredential(version: HTTPVersionPreference) async throws {
        let delegate = ChallengeDelegate { _ in (.useCredential, Self.alice) }
        let (data, response) = try await session(version).data(for: post(), delegate: delegate)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "user=alice\nthe body")
        #expect(http.field("x-sni") == "a.test")
        let asked = delegate.challenges
        #expect(asked.count == 1)
        let challenge = try #require(asked.first)
        #expect(challenge.previousFailureCount == 0)
        #expect(challenge.proposedCredential == nil)
        #expect(challenge.failureResponse.map { ($0 as? HTTPURLResponse)?.statusCode } == 401)
        #expect(challenge.protectionSpace.host == "a.test")
        #expect(challenge.protectionSpace.port == fixture.servers.httpsPort)
        #expect(challenge.protectionSpace.realm == "httpdns")
        #expect(challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodHTTPBasic)
        #expect(challenge.protectionSpace.protocol == "https")
    }

    @Test("a refused credential is asked about again with previousFailureCount 1, and never sent twice: the 401 is the response")
    func refusedCredential() async throws {
        let wrong = URLCredential(user: "alice", password: "looking-glass", persistence: .none)
        let delegate = ChallengeDelegate { _ in (.useCredential, wrong) }
        let (data, response) = try await session(delegate: delegate).data(for: post())
        #expect((response as? HTTPURLResponse)?.statusCode == 401)
        #expect(String(decoding: data, as: UTF8.self).contains("401"))
        #expect(delegate.challenges.map(\.previousFailureCount) == [0, 1])
    }

    @Test("a delegate that cancels the challenge ends the task with URLError.cancelled")
    func cancelledChallenge() async throws {
        let delegate = ChallengeDelegate { _ in (.cancelAuthenticationChallenge, nil) }
        let error = await #expect(throws: URLError.self) { try await session(delegate: delegate).data(for: post()) }
        #expect(error?.code == .cancelled)
    }

    @Test("rejectProtectionSpace and a useCredential without a credential deliver the 401")
    func declinedChallenge() async throws {
        for answer: (URLSession.AuthChallengeDisposition, URLCredential?) in [(.rejectProtectionSpace, nil), (.useCredential, nil)] {
            let delegate = ChallengeDelegate { _ in answer }
            let (_, response) = try await session(delegate: delegate).data(for: post())
            #expect((response as? HTTPURLResponse)?.statusCode == 401)
            #expect(delegate.challenges.count == 1)
        }
    }

    @Test("without a delegate, the storage's credential for the space is sent (default handling); an accepted credential is stored")
    func storedCredential() async throws {
        let storage = URLCredentialStorage()
        storage.setDefaultCredential(Self.alice, for: space)
        let (data, response) = try await session(storage: storage).data(for: post())
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "user=alice\nthe body")

        // Given by the delegate, kept for the session: proposed with the next challenge.
        let empty = URLCredentialStorage()
        let giving = ChallengeDelegate { _ in (.useCredential, Self.alice) }
        let session = try session(delegate: giving, storage: empty)
        _ = try await session.data(for: post())
        // swift-corelibs-foundation's URLProtectionSpace compares by identity: look it up by value.
        let stored = empty.allCredentials.first { $0.key.host == "a.test" && $0.key.realm == "httpdns" }?.value
        #expect(stored?["alice"]?.password == "wonderland")
        let defaulting = ChallengeDelegate { _ in (.performDefaultHandling, nil) }
        let (again, _) = try await session.data(for: post(), delegate: defaulting)
        #expect(String(decoding: again, as: UTF8.self) == "user=alice\nthe body")
        #expect(defaulting.challenges.first?.proposedCredential?.user == "alice")
    }

    @Test("a streamed body is asked for again (needNewBodyStream) when the credential is sent")
    func streamedBodyAgain() async throws {
        let delegate = ChallengeDelegate(bodyStream: { InputStream(data: Data("streamed".utf8)) }, answer: { _ in (.useCredential, Self.alice) })
        var request = post()
        request.httpBody = nil
        request.httpBodyStream = InputStream(data: Data("streamed".utf8))
        request.setValue("8", forHTTPHeaderField: "Content-Length")
        let (data, response) = try await session(delegate: delegate).data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "user=alice\nstreamed")
        #expect(delegate.bodyStreamRequests == 1)
    }

    @Test("a 401 offering only Bearer is the response: no delegate is asked, its challenge reads through httpdnsAuthenticate")
    func bearerChallenge() async throws {
        let delegate = ChallengeDelegate { _ in (.useCredential, Self.alice) }
        let (data, response) = try await session(delegate: delegate).data(from: fixture.url("a.test", "/challenge/bearer"))
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 401)
        #expect(http.httpdnsAuthenticate == "Bearer realm=\"api\", error=\"invalid_token\"")
        #expect(String(decoding: data, as: UTF8.self) == "bearer\n")
        #expect(delegate.challenges.isEmpty)
    }
}

/// Answers authentication challenges with `answer`, recording each; gives `bodyStream` for
/// `needNewBodyStream`.
final class ChallengeDelegate: NSObject, URLSessionTaskDelegate, @unchecked Sendable { // fields guarded by `lock`
    private let lock = NSLock()
    private var _challenges: [URLAuthenticationChallenge] = []
    private var _bodyStreamRequests = 0
    let answer: @Sendable (URLAuthenticationChallenge) -> (URLSession.AuthChallengeDisposition, URLCredential?)
    let bodyStream: (@Sendable () -> InputStream?)?

    init(
        bodyStream: (@Sendable () -> InputStream?)? = nil,
        answer: @escaping @Sendable (URLAuthenticationChallenge) -> (URLSession.AuthChallengeDisposition, URLCredential?)
    ) {
        self.answer = answer
        self.bodyStream = bodyStream
    }

    var challenges: [URLAuthenticationChallenge] { lock.withLock { _challenges } }
    var bodyStreamRequests: Int { lock.withLock { _bodyStreamRequests } }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        lock.withLock { _challenges.append(challenge) }
        let (disposition, credential) = answer(challenge)
        completionHandler(disposition, credential)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void) {
        lock.withLock { _bodyStreamRequests += 1 }
        completionHandler(bodyStream?())
    }
}
