import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Synchronization
import HTTPDNSURLSession
import TestSupport

/// URLSessions routed through `HTTPDNSURLProtocol`, configured once per process with the suite's
/// DoH resolver and test CA.
extension Fixture {
    /// The protocol's process-wide configuration: the fixture's client, at most 5 redirects.
    func configureURLProtocol() throws {
        try URLProtocolSetup.configured.withLock { configured in
            guard !configured else { return }
            // bypass.test shows the documented way to leave requests to Foundation.
            HTTPDNSURLProtocol.configure(.init(client: try isolatedClient(), maximumRedirects: 5, handles: { $0.url?.host != "bypass.test" }))
            configured = true
        }
    }

    /// A session whose every request goes through `HTTPDNSURLProtocol`, with a cookie storage of
    /// its own.
    func urlSession(delegate: (any URLSessionDelegate)? = nil, requestTimeout: TimeInterval? = nil) throws -> URLSession {
        try configureURLProtocol()
        let configuration = URLSessionConfiguration.default
        if let requestTimeout { configuration.timeoutIntervalForRequest = requestTimeout }
        configuration.protocolClasses = [HTTPDNSURLProtocol.self]
        configuration.httpCookieStorage = .sharedCookieStorage(forGroupContainerIdentifier: "httpdns-tests-\(UUID().uuidString)")
        return URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }
}

enum URLProtocolSetup {
    static let configured = Mutex(false)
}

extension Fixture {
    /// A client whose pool (trust policy) is shared only with other clients of this method for
    /// the same version. libcurl 7.88 can put a transfer waiting to multiplex on an HTTP/1.1
    /// connection to the same host in its multi handle and hand it another transfer's response
    /// (curl issue #4885): seen here when these suites shared a pool with `.http1_1` clients of
    /// other suites. Each version gets a pool of its own.
    func isolatedClient(version: HTTPVersionPreference = .http2) throws -> HTTPClient {
        let trust = IsolatedPools.policies.withLock { policies in
            if let policy = policies[version] { return policy }
            let policy = freshTrust()
            policies[version] = policy
            return policy
        }
        return try client(trust: trust, version: version)
    }
}

enum IsolatedPools {
    static let policies = Mutex<[HTTPVersionPreference: TrustPolicy]>([:])
}

/// Resident memory of this process, from /proc/self/statm.
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}

/// Records what a data task's delegate sees, and lets a test wait for completion.
final class RecordingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable { // every field is guarded by `lock`
    private let lock = NSLock()
    private var _received = 0
    private var _chunks = 0
    private var _data = Data()
    private var _response: URLResponse?
    private var _error: (any Error)?
    private var _peakGrowth = 0
    private let completed = CompletionSignal()
    private let baseline = residentBytes()

    /// Keep the body (small responses) or only count it (large ones).
    let keepsBody: Bool
    /// Called (on the delegate queue) with each chunk and the task.
    let onChunk: (@Sendable (URLSessionDataTask, Int) -> Void)?
    /// Redirect decision; nil follows.
    let redirect: (@Sendable (HTTPURLResponse, URLRequest) -> URLRequest?)?
    /// The answer to `needNewBodyStream`: a new stream each time; nil gives none.
    let bodyStream: (@Sendable () -> InputStream?)?
    private var _redirects: [URL] = []
    private var _bodyStreamRequests = 0

    init(
        keepsBody: Bool = true, onChunk: (@Sendable (URLSessionDataTask, Int) -> Void)? = nil,
        redirect: (@Sendable (HTTPURLResponse, URLRequest) -> URLRequest?)? = nil,
        bodyStream: (@Sendable () -> InputStream?)? = nil
    ) {
        self.keepsBody = keepsBody
        self.onChunk = onChunk
        self.redirect = redirect
        self.bodyStream = bodyStream
    }

    var received: Int { lock.withLock { _received } }
    var chunks: Int { lock.withLock { _chunks } }
    var data: Data { lock.withLock { _data } }
    var response: URLResponse? { lock.withLock { _response } }
    var error: (any Error)? { lock.withLock { _error } }
    var peakGrowth: Int { lock.withLock { _peakGrowth } }
    var redirects: [URL] { lock.withLock { _redirects } }
    /// How many times `needNewBodyStream` was asked.
    var bodyStreamRequests: Int { lock.withLock { _bodyStreamRequests } }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        lock.withLock { _response = response }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let total = lock.withLock { () -> Int in
            _received += data.count
            _chunks += 1
            if keepsBody { _data.append(data) }
            if _chunks % 256 == 1 { _peakGrowth = max(_peakGrowth, residentBytes() - baseline) }
            return _received
        }
        onChunk?(dataTask, total)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        lock.withLock { if let url = request.url { _redirects.append(url) } }
        completionHandler(redirect.map { $0(response, request) } ?? request)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void) {
        lock.withLock { _bodyStreamRequests += 1 }
        completionHandler(bodyStream?())
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.withLock {
            _error = error
            _peakGrowth = max(_peakGrowth, residentBytes() - baseline)
        }
        completed.signal()
    }

    /// Returns once the task completed.
    func completion() async { await completed.wait() }
}

/// Lets a test await a delegate's `didCompleteWithError`, whether it came before or after.
final class CompletionSignal: @unchecked Sendable { // `signalled` and `waiter` are guarded by `lock`
    private let lock = NSLock()
    private var signalled = false
    private var waiter: CheckedContinuation<Void, Never>?

    func signal() {
        let waiter = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            signalled = true
            defer { self.waiter = nil }
            return self.waiter
        }
        waiter?.resume()
    }

    /// Returns once `signal()` was called.
    func wait() async {
        await withCheckedContinuation { continuation in
            let done = lock.withLock { () -> Bool in
                if signalled { return true }
                waiter = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }
}

/// Runs a completion-handler task to its end.
func complete(_ makeTask: (@escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) -> URLSessionTask) async throws -> (Data, HTTPURLResponse) {
    let result: Result<(Data, HTTPURLResponse), any Error> = await withCheckedContinuation { continuation in
        let task = makeTask { data, response, error in
            if let error {
                continuation.resume(returning: .failure(error))
            } else if let response = response as? HTTPURLResponse {
                continuation.resume(returning: .success((data ?? Data(), response)))
            } else {
                continuation.resume(returning: .failure(URLError(.badServerResponse)))
            }
        }
        task.resume()
    }
    return try result.get()
}

extension HTTPURLResponse {
    func field(_ name: String) -> String? { value(forHTTPHeaderField: name) }
}

/// Byte equality, reported as a plain Bool: a failed `#expect(a == b)` on large `Data` makes
/// Swift Testing diff the bytes, which takes minutes for a few MiB.
func sameBytes(_ a: Data, _ b: Data) -> Bool { a == b }

/// `count` random bytes from the kernel: generating 50 MiB byte by byte in a debug build takes
/// seconds of a cooperative thread, which delays every other test's continuations.
func urandom(_ count: Int) -> Data {
    guard let handle = FileHandle(forReadingAtPath: "/dev/urandom") else { return Data(count: count) }
    defer { try? handle.close() }
    return (try? handle.read(upToCount: count)) ?? Data(count: count)
}
