import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Testing
import HTTPDNSURLSession
import TestSupport

/// The delegate given to `data(for:delegate:)` and its siblings is the task's delegate: asked
/// before the session's, as with Foundation's own stack (which on swift-corelibs-foundation keeps
/// it apart from `task.delegate`).
@Suite("URLSession task delegates given to the async calls")
struct URLSessionTaskDelegateTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    /// Every call that takes a task delegate, and `task.delegate` set by hand.
    enum Call: String, CaseIterable, Sendable {
        case dataForRequest, dataFromURL, uploadFromData, uploadFromFile, downloadForRequest, downloadFromURL, taskDelegateProperty
    }

    /// Runs `call` for `url` with `delegate` as its task delegate; a download's file is read and removed.
    func run(_ call: Call, _ url: URL, session: URLSession, delegate: any URLSessionTaskDelegate) async throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: url)
        let data: Data
        let response: URLResponse
        switch call {
        case .dataForRequest: (data, response) = try await session.data(for: request, delegate: delegate)
        case .dataFromURL: (data, response) = try await session.data(from: url, delegate: delegate)
        case .uploadFromData:
            request.httpMethod = "POST"
            (data, response) = try await session.upload(for: request, from: Data("payload".utf8), delegate: delegate)
        case .uploadFromFile:
            request.httpMethod = "POST"
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-upload-\(UUID().uuidString)")
            try Data("payload".utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            (data, response) = try await session.upload(for: request, fromFile: file, delegate: delegate)
        case .downloadForRequest, .downloadFromURL:
            let (file, downloaded) =
                try await call == .downloadFromURL
                ? session.download(from: url, delegate: delegate) : session.download(for: request, delegate: delegate)
            defer { try? FileManager.default.removeItem(at: file) }
            (data, response) = (try Data(contentsOf: file), downloaded)
        case .taskDelegateProperty:
            (data, response) = try await complete { handler in
                let task = session.dataTask(with: request, completionHandler: handler)
                task.delegate = delegate
                return task
            }
        }
        return (data, try #require(response as? HTTPURLResponse))
    }

    @Test("the task delegate decides a redirect, not the session's: declined, the 302 is the response", arguments: Call.allCases)
    func taskDelegateDeclinesRedirect(call: Call) async throws {
        let sessionDelegate = RecordingDelegate()
        let taskDelegate = RecordingDelegate(redirect: { _, _ in nil })
        let session = try fixture.urlSession(delegate: sessionDelegate)
        let (data, response) = try await run(call, fixture.url("a.test", "/redirect/302/b"), session: session, delegate: taskDelegate)
        #expect(response.statusCode == 302)
        #expect(response.field("Location") == fixture.url("b.test", "/inspect").absoluteString)
        #expect(String(decoding: data, as: UTF8.self).contains("302 Found"))
        #expect(taskDelegate.redirects == [fixture.url("b.test", "/inspect")])
        #expect(sessionDelegate.redirects == [])
    }

    @Test("the task delegate may change a redirect", arguments: [Call.dataForRequest, .uploadFromData, .downloadForRequest])
    func taskDelegateChangesRedirect(call: Call) async throws {
        let elsewhere = fixture.url("b.test")
        let taskDelegate = RecordingDelegate(redirect: { _, _ in URLRequest(url: elsewhere) })
        let (data, response) = try await run(call, fixture.url("a.test", "/redirect/302"), session: fixture.urlSession(), delegate: taskDelegate)
        #expect(response.statusCode == 200)
        #expect(response.url == elsewhere)
        #expect(String(decoding: data, as: UTF8.self) == "vhost=b.test\n")
    }

    @Test("the delegate given to data(for:delegate:) gives a stream body again for a 307")
    func taskDelegateGivesNewBodyStream() async throws {
        let sessionDelegate = RecordingDelegate()
        let taskDelegate = RecordingDelegate(bodyStream: { InputStream(data: Data("abc".utf8)) })
        var request = URLRequest(url: fixture.url("a.test", "/redirect/307"))
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: Data("abc".utf8))
        let (data, _) = try await fixture.urlSession(delegate: sessionDelegate).data(for: request, delegate: taskDelegate)
        #expect(String(decoding: data, as: UTF8.self) == RedirectTests.inspect(method: "POST", host: "a.test:\(fixture.servers.httpsPort)", body: "abc"))
        #expect(taskDelegate.bodyStreamRequests == 1)
        #expect(sessionDelegate.bodyStreamRequests == 0)
    }
}
