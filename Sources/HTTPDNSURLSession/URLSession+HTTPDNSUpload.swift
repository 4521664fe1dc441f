import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import HTTPDNS

/// Upload APIs that hand their body to `HTTPDNSURLProtocol` alongside the task.
///
/// swift-corelibs-foundation keeps the body of `upload(for:from:)`, `upload(for:fromFile:)`,
/// `uploadTask(with:from:)` and `uploadTask(with:fromFile:)` inside the task, and hands it to no
/// `URLProtocol`; `HTTPDNSURLProtocol` reads it from there, so Foundation's own upload APIs work
/// and these are not needed. They do not depend on where Foundation keeps the body: should a
/// Foundation update move it, the plain APIs fail with `URLError(.requestBodyStreamExhausted)` and
/// these still work. They create the same upload tasks (delegates see `URLSessionUploadTask`s) and
/// register the body for the protocol. A file body is streamed from the file, never read whole,
/// and can be sent again for a 307/308 redirect.
extension URLSession {
    /// `uploadTask(with:from:)` for sessions using `HTTPDNSURLProtocol`. Resume it as usual.
    public func httpdnsUploadTask(with request: URLRequest, from bodyData: Data) -> URLSessionUploadTask {
        let task = uploadTask(with: request, from: bodyData)
        UploadBodyRegistry.register(.data(bodyData), for: task)
        return task
    }

    /// `uploadTask(with:from:completionHandler:)` for sessions using `HTTPDNSURLProtocol`.
    public func httpdnsUploadTask(
        with request: URLRequest, from bodyData: Data,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionUploadTask {
        let task = uploadTask(with: request, from: bodyData, completionHandler: completionHandler)
        UploadBodyRegistry.register(.data(bodyData), for: task)
        return task
    }

    /// `uploadTask(with:fromFile:)` for sessions using `HTTPDNSURLProtocol`.
    public func httpdnsUploadTask(with request: URLRequest, fromFile fileURL: URL) -> URLSessionUploadTask {
        let task = uploadTask(with: request, fromFile: fileURL)
        UploadBodyRegistry.register(.file(fileURL), for: task)
        return task
    }

    /// `uploadTask(with:fromFile:completionHandler:)` for sessions using `HTTPDNSURLProtocol`.
    public func httpdnsUploadTask(
        with request: URLRequest, fromFile fileURL: URL,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionUploadTask {
        let task = uploadTask(with: request, fromFile: fileURL, completionHandler: completionHandler)
        UploadBodyRegistry.register(.file(fileURL), for: task)
        return task
    }

    /// `upload(for:from:delegate:)` for sessions using `HTTPDNSURLProtocol`.
    /// - Throws: `URLError`; cancelling the calling task cancels the upload.
    public func httpdnsUpload(
        for request: URLRequest, from bodyData: Data,
        delegate: (any URLSessionTaskDelegate)? = nil
    ) async throws -> (Data, URLResponse) {
        try await run(delegate: delegate) { self.httpdnsUploadTask(with: request, from: bodyData, completionHandler: $0) }
    }

    /// `upload(for:fromFile:delegate:)` for sessions using `HTTPDNSURLProtocol`.
    /// - Throws: `URLError`; cancelling the calling task cancels the upload.
    public func httpdnsUpload(
        for request: URLRequest, fromFile fileURL: URL,
        delegate: (any URLSessionTaskDelegate)? = nil
    ) async throws -> (Data, URLResponse) {
        try await run(delegate: delegate) { self.httpdnsUploadTask(with: request, fromFile: fileURL, completionHandler: $0) }
    }

    private func run(
        delegate: (any URLSessionTaskDelegate)?,
        _ makeTask: (@escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) -> URLSessionUploadTask
    ) async throws -> (Data, URLResponse) {
        let box = TaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = makeTask { data, response, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else if let response {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                task.delegate = delegate
                box.set(task)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
    }
}

/// The task of an `async` upload, for cancellation from another thread.
private final class TaskBox: @unchecked Sendable { // `task` and `cancelled` are guarded by `lock`
    private let lock = NSLock()
    private var task: URLSessionTask?
    private var cancelled = false

    func set(_ task: URLSessionTask) {
        lock.lock()
        self.task = task
        let cancelled = self.cancelled
        lock.unlock()
        if cancelled { task.cancel() }
    }

    func cancel() {
        lock.lock()
        cancelled = true
        let task = self.task
        lock.unlock()
        task?.cancel()
    }
}
