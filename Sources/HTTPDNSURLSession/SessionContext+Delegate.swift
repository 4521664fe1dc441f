import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension SessionContext {
    /// Asks the task delegate (`taskDelegate`: the one given to `data(for:delegate:)` and its
    /// siblings, else the task's, else the session's) about a redirect, on the session's delegate
    /// queue (`urlSession(_:task:willPerformHTTPRedirection:newRequest:completionHandler:)`).
    /// - Returns: The request to send (maybe changed by the delegate), or nil when it declines.
    ///   Without a session or delegate: `newRequest`.
    func willPerformRedirection(_ response: HTTPURLResponse, newRequest: URLRequest) async -> URLRequest? {
        guard let session, let task, let delegate = taskDelegate.map(DelegateBox.init) else { return newRequest }
        return await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            session.delegateQueue.addOperation {
                delegate.delegate.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: newRequest) {
                    once.resume($0)
                }
            }
        }
    }

    /// Asks the task delegate about an authentication challenge
    /// (`urlSession(_:task:didReceive:completionHandler:)`) on the session's delegate queue.
    /// - Returns: Its disposition and credential; without a session or delegate
    ///   `.performDefaultHandling`, as Foundation's default implementation answers.
    func answer(_ challenge: URLAuthenticationChallenge) async -> Answer {
        guard let session, let task, let delegate = taskDelegate.map(DelegateBox.init) else { return Answer(disposition: .performDefaultHandling) }
        let box = ChallengeBox(challenge: challenge)
        return await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            session.delegateQueue.addOperation {
                delegate.delegate.urlSession(session, task: task, didReceive: box.challenge) { disposition, credential in
                    once.resume(Answer(disposition: disposition, credential: credential))
                }
            }
        }
    }

    /// A delegate's answer to a challenge.
    struct Answer: @unchecked Sendable { // URLCredential is immutable
        let disposition: URLSession.AuthChallengeDisposition
        var credential: URLCredential? = nil
    }

    /// A fresh copy of the body stream from the task delegate (`urlSession(_:task:needNewBodyStream:)`),
    /// for a streamed upload task and for a redirect that must send the body again; nil when it
    /// has none.
    func newBodyStream() async -> InputStream? {
        guard let session, let task, let delegate = taskDelegate.map(DelegateBox.init) else { return nil }
        let box: StreamBox = await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            session.delegateQueue.addOperation {
                delegate.delegate.urlSession(session, task: task, needNewBodyStream: { once.resume(StreamBox(stream: $0)) })
            }
        }
        return box.stream
    }
}

/// Carries the delegate onto the delegate queue, where Foundation calls it anyway.
private struct DelegateBox: @unchecked Sendable { // used only on the session's delegate queue, as Foundation does
    let delegate: any URLSessionTaskDelegate
}

/// A challenge handed to the delegate queue, read only there.
private struct ChallengeBox: @unchecked Sendable { // immutable
    let challenge: URLAuthenticationChallenge
}

/// An input stream handed from the delegate queue to the loading task, its only user afterwards.
private struct StreamBox: @unchecked Sendable { // handed over once, never shared
    let stream: InputStream?
}

/// Resumes a continuation at most once: a delegate that calls its completion handler twice must
/// not crash the process.
private final class ResumeOnce<Value: Sendable>: @unchecked Sendable { // `continuation` is guarded by `lock`
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Value, Never>?

    init(_ continuation: CheckedContinuation<Value, Never>) {
        self.continuation = continuation
    }

    func resume(_ value: Value) {
        lock.lock()
        let continuation = self.continuation
        self.continuation = nil
        lock.unlock()
        continuation?.resume(returning: value)
    }
}
