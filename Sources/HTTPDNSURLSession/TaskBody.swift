import Dispatch
import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The request body swift-corelibs-foundation keeps for a task, which it hands no `URLProtocol`:
/// the task's internal `knownBody` (`URLSessionTask._Body?`), read with `Mirror`. The upload APIs
/// (`uploadTask(with:from:)`, `uploadTask(with:fromFile:)`, `upload(for:from:)`,
/// `upload(for:fromFile:)`) put their body only there; `uploadTask(withStreamedRequest:)` leaves it
/// nil, for the delegate's `urlSession(_:task:needNewBodyStream:)` to give.
enum TaskBody {
    case none
    case data(Data)
    case file(URL)
    case stream(InputStream)
    /// None yet: the delegate gives a stream (`needNewBodyStream`).
    case fromDelegate
    /// The task has no `knownBody` of a known shape: Foundation changed.
    case notFound

    /// Must run where Foundation calls `startLoading`, before anything else touches the body.
    init(of task: URLSessionTask) {
        guard let known = Mirror.storedProperty(of: task, named: "knownBody") else {
            self = .notFound
            return
        }
        let optional = Mirror(reflecting: known)
        guard optional.displayStyle == .optional else {
            self = .notFound
            return
        }
        guard let body = optional.children.first?.value else {
            self = .fromDelegate
            return
        }
        switch Mirror.enumCase(of: body) {
        case ("none", nil): self = .none
        case ("data", let bytes as DispatchData): self = .data(Self.data(bytes))
        case ("file", let url as URL): self = .file(url)
        case ("stream", let stream as InputStream): self = .stream(stream)
        default: self = .notFound
        }
    }

    private static func data(_ bytes: DispatchData) -> Data {
        var data = Data(capacity: bytes.count)
        bytes.enumerateBytes { region, _, _ in data.append(region) }
        return data
    }
}
