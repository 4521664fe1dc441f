import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Testing
@testable import HTTPDNSURLSession

/// swift-corelibs-foundation hands a `URLProtocol` neither an upload's body nor a download's
/// completion handler: `HTTPDNSURLProtocol` reads them where Foundation keeps them (`TaskBody`,
/// `SessionContext`, `ReflectedCompletion`). These fail when a Foundation or Swift update moves
/// them or changes how they reflect, rather than let an upload go out empty.
@Suite("Foundation state that HTTPDNSURLProtocol reads by reflection")
struct FoundationReflectionTests {
    let session = URLSession(configuration: .ephemeral)
    let request = URLRequest(url: URL(string: "https://a.test/upload")!)
    let bytes = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    @Test("uploadTask(with:from:) keeps its body as bytes, byte-exact")
    func dataBody() throws {
        let task = session.uploadTask(with: request, from: bytes)
        guard case .data(let data) = TaskBody(of: task) else {
            Issue.record("the upload's bytes were not found in the task: Foundation moved URLSessionTask.knownBody, got \(TaskBody(of: task))")
            return
        }
        #expect(sameBytes(data, bytes))
    }

    @Test("uploadTask(with:fromFile:) keeps its file")
    func fileBody() {
        let file = URL(fileURLWithPath: "/tmp/httpdns-upload-body")
        let task = session.uploadTask(with: request, fromFile: file)
        guard case .file(let url) = TaskBody(of: task) else {
            Issue.record("the upload's file was not found in the task: Foundation moved URLSessionTask.knownBody, got \(TaskBody(of: task))")
            return
        }
        #expect(url == file)
    }

    @Test("uploadTask(withStreamedRequest:) leaves its body to the delegate, whatever the request carries")
    func streamedBody() {
        var streamed = request
        streamed.httpBodyStream = InputStream(data: bytes)
        let task = session.uploadTask(withStreamedRequest: streamed)
        guard case .fromDelegate = TaskBody(of: task) else {
            Issue.record("a streamed upload's missing body was not found: Foundation moved URLSessionTask.knownBody, got \(TaskBody(of: task))")
            return
        }
    }

    @Test("a data task keeps its request's body")
    func dataTaskBody() {
        var withBody = request
        withBody.httpBody = bytes
        let task = session.dataTask(with: withBody)
        guard case .data(let data) = TaskBody(of: task) else {
            Issue.record("a data task's body was not found: Foundation moved URLSessionTask.knownBody, got \(TaskBody(of: task))")
            return
        }
        #expect(sameBytes(data, bytes))
        let plain = session.dataTask(with: request)
        guard case .none = TaskBody(of: plain) else {
            Issue.record("a data task without body: got \(TaskBody(of: plain))")
            return
        }
    }

    /// Foundation's `_Behaviour` shape: a completion handler in a non-generic enum's payload.
    enum Behaviour {
        case downloadCompletionHandler(ReflectedCompletion.Download)
    }

    @Test("a completion handler reflected out of an enum payload receives its arguments intact on this Swift")
    func reflectedCompletionIsCallable() throws {
        #expect(ReflectedCompletion.isSound)
        let received = LockedBox<(URL?, Int?)>((nil, nil))
        let behaviour = Behaviour.downloadCompletionHandler { url, response, _ in
            received.value = (url, (response as? HTTPURLResponse)?.statusCode)
        }
        let payload = try #require(Mirror.enumCase(of: behaviour).payload)
        let completion = try #require(ReflectedCompletion.download(payload))
        let file = URL(fileURLWithPath: "/tmp/httpdns-download-probe.tmp")
        completion(file, HTTPURLResponse(url: file, statusCode: 207, httpVersion: nil, headerFields: nil), nil)
        #expect(received.value.0 == file)
        #expect(received.value.1 == 207)
    }
}

/// A value set from a closure and read after it ran.
final class LockedBox<Value>: @unchecked Sendable { // `_value` is guarded by `lock`
    private let lock = NSLock()
    private var _value: Value
    init(_ value: Value) { _value = value }
    var value: Value {
        get { lock.withLock { _value } }
        set { lock.withLock { _value = newValue } }
    }
}
