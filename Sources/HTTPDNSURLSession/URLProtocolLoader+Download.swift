import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Download tasks. swift-corelibs-foundation gives a custom protocol's download task neither a
/// file nor progress: `urlProtocol(_:didLoad:)` writes nothing for it (and, told of a download
/// task, a session delegate that is also a data delegate crashes), and `urlProtocolDidFinishLoading`
/// reads the file from protocol state only Foundation's own protocol can set. So the body goes to
/// a `DownloadFile` here, and the file, progress and completion go to the task's delegate or
/// completion handler from here, on the session's delegate queue, as Foundation's own stack
/// sends them.
extension URLProtocolLoader {
    /// The file for a download task, whose progress goes to its download delegate; nil for other
    /// tasks.
    /// - Throws: `.downloadDeliveryNotFound` when the task's completion handler or delegate cannot
    ///   be found, before anything is sent.
    func makeDownloadFile(url: URL, configuration: HTTPDNSURLProtocol.Configuration) throws -> DownloadFile? {
        guard let task = context.task as? URLSessionDownloadTask else { return nil }
        guard let session = context.session else { throw HTTPDNSURLProtocolError.downloadDeliveryNotFound(url) }
        switch context.delivery {
        case .sessionDelegate, .downloadCompletion: break
        case .dataCompletion, .unknown: throw HTTPDNSURLProtocolError.downloadDeliveryNotFound(url)
        }
        let delegate = context.downloadDelegate
        let file = DownloadFile(directory: configuration.downloadsDirectory ?? FileManager.default.temporaryDirectory) { bytes, total, expected in
            guard let delegate else { return }
            session.delegateQueue.addOperation {
                delegate.urlSession(session, downloadTask: task, didWriteData: bytes, totalBytesWritten: total, totalBytesExpectedToWrite: expected)
            }
        }
        keep(file)
        return file
    }

    /// Hands the complete `file` on, unless the load was cancelled first: to the download
    /// delegate (`didFinishDownloadingTo`, then the file is removed, then
    /// `didCompleteWithError(nil)`), or to the completion handler (the file then removed, except
    /// for `download(for:delegate:)`'s, whose caller owns it).
    func deliverDownload(_ file: URL, response: URLResponse?) {
        guard let session = context.session, let task = context.task as? URLSessionDownloadTask else { return }
        let completesInFoundation = context.foundationCompletesDownload
        let sessionTellsCompletion = session.delegate is any URLSessionTaskDelegate
        let downloadDelegate = context.downloadDelegate, taskDelegate = context.taskDelegate
        guard let urlProtocol = handOver() else { return }
        let finisher = Finisher(client: client, urlProtocol: urlProtocol)
        switch context.delivery {
        case .sessionDelegate:
            session.delegateQueue.addOperation {
                downloadDelegate?.urlSession(session, downloadTask: task, didFinishDownloadingTo: file)
                Self.remove(file)
                if completesInFoundation {
                    // Foundation tells the session's delegate, when it has one: it is the task delegate then.
                    if !sessionTellsCompletion { taskDelegate?.urlSession(session, task: task, didCompleteWithError: nil) }
                    finisher.finish()
                } else {
                    taskDelegate?.urlSession(session, task: task, didCompleteWithError: nil)
                }
            }
        case .downloadCompletion(let completion, _, let isAsync):
            session.delegateQueue.addOperation {
                completion(file, response, nil)
                if !isAsync { Self.remove(file) }
            }
        case .dataCompletion, .unknown:
            Self.remove(file)
        }
    }

    /// Removes a delivered file unless its receiver moved it (Foundation's own stack does the same).
    private static func remove(_ file: URL) {
        unlink(file.path)
    }
}

/// Foundation's client and the protocol, carried to the delegate queue to complete the task there,
/// after the delegate was told of the file.
private struct Finisher: @unchecked Sendable { // Foundation's client is called from any thread, as by every URLProtocol
    let client: (any URLProtocolClient)?
    let urlProtocol: URLProtocol

    func finish() {
        client?.urlProtocolDidFinishLoading(urlProtocol)
    }
}
