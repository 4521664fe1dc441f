import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a protocol needs to know about the session of its task, which Foundation does not expose
/// to a `URLProtocol`: the session itself (for its delegate, delegate queue, cookie storage,
/// additional headers and resource timeout) and how the task delivers its results.
///
/// swift-corelibs-foundation keeps the session in the task's internal `session` property and the
/// task's delivery (the completion handler and the delegate passed to `data(for:delegate:)` and
/// its siblings) in the session's internal `taskRegistry`; both are read with `Mirror`. When a
/// future Foundation changes them, `session` is nil and `delivery` `.unknown`: a data task still
/// works, redirects are followed without asking a delegate, cookies use
/// `Configuration.fallbackCookieStorage`, and the body arrives in one piece; a download task fails
/// with `HTTPDNSURLProtocolError.downloadDeliveryNotFound`.
struct SessionContext: @unchecked Sendable { // the session, task, delegates and completion handler are thread-safe Foundation objects, used as Foundation documents
    typealias DownloadCompletion = ReflectedCompletion.Download

    /// How Foundation delivers a task's results (`URLSession._TaskRegistry._Behaviour`).
    enum Delivery {
        /// To the session's delegate: tasks made without a completion handler.
        case sessionDelegate
        /// To a completion handler (`dataTask(with:completionHandler:)`, `data(for:delegate:)`,
        /// the upload equivalents), with the delegate given to the `async` call, if any.
        case dataCompletion(taskDelegate: (any URLSessionTaskDelegate)?)
        /// To a download completion handler: `downloadTask(with:completionHandler:)`, or
        /// `download(for:delegate:)` (`isAsync`, whose file the caller owns and removes).
        case downloadCompletion(DownloadCompletion, taskDelegate: (any URLSessionTaskDelegate)?, isAsync: Bool)
        /// Not found: Foundation changed.
        case unknown
    }

    let task: URLSessionTask?
    let session: URLSession?
    let delivery: Delivery

    /// Must run where Foundation calls `startLoading` (the session's work queue), which is where
    /// the task registry may be read.
    init(task: URLSessionTask?) {
        self.task = task
        guard let task, let session = Mirror.storedProperty(of: task, named: "session") as? URLSession else {
            session = nil
            delivery = .unknown
            return
        }
        self.session = session
        guard let registry = Mirror.storedProperty(of: session, named: "taskRegistry"),
            let behaviours = Mirror.storedProperty(of: registry, named: "behaviours") as? [Int: Any],
            let behaviour = behaviours[task.taskIdentifier]
        else {
            delivery = .unknown
            return
        }
        delivery = Self.delivery(of: behaviour)
    }

    private static func delivery(of behaviour: Any) -> Delivery {
        let (name, payload) = Mirror.enumCase(of: behaviour)
        let values = payload.map(Mirror.elements(of:)) ?? []
        // The second value is an optional delegate: `as?` unwraps it, nil when none was given.
        let taskDelegate = values.count > 1 ? values[1] as? any URLSessionTaskDelegate : nil
        switch name {
        case "callDelegate": return .sessionDelegate
        case "dataCompletionHandler", "dataCompletionHandlerWithTaskDelegate": return .dataCompletion(taskDelegate: taskDelegate)
        case "downloadCompletionHandler", "downloadCompletionHandlerWithTaskDelegate":
            guard let completion = values.first.flatMap(ReflectedCompletion.download) else { return .unknown }
            return .downloadCompletion(completion, taskDelegate: taskDelegate, isAsync: name == "downloadCompletionHandlerWithTaskDelegate")
        default: return .unknown
        }
    }

    /// True when the session's delegate receives the body (`urlSession(_:dataTask:didReceive:)`);
    /// false for completion handlers and `async` calls, which on swift-corelibs-foundation keep
    /// only the last chunk a protocol delivers, and when unknown.
    var streamsChunks: Bool {
        if case .sessionDelegate = delivery { return true }
        return false
    }

    /// The delegate asked the task's questions (redirects, a new body stream) and told about its
    /// download: the one given to `data(for:delegate:)` or its siblings, else the task's own
    /// (`task.delegate`), else the session's.
    var taskDelegate: (any URLSessionTaskDelegate)? {
        switch delivery {
        case .dataCompletion(let delegate?), .downloadCompletion(_, let delegate?, _): delegate
        default: task?.delegate ?? (session?.delegate as? any URLSessionTaskDelegate)
        }
    }

    /// Who is told a download's progress (`didWriteData`) and, for a task without a completion
    /// handler, its file (`didFinishDownloadingTo`): the task delegate when it is a download
    /// delegate. A completion handler's task tells only a delegate given with it, as Foundation's
    /// own stack does.
    var downloadDelegate: (any URLSessionDownloadDelegate)? {
        switch delivery {
        case .sessionDelegate: taskDelegate as? any URLSessionDownloadDelegate
        case .downloadCompletion(_, let delegate, _): delegate as? any URLSessionDownloadDelegate
        case .dataCompletion, .unknown: nil
        }
    }

    /// True when Foundation's `urlProtocolDidFinishLoading` can complete this download task:
    /// it reads the file from state a custom protocol cannot set, so only when it has nobody to
    /// give the file to (the session's delegate is no download delegate), and when the delegate it
    /// tells of the completion is the task delegate, or there is none.
    var foundationCompletesDownload: Bool {
        guard case .sessionDelegate = delivery, let session else { return false }
        guard let sessionDelegate = session.delegate as? any URLSessionTaskDelegate else { return true }
        guard !(sessionDelegate is any URLSessionDownloadDelegate) else { return false }
        return taskDelegate.map { $0 === sessionDelegate } ?? true
    }

    /// The cookie storage to read and fill, or nil when cookies are off for `request`.
    func cookieStorage(for request: URLRequest, fallback: HTTPCookieStorage?) -> HTTPCookieStorage? {
        guard request.httpShouldHandleCookies else { return nil }
        guard let session else { return fallback }
        guard session.configuration.httpShouldSetCookies else { return nil }
        return session.configuration.httpCookieStorage
    }

    /// Keeps a credential the server accepted in the session's credential storage, as Foundation
    /// does, unless its persistence is `.none`: the next challenge for `space` proposes it.
    func store(_ credential: URLCredential, for space: URLProtectionSpace) {
        guard credential.persistence != .none, let storage = session?.configuration.urlCredentialStorage else { return }
        let space = BasicAuthentication.storedSpace(matching: space, in: storage) ?? space
        if let task { storage.set(credential, for: space, task: task) } else { storage.set(credential, for: space) }
    }
}
