import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A download completion handler read from Foundation's task registry with `Mirror`.
///
/// Swift stores a closure in a non-generic enum's payload (`_Behaviour.downloadCompletionHandler`)
/// at the calling convention of its declared type, but `Mirror` hands it out as a value of the
/// generic convention: cast with `as?` and called, it receives its arguments the wrong way and
/// crashes (swiftlang/swift#56720). A struct field of the same declared type is stored as the
/// payload is, so the payload's bytes are read as such a field instead. `isSound` checks that on
/// the running Swift with a closure of its own, reflected the same way: should a later Swift
/// reflect closures otherwise, the check fails and the handler counts as not found (the task
/// fails clearly) rather than being called wrongly.
enum ReflectedCompletion {
    typealias Download = @Sendable (URL?, URLResponse?, (any Error)?) -> Void

    private struct Field {
        let function: Download
    }

    /// The same shapes as Foundation's payloads: the handler alone, and with a task delegate.
    private enum Probe {
        case alone(Download)
        case withDelegate(Download, (any URLSessionTaskDelegate)?)
    }

    /// `value` (a reflected payload element) as the download completion handler it holds; nil
    /// when it holds none or reflection cannot be trusted here.
    static func download(_ value: Any) -> Download? {
        guard isSound else { return nil }
        return field(value)?.function
    }

    private static func field(_ value: Any) -> Field? {
        guard type(of: value) == Download.self, MemoryLayout<Field>.size <= MemoryLayout<Any>.size - MemoryLayout<Any.Type>.size else {
            return nil
        }
        // A closure fits an existential's inline buffer: its bytes are the value's first bytes.
        var value = value
        return withUnsafeBytes(of: &value) { $0.load(as: Field.self) }
    }

    static let isSound: Bool = {
        let probe: Download = { _, _, _ in }
        let expected = withUnsafeBytes(of: Field(function: probe)) { Array($0) }
        return [Probe.alone(probe), .withDelegate(probe, nil)].allSatisfy { payload in
            guard let reflected = Mirror.enumCase(of: payload).payload.map(Mirror.elements(of:))?.first,
                let field = field(reflected)
            else { return false }
            return withUnsafeBytes(of: field) { Array($0) } == expected
        }
    }()
}
