import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a protocol needs to know about the session of its task, which Foundation does not expose
/// to a `URLProtocol`: the session itself (for its delegate, delegate queue, cookie storage,
/// additional headers and resource timeout) and how the task delivers data.
///
/// swift-corelibs-foundation keeps the session in the task's internal `session` property and the
/// task's delivery in the session's internal `taskRegistry`; both are read with `Mirror`. When a
/// future Foundation changes them, `session` is nil and `streamsChunks` false: the request still
/// works, redirects are followed without asking a delegate, cookies use
/// `Configuration.fallbackCookieStorage`, and the body arrives in one piece.
struct SessionContext: @unchecked Sendable { // the session, task and delegate are thread-safe Foundation objects used as Foundation documents
    let task: URLSessionTask?
    let session: URLSession?
    /// True when the session's delegate receives the body (`urlSession(_:dataTask:didReceive:)`);
    /// false for completion handlers and `async` calls, which on swift-corelibs-foundation keep
    /// only the last chunk a protocol delivers, and when unknown.
    let streamsChunks: Bool

    /// Must run where Foundation calls `startLoading` (the session's work queue), which is where
    /// the task registry may be read.
    init(task: URLSessionTask?) {
        self.task = task
        guard let task, let session = Self.child(of: task, named: "session").flatMap({ $0 as? URLSession }) else {
            session = nil
            streamsChunks = false
            return
        }
        self.session = session
        var delivery: String?
        if let registry = Self.child(of: session, named: "taskRegistry"),
            let behaviours = Self.child(of: registry, named: "behaviours") as? [Int: Any],
            let behaviour = behaviours[task.taskIdentifier]
        {
            delivery = Mirror(reflecting: behaviour).children.first?.label ?? String(describing: behaviour)
        }
        streamsChunks = delivery == "callDelegate"
    }

    /// The delegate that decides redirects: the task's own, else the session's.
    var taskDelegate: (any URLSessionTaskDelegate)? {
        task?.delegate ?? (session?.delegate as? any URLSessionTaskDelegate)
    }

    /// The cookie storage to read and fill, or nil when cookies are off for `request`.
    func cookieStorage(for request: URLRequest, fallback: HTTPCookieStorage?) -> HTTPCookieStorage? {
        guard request.httpShouldHandleCookies else { return nil }
        guard let session else { return fallback }
        guard session.configuration.httpShouldSetCookies else { return nil }
        return session.configuration.httpCookieStorage
    }

    private static func child(of value: Any, named label: String) -> Any? {
        var mirror: Mirror? = Mirror(reflecting: value)
        while let current = mirror {
            if let match = current.children.first(where: { $0.label == label }) { return match.value }
            mirror = current.superclassMirror
        }
        return nil
    }
}
