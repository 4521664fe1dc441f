import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Testing
import HTTPDNSURLSession
import TestSupport

/// Download tasks through `HTTPDNSURLProtocol`, as Foundation's own stack runs them and as
/// Alamofire's `DownloadRequest` uses them (`downloadTask(with:)` and a session delegate that is a
/// data and download delegate at once). Each test has a downloads directory of its own, which
/// must be empty at its end. Serialized: the large bodies must not overlap.
@Suite("URLSession download tasks through HTTPDNSURLProtocol", .serialized)
struct URLSessionDownloadTests {
    let fixture: Fixture
    let directory: URL
    let protocolClass: HTTPDNSURLProtocol.Type

    init() throws {
        fixture = try Fixture()
        directory = try fixture.scratchDirectory("downloads")
        protocolClass = try fixture.downloadProtocolClass(directory: directory)
    }

    var large: Data { get throws { try Data(contentsOf: fixture.servers.largeFile) } }

    /// Runs a download task of `path` on `host` in a session whose delegate is `recorder`, to its end.
    @discardableResult
    func download(_ host: String, _ path: String = "/", recorder: DownloadRecorder) async -> URLSessionDownloadTask {
        let task = fixture.urlSession(protocolClass: protocolClass, delegate: recorder).downloadTask(with: fixture.url(host, path))
        task.resume()
        await recorder.completion()
        return task
    }

    func isInDirectory(_ file: URL) -> Bool {
        file.deletingLastPathComponent().standardizedFileURL.path == directory.standardizedFileURL.path
    }

    func expectNoFilesLeft() async throws {
        #expect(try await remainingFiles(in: directory) == [])
        try FileManager.default.removeItem(at: directory)
    }

    /// The delegate's events are progress, then the file, then the completion; the progress adds
    /// up to `size`, each write's total is the running sum and its expected total `expected`.
    func expectProgress(_ recorder: DownloadRecorder, size: Int64, expected: Int64, finished: Bool = true) {
        let events = recorder.events
        let writes = events.compactMap { event -> (Int64, Int64, Int64)? in
            if case .wrote(let bytes, let total, let expected) = event { return (bytes, total, expected) }
            return nil
        }
        #expect(writes.count > 1)
        #expect(recorder.written == size)
        var sum: Int64 = 0
        let consistent = writes.allSatisfy { bytes, total, expectedTotal in
            sum += bytes
            return total == sum && expectedTotal == expected
        }
        #expect(consistent)
        #expect(Array(events.dropFirst(writes.count)) == (finished ? [.finished, .completed] : []))
    }

    @Test("downloadTask(with:) streams to a file: didWriteData as it arrives, the file at didFinishDownloadingTo, removed after, then didCompleteWithError(nil)")
    func delegateDownload() async throws {
        let recorder = DownloadRecorder()
        let task = await download("a.test", "/large", recorder: recorder)
        #expect(recorder.error == nil)
        let expected = try large
        #expect(sameBytes(recorder.file ?? Data(), expected))
        expectProgress(recorder, size: Int64(expected.count), expected: Int64(expected.count))
        #expect(recorder.location.map(isInDirectory) == true)
        #expect(!recorder.locationRemained)
        #expect((task.response as? HTTPURLResponse)?.statusCode == 200)
        try await expectNoFilesLeft()
    }

    @Test("a download task's own delegate gets the file and the completion; Foundation closes a task of a session without delegate")
    func taskDelegateDownload() async throws {
        let recorder = DownloadRecorder()
        let task = fixture.urlSession(protocolClass: protocolClass).downloadTask(with: fixture.url("b.test"))
        task.delegate = recorder
        task.resume()
        await recorder.completion()
        #expect(recorder.error == nil)
        #expect(recorder.file.map { String(decoding: $0, as: UTF8.self) } == "vhost=b.test\n")
        #expect(recorder.events.last == .completed)
        #expect(!recorder.locationRemained)
        var state = task.state
        for _ in 0..<20 where state != .completed {
            try await Task.sleep(for: .milliseconds(100))
            state = task.state
        }
        #expect(state == .completed)
        try await expectNoFilesLeft()
    }

    @Test("download(for:delegate:) returns the file, which the caller owns, and tells the delegate given to it the progress")
    func asyncDownload() async throws {
        let recorder = DownloadRecorder()
        let session = fixture.urlSession(protocolClass: protocolClass)
        let (file, response) = try await session.download(for: URLRequest(url: fixture.url("a.test", "/large")), delegate: recorder)
        let expected = try large
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(sameBytes(try Data(contentsOf: file), expected))
        expectProgress(recorder, size: Int64(expected.count), expected: Int64(expected.count), finished: false)
        try FileManager.default.removeItem(at: file)

        let (plain, _) = try await session.download(from: fixture.url("b.test"))
        #expect(String(decoding: try Data(contentsOf: plain), as: UTF8.self) == "vhost=b.test\n")
        try FileManager.default.removeItem(at: plain)
        try await expectNoFilesLeft()
    }

    @Test("downloadTask(with:completionHandler:) hands the file to the handler, and removes it once the handler returns")
    func completionHandlerDownload() async throws {
        let session = fixture.urlSession(protocolClass: protocolClass)
        let (contents, location, response, error): (Data?, URL?, URLResponse?, (any Error)?) = await withCheckedContinuation { continuation in
            session.downloadTask(with: fixture.url("a.test", "/large")) { location, response, error in
                continuation.resume(returning: (location.flatMap { try? Data(contentsOf: $0) }, location, response, error))
            }.resume()
        }
        #expect(error == nil)
        #expect(sameBytes(contents ?? Data(), try large))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(location.map(isInDirectory) == true)
        try await expectNoFilesLeft()
    }

    @Test("cancelling a download mid-transfer reports URLError.cancelled and leaves no file")
    func cancelledDelegateDownload() async throws {
        let recorder = DownloadRecorder(onWrite: { task, total in
            if total >= 1 << 20 { task.cancel() }
        })
        await download("a.test", "/huge", recorder: recorder)
        #expect((recorder.error as? URLError)?.code == .cancelled)
        #expect(!recorder.events.contains(.finished))
        #expect(recorder.written < 64 << 20)
        try await expectNoFilesLeft()
    }

    @Test("cancelling the task awaiting download(for:) stops it and leaves no file")
    func cancelledAsyncDownload() async throws {
        let started = AsyncStream<Void>.makeStream()
        let recorder = DownloadRecorder(onWrite: { _, total in
            if total >= 1 << 20 { started.continuation.yield() }
        })
        let session = fixture.urlSession(protocolClass: protocolClass)
        let download = Task { try await session.download(for: URLRequest(url: fixture.url("a.test", "/huge")), delegate: recorder) }
        for await _ in started.stream { break }
        download.cancel()
        let error = await #expect(throws: URLError.self) { try await download.value }
        #expect(error?.code == .cancelled)
        try await expectNoFilesLeft()
    }

    @Test("a failed download reports its URLError to the delegate or the caller and leaves no file")
    func failedDownload() async throws {
        let recorder = DownloadRecorder()
        await download("wrong.test", recorder: recorder)
        #expect((recorder.error as? URLError)?.code == .serverCertificateUntrusted)
        #expect(recorder.events == [.completed])

        let session = fixture.urlSession(protocolClass: protocolClass)
        let error = await #expect(throws: URLError.self) { try await session.download(from: fixture.url("nope.test")) }
        #expect(error?.code == .cannotFindHost)
        try await expectNoFilesLeft()
    }

    @Test("a download follows redirects IP-direct; declined, the redirect response is what is downloaded")
    func downloadRedirects() async throws {
        let following = DownloadRecorder()
        await download("a.test", "/redirect/302/b", recorder: following)
        #expect(following.redirects == [fixture.url("b.test", "/inspect")])
        #expect(following.file.map { String(decoding: $0, as: UTF8.self) } == RedirectTests.inspect(method: "GET", host: "b.test:\(fixture.servers.httpsPort)"))

        let declining = DownloadRecorder(redirect: { _, _ in nil })
        let task = await download("a.test", "/redirect/302/b", recorder: declining)
        #expect(declining.error == nil)
        #expect((task.response as? HTTPURLResponse)?.statusCode == 302)
        #expect(declining.file.map { String(decoding: $0, as: UTF8.self) }?.contains("302 Found") == true)
        try await expectNoFilesLeft()
    }

    @Test("a compressed body is written decoded, its expected length unknown (the Content-Length counts the coded bytes)")
    func compressedDownload() async throws {
        let recorder = DownloadRecorder()
        await download("a.test", "/gzip", recorder: recorder)
        #expect(recorder.error == nil)
        #expect(recorder.file.map { String(decoding: $0, as: UTF8.self) } == String(repeating: "compressible ", count: 64) + "\n")
        #expect(recorder.events.contains { if case .wrote(_, _, NSURLSessionTransferSizeUnknown) = $0 { true } else { false } })
        try await expectNoFilesLeft()
    }
}
