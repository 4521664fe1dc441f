/// Domain-name encoding and decoding (RFC 1035 §3.1, §4.1.4) and the textual form used throughout
/// this module: ASCII lower case, labels joined by `.`, no trailing dot, root `""`, and RFC 1035 §5.1
/// escapes (`\.`, `\\`, `\DDD`) for octets that are not printable ASCII or would be ambiguous.
enum DNSName {
    /// RFC 1035 §2.3.4: a name is at most 255 octets on the wire, including length octets and the root.
    static let maxWireLength = 255
    /// RFC 1035 §2.3.4: a label is at most 63 octets.
    static let maxLabelLength = 63
    /// A 255-octet name has at most 127 labels, so a legitimate name never needs more pointers.
    static let maxPointers = 127

    private static let dot = UInt8(ascii: ".")
    private static let backslash = UInt8(ascii: "\\")

    // MARK: Reading

    /// Reads the possibly compressed name that starts at `start`.
    ///
    /// - Parameters:
    ///   - bytes: The whole message (pointers are offsets into it).
    ///   - start: Offset of the name's first octet.
    ///   - limit: Octets of the name stored in place (before the first pointer) must end by this offset;
    ///     data reached through pointers may lie anywhere before the pointer.
    /// - Returns: The textual name and the offset just past its in-place octets.
    /// - Throws: `truncated` (measured against `limit`), `labelTooLong`, `nameTooLong`,
    ///   `pointerOutOfBounds`, `forwardPointer`, `compressionLoop`, `tooManyCompressionPointers`.
    static func read(from bytes: [UInt8], at start: Int, limit: Int) throws(DNSWireError) -> (name: String, end: Int) {
        var position = start
        // Every pointer must land strictly before the start of the stretch of octets it was reached
        // from, so targets strictly decrease and following them always terminates.
        var segmentStart = start
        var end: Int?
        var currentLimit = min(limit, bytes.count)
        var wireLength = 0
        var pointers = 0
        var text: [UInt8] = []

        while true {
            guard position < currentLimit else {
                throw .truncated(offset: position, needed: 1, available: 0)
            }
            let octet = bytes[position]
            switch octet & 0xC0 {
            case 0x00:
                let length = Int(octet)
                if length == 0 {
                    return (String(decoding: text, as: UTF8.self), end ?? position + 1)
                }
                wireLength += 1 + length
                // The root octet still has to follow.
                guard wireLength + 1 <= maxWireLength else { throw .nameTooLong(offset: start) }
                let labelStart = position + 1
                guard length <= currentLimit - labelStart else {
                    throw .truncated(offset: labelStart, needed: length, available: currentLimit - labelStart)
                }
                if !text.isEmpty { text.append(dot) }
                appendText(of: bytes[labelStart..<(labelStart + length)], to: &text)
                position = labelStart + length
            case 0xC0:
                guard currentLimit - position >= 2 else {
                    throw .truncated(offset: position, needed: 2, available: currentLimit - position)
                }
                let target = Int(octet & 0x3F) << 8 | Int(bytes[position + 1])
                if end == nil { end = position + 2 }
                guard target < bytes.count else {
                    throw .pointerOutOfBounds(offset: position, target: target, messageLength: bytes.count)
                }
                guard target <= position else { throw .forwardPointer(offset: position, target: target) }
                guard target < segmentStart else { throw .compressionLoop(offset: position, target: target) }
                pointers += 1
                guard pointers <= maxPointers else { throw .tooManyCompressionPointers(offset: start) }
                segmentStart = target
                position = target
                currentLimit = bytes.count
            default:
                throw .labelTooLong(offset: position, lengthOctet: octet)
            }
        }
    }

    /// Appends the textual form of one label's octets.
    static func appendText(of label: ArraySlice<UInt8>, to text: inout [UInt8]) {
        for octet in label {
            switch octet {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                text.append(octet + 32)
            case dot, backslash:
                text.append(backslash)
                text.append(octet)
            case 0x21...0x7E:
                text.append(octet)
            default:
                text.append(backslash)
                text.append(UInt8(ascii: "0") + octet / 100)
                text.append(UInt8(ascii: "0") + octet / 10 % 10)
                text.append(UInt8(ascii: "0") + octet % 10)
            }
        }
    }

    // MARK: Writing

    /// Splits a textual name into label octets, lower-casing ASCII letters.
    ///
    /// Accepts an optional trailing dot; `"."` is the root (no labels).
    /// - Parameter allowEscapes: Whether `\X` and `\DDD` (RFC 1035 §5.1) are understood; when `false`
    ///   a backslash is an error, so a query can never be built from an escaped (unusual) name.
    /// - Throws: `DNSWireError.invalidName`.
    static func labels(of name: String, allowEscapes: Bool) throws(DNSWireError) -> [[UInt8]] {
        let utf8 = Array(name.utf8)
        guard !utf8.isEmpty else { throw .invalidName(name, .empty) }
        if utf8 == [dot] { return [] }

        var labels: [[UInt8]] = []
        var current: [UInt8] = []
        var wireLength = 1
        func finishLabel() throws(DNSWireError) {
            guard !current.isEmpty else { throw .invalidName(name, .emptyLabel) }
            guard current.count <= maxLabelLength else { throw .invalidName(name, .labelTooLong(length: current.count)) }
            wireLength += 1 + current.count
            labels.append(current)
            current = []
        }

        var index = 0
        while index < utf8.count {
            let octet = utf8[index]
            index += 1
            if octet == dot {
                try finishLabel()
                continue
            }
            var value = octet
            if octet == backslash {
                guard allowEscapes, index < utf8.count else { throw .invalidName(name, .invalidEscape) }
                let next = utf8[index]
                if isDigit(next) {
                    guard utf8.count - index >= 3, isDigit(utf8[index + 1]), isDigit(utf8[index + 2]) else {
                        throw .invalidName(name, .invalidEscape)
                    }
                    let decimal = Int(next - 48) * 100 + Int(utf8[index + 1] - 48) * 10 + Int(utf8[index + 2] - 48)
                    guard decimal <= 255 else { throw .invalidName(name, .invalidEscape) }
                    value = UInt8(decimal)
                    index += 3
                } else {
                    guard (0x21...0x7E).contains(next) else { throw .invalidName(name, .invalidEscape) }
                    value = next
                    index += 1
                }
            } else {
                guard (0x21...0x7E).contains(octet) else { throw .invalidName(name, .invalidCharacter(octet)) }
            }
            if (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(value) { value += 32 }
            current.append(value)
        }
        // A trailing dot leaves `current` empty: that is the root label, already accounted for.
        if !current.isEmpty { try finishLabel() }
        guard wireLength <= maxWireLength else { throw .invalidName(name, .nameTooLong(wireLength: wireLength)) }
        return labels
    }

    /// The uncompressed wire form of a textual name (RFC 1035 §3.1).
    /// - Throws: `DNSWireError.invalidName`.
    static func encode(_ name: String, allowEscapes: Bool) throws(DNSWireError) -> [UInt8] {
        var wire: [UInt8] = []
        for label in try labels(of: name, allowEscapes: allowEscapes) {
            wire.append(UInt8(label.count))
            wire.append(contentsOf: label)
        }
        wire.append(0)
        return wire
    }

    /// The canonical textual form of a name given by a caller (any case, optional trailing dot,
    /// escapes allowed), as the parser would produce it; `nil` if it is not a valid name.
    static func canonical(_ name: String) -> String? {
        guard let labels = try? labels(of: name, allowEscapes: true) else { return nil }
        var text: [UInt8] = []
        for label in labels {
            if !text.isEmpty { text.append(dot) }
            appendText(of: label[...], to: &text)
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Whether `zone` is `name` or one of its ancestors (both canonical text; the root `""` is an
    /// ancestor of everything).
    static func isSameOrAncestor(_ zone: String, of name: String) -> Bool {
        if zone.isEmpty || zone == name { return true }
        // Compare label by label: a text suffix test would be fooled by escaped dots.
        guard let zoneLabels = try? labels(of: zone, allowEscapes: true),
            let nameLabels = try? labels(of: name, allowEscapes: true),
            zoneLabels.count <= nameLabels.count
        else { return false }
        return Array(nameLabels.suffix(zoneLabels.count)) == zoneLabels
    }

    private static func isDigit(_ octet: UInt8) -> Bool {
        octet >= UInt8(ascii: "0") && octet <= UInt8(ascii: "9")
    }
}
