extension Mirror {
    /// The stored property `label` of `value`, looked up in its class and then its superclasses;
    /// nil when none has it. For Foundation state that a `URLProtocol` is given no API for.
    static func storedProperty(of value: Any, named label: String) -> Any? {
        var mirror: Mirror? = Mirror(reflecting: value)
        while let current = mirror {
            if let match = current.children.first(where: { $0.label == label }) { return match.value }
            mirror = current.superclassMirror
        }
        return nil
    }

    /// The case name and payload of the enum `value`: the payload is nil for a case without one,
    /// and a tuple for a case with several values.
    static func enumCase(of value: Any) -> (name: String, payload: Any?) {
        if let child = Mirror(reflecting: value).children.first, let label = child.label { return (label, child.value) }
        return (String(describing: value), nil)
    }

    /// The elements of a tuple, in order; `[value]` for a value that is not a tuple.
    static func elements(of value: Any) -> [Any] {
        let mirror = Mirror(reflecting: value)
        return mirror.displayStyle == .tuple ? mirror.children.map(\.value) : [value]
    }
}
