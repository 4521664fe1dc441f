import Foundation
import HTTPDNSCore
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Synchronization
import HTTPDNS

/// Upload bodies registered by the `httpdnsUpload…` methods for their tasks, which need no
/// reflection of Foundation's state to find (see `TaskBody`). Keyed by task
/// identity and checked against a weak reference, so a recycled object address never picks up
/// another task's body; entries of tasks that are gone are dropped at the next registration.
enum UploadBodyRegistry {
    private struct Entry {
        weak var task: URLSessionTask?
        let body: HTTPRequestBody
    }

    private static let entries = LockedValue<[ObjectIdentifier: Entry]>([:])

    static func register(_ body: HTTPRequestBody, for task: URLSessionTask) {
        entries.withLock { entries in
            entries = entries.filter { $0.value.task != nil }
            entries[ObjectIdentifier(task)] = Entry(task: task, body: body)
        }
    }

    /// The body registered for `task`, removed from the registry.
    static func take(for task: URLSessionTask) -> HTTPRequestBody? {
        entries.withLock { entries in
            guard let entry = entries.removeValue(forKey: ObjectIdentifier(task)), entry.task === task else { return nil }
            return entry.body
        }
    }
}
