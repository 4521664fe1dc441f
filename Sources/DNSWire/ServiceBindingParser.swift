import HTTPDNSCore

/// Reads SVCB/HTTPS RDATA (RFC 9460 §2.2) between `offset` and `end` of a message (or of a bare
/// RDATA), checking every rule of RFC 9460 §2.2, §7 and §8 and RFC 9461 §5. Each failure is
/// `DNSWireError.invalidServiceBinding` with the offset of the offending field; nothing is read
/// past `end`.
struct ServiceBindingParser {
    private let bytes: [UInt8]
    private let type: DNSRecordType
    private let end: Int
    private var offset: Int

    init(bytes: [UInt8], offset: Int, end: Int, type: DNSRecordType) {
        self.bytes = bytes
        self.offset = offset
        self.end = min(end, bytes.count)
        self.type = type
    }

    mutating func parse() throws(DNSWireError) -> ServiceBinding {
        let priority = try readUInt16()
        let targetName = try readTargetName()
        let parameters = try readParameters()
        return ServiceBinding(priority: priority, targetName: targetName, parameters: parameters)
    }

    private func failure(_ problem: DNSWireError.ServiceBindingProblem, at position: Int) -> DNSWireError {
        .invalidServiceBinding(type: type, offset: position, problem: problem)
    }

    private func require(_ count: Int) throws(DNSWireError) {
        guard count <= end - offset else { throw failure(.truncated(needed: count, available: end - offset), at: offset) }
    }

    private mutating func readUInt16() throws(DNSWireError) -> UInt16 {
        try require(2)
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    /// An uncompressed name (RFC 9460 §2.2 forbids compression in TargetName), so a pointer, even
    /// one that would be valid in the message, is an error.
    private mutating func readTargetName() throws(DNSWireError) -> String {
        let start = offset
        var text: [UInt8] = []
        var wireLength = 1
        while true {
            try require(1)
            let octet = bytes[offset]
            switch octet & 0xC0 {
            case 0xC0: throw failure(.compressedTargetName, at: offset)
            case 0x00: break
            default: throw failure(.invalidTargetNameLabel(lengthOctet: octet), at: offset)
            }
            offset += 1
            if octet == 0 { return String(decoding: text, as: UTF8.self) }
            let length = Int(octet)
            wireLength += 1 + length
            guard wireLength <= DNSName.maxWireLength else { throw failure(.targetNameTooLong, at: start) }
            try require(length)
            if !text.isEmpty { text.append(UInt8(ascii: ".")) }
            DNSName.appendText(of: bytes[offset..<(offset + length)], to: &text)
            offset += length
        }
    }

    private mutating func readParameters() throws(DNSWireError) -> ServiceParameters {
        var parameters = ServiceParameters()
        var previous: ServiceParameterKey?
        var mandatoryOffset = 0
        var noDefaultALPNOffset = 0
        while offset < end {
            let keyOffset = offset
            let key = ServiceParameterKey(rawValue: try readUInt16())
            if let previous {
                guard key != previous else { throw failure(.duplicateKey(key), at: keyOffset) }
                guard key > previous else { throw failure(.keysOutOfOrder(previous: previous, key: key), at: keyOffset) }
            }
            previous = key
            let length = Int(try readUInt16())
            try require(length)
            let valueOffset = offset
            let value = bytes[offset..<(offset + length)]
            offset += length
            switch key {
            case .mandatory: mandatoryOffset = valueOffset
            case .noDefaultALPN: noDefaultALPNOffset = keyOffset
            default: break
            }
            try decode(key, value: value, at: valueOffset, into: &parameters)
        }
        if parameters.noDefaultALPN, parameters.alpn == nil {
            throw failure(.noDefaultALPNWithoutALPN, at: noDefaultALPNOffset)
        }
        for (index, key) in (parameters.mandatory ?? []).enumerated() where !parameters.contains(key) {
            throw failure(.mandatoryKeyMissing(key), at: mandatoryOffset + 2 * index)
        }
        return parameters
    }

    private func decode(
        _ key: ServiceParameterKey, value: ArraySlice<UInt8>, at position: Int, into parameters: inout ServiceParameters
    ) throws(DNSWireError) {
        let requiresValue: Set<ServiceParameterKey> = [.mandatory, .alpn, .port, .ipv4Hint, .ech, .ipv6Hint]
        if value.isEmpty, requiresValue.contains(key) { throw failure(.emptyValue(key), at: position) }
        switch key {
        case .mandatory:
            parameters.mandatory = try decodeMandatory(value, at: position)
        case .alpn:
            parameters.alpn = try decodeALPN(value, at: position)
        case .noDefaultALPN:
            guard value.isEmpty else { throw failure(.noDefaultALPNHasValue(length: value.count), at: position) }
            parameters.noDefaultALPN = true
        case .port:
            guard value.count == 2 else { throw failure(.badValueLength(key, length: value.count), at: position) }
            parameters.port = UInt16(value[value.startIndex]) << 8 | UInt16(value[value.startIndex + 1])
        case .ipv4Hint, .ipv6Hint:
            let size = key == .ipv4Hint ? 4 : 16
            guard value.count % size == 0 else { throw failure(.badValueLength(key, length: value.count), at: position) }
            let addresses = stride(from: value.startIndex, to: value.endIndex, by: size).compactMap {
                IPAddress(bytes: Array(value[$0..<($0 + size)]))
            }
            if key == .ipv4Hint { parameters.ipv4Hints = addresses } else { parameters.ipv6Hints = addresses }
        case .ech:
            parameters.ech = Array(value)
        case .dohPath:
            do throws(DNSWireError.DoHPathProblem) {
                parameters.dohPath = try DoHPathTemplate.validate(Array(value))
            } catch {
                throw failure(.invalidDoHPath(error), at: position)
            }
        default:
            parameters.unknown[key] = Array(value)
        }
    }

    private func decodeMandatory(_ value: ArraySlice<UInt8>, at position: Int) throws(DNSWireError) -> [ServiceParameterKey] {
        guard value.count % 2 == 0 else { throw failure(.badValueLength(.mandatory, length: value.count), at: position) }
        var keys: [ServiceParameterKey] = []
        for index in stride(from: value.startIndex, to: value.endIndex, by: 2) {
            let key = ServiceParameterKey(rawValue: UInt16(value[index]) << 8 | UInt16(value[index + 1]))
            let keyPosition = position + index - value.startIndex
            guard key != .mandatory else { throw failure(.mandatoryListsItself, at: keyPosition) }
            if let previous = keys.last {
                guard key != previous else { throw failure(.mandatoryDuplicateKey(key), at: keyPosition) }
                guard key > previous else { throw failure(.mandatoryKeysOutOfOrder(previous: previous, key: key), at: keyPosition) }
            }
            keys.append(key)
        }
        return keys
    }

    private func decodeALPN(_ value: ArraySlice<UInt8>, at position: Int) throws(DNSWireError) -> [[UInt8]] {
        var identifiers: [[UInt8]] = []
        var index = value.startIndex
        while index < value.endIndex {
            let length = Int(value[index])
            let identifierPosition = position + index - value.startIndex
            guard length > 0 else { throw failure(.emptyALPNIdentifier, at: identifierPosition) }
            guard length < value.endIndex - index else { throw failure(.alpnIdentifierOverrun, at: identifierPosition) }
            identifiers.append(Array(value[(index + 1)...(index + length)]))
            index += 1 + length
        }
        return identifiers
    }
}
