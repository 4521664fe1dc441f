import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import HTTPDNSURLSession
import TestSupport

extension Fixture {
    /// A protocol class of its own whose download files go to `directory`, with the suite's
    /// client, at most 5 redirects.
    func downloadProtocolClass(directory: URL) throws -> HTTPDNSURLProtocol.Type {
        var configuration = HTTPDNSURLProtocol.Configuration(client: try isolatedClient(), maximumRedirects: 5)
        configuration.downloadsDirectory = directory
        return HTTPDNSURLProtocol.makeClass(for: configuration)
    }

    /// A session whose requests go through `protocolClass`, with a cookie storage of its own.
    func urlSession(protocolClass: AnyClass, delegate: (any URLSessionDelegate)? = nil) -> URLSession {
        let configuration = URLSessionConfiguration.default
        configuration.protocolClasses = [protocolClass]
        configuration.httpCookieStorage = .sharedCookieStorage(forGroupContainerIdentifier: "httpdns-tests-\(UUID().uuidString)")
        return URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }
}

/// The names in `directory`, after waiting up to two seconds for it to empty: a file is removed
/// on its writer's queue, just after the task reports its end.
func remainingFiles(in directory: URL) async throws -> [String] {
    for _ in 0..<20 {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        if names.isEmpty { return [] }
        try await Task.sleep(for: .milliseconds(100))
    }
    return try FileManager.default.contentsOfDirectory(atPath: directory.path)
}

/// Records what a download task's delegate sees, in order. Also a data delegate, as Alamofire's
/// `SessionDelegate` is: swift-corelibs-foundation crashes when it tells such a delegate of a
/// download task's data, so this shape must never reach it.
final class DownloadRecorder: NSObject, URLSessionDownloadDelegate, URLSessionDataDelegate, @unchecked Sendable { // every field is guarded by `lock`
    enum Event: Equatable, Sendable {
        case wrote(bytes: Int64, total: Int64, expected: Int64)
        case finished
        case completed
    }

    private let lock = NSLock()
    private var _events: [Event] = []
    private var _file: Data?
    private var _location: URL?
    private var _locationRemained = false
    private var _error: (any Error)?
    private var _redirects: [URL] = []
    private let completed = CompletionSignal()
    /// Redirect decision; nil follows.
    let redirect: (@Sendable (HTTPURLResponse, URLRequest) -> URLRequest?)?
    /// Called (on the delegate queue) after each write with the task and the total written.
    let onWrite: (@Sendable (URLSessionDownloadTask, Int64) -> Void)?

    init(redirect: (@Sendable (HTTPURLResponse, URLRequest) -> URLRequest?)? = nil, onWrite: (@Sendable (URLSessionDownloadTask, Int64) -> Void)? = nil) {
        self.redirect = redirect
        self.onWrite = onWrite
    }

    var events: [Event] { lock.withLock { _events } }
    /// The file's contents, read in `didFinishDownloadingTo`.
    var file: Data? { lock.withLock { _file } }
    var location: URL? { lock.withLock { _location } }
    /// True when the file was still there at `didCompleteWithError`: it must be removed once
    /// `didFinishDownloadingTo` returns.
    var locationRemained: Bool { lock.withLock { _locationRemained } }
    var error: (any Error)? { lock.withLock { _error } }
    var redirects: [URL] { lock.withLock { _redirects } }
    var written: Int64 {
        events.reduce(0) { sum, event in
            if case .wrote(let bytes, _, _) = event { return sum + bytes }
            return sum
        }
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64
    ) {
        lock.withLock { _events.append(.wrote(bytes: bytesWritten, total: totalBytesWritten, expected: totalBytesExpectedToWrite)) }
        onWrite?(downloadTask, totalBytesWritten)
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        let contents = try? Data(contentsOf: location)
        lock.withLock {
            _events.append(.finished)
            _file = contents
            _location = location
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        lock.withLock { if let url = request.url { _redirects.append(url) } }
        completionHandler(redirect.map { $0(response, request) } ?? request)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.withLock {
            _events.append(.completed)
            _error = error
            _locationRemained = _location.map { FileManager.default.fileExists(atPath: $0.path) } ?? false
        }
        completed.signal()
    }

    /// Returns once the task completed.
    func completion() async { await completed.wait() }
}
