import HTTPDNSCore

extension ServiceBinding {
    /// Parses the RDATA of an SVCB (64) or HTTPS (65) record (RFC 9460 §2.2).
    ///
    /// Checks every rule of RFC 9460 §2.2, §7 and §8 and RFC 9461 §5: an uncompressed TargetName,
    /// strictly ascending keys, the value rules of each decoded key (see
    /// `DNSWireError.ServiceBindingProblem`), `mandatory` listing only keys present, and no octet
    /// read past the RDATA. SvcParams of an AliasMode record are kept (see `ServiceBinding`).
    /// - Parameters:
    ///   - rdata: The RDATA octets alone, without the record header.
    ///   - type: `.svcb` or `.https`, named in errors.
    /// - Throws: `DNSWireError.invalidServiceBinding` with an offset into `rdata`; never traps.
    public init(wireRData rdata: [UInt8], type: DNSRecordType = .https) throws(DNSWireError) {
        var parser = ServiceBindingParser(bytes: rdata, offset: 0, end: rdata.count, type: type)
        self = try parser.parse()
    }

    /// This RDATA in wire format (RFC 9460 §2.2): keys ascending, TargetName uncompressed. Meant for
    /// test servers and fixtures.
    ///
    /// The result is checked as `init(wireRData:type:)` checks what it reads, so it parses back to
    /// an equal value.
    /// - Parameter type: `.svcb` or `.https`, named in errors.
    /// - Throws: `DNSWireError.invalidName` for a TargetName that cannot be encoded, `.messageTooLong`
    ///   for a value or RDATA over 65535 octets, `.invalidServiceBinding` for parameters the RFC
    ///   forbids (empty `alpn`, `mandatory` naming an absent key, a key 0–7 in `unknown`, an IPv6
    ///   address among `ipv4Hints`, …).
    public func wireRData(type: DNSRecordType = .https) throws(DNSWireError) -> [UInt8] {
        var writer = DNSMessageWriter()
        writer.append(priority)
        writer.append(contentsOf: try DNSName.encode(targetName.isEmpty ? "." : targetName, allowEscapes: true))
        let nameEnd = writer.count
        if let key = parameters.unknown.keys.filter(\.isDecoded).min() {
            throw .invalidServiceBinding(type: type, offset: nameEnd, problem: .decodedKeyInUnknown(key))
        }
        for identifier in parameters.alpn ?? [] where identifier.count > 255 {
            throw .invalidServiceBinding(type: type, offset: nameEnd, problem: .alpnIdentifierTooLong(length: identifier.count))
        }
        if parameters.ipv4Hints?.contains(where: { $0.family != .ipv4 }) == true {
            throw .invalidServiceBinding(type: type, offset: nameEnd, problem: .wrongAddressFamily(.ipv4Hint))
        }
        if parameters.ipv6Hints?.contains(where: { $0.family != .ipv6 }) == true {
            throw .invalidServiceBinding(type: type, offset: nameEnd, problem: .wrongAddressFamily(.ipv6Hint))
        }
        for key in parameters.keys {
            let value = Self.wireValue(of: key, in: parameters)
            writer.append(key.rawValue)
            try writer.appendLength(value.count)
            writer.append(contentsOf: value)
        }
        guard writer.count <= 65535 else { throw .messageTooLong(length: writer.count) }
        _ = try ServiceBinding(wireRData: writer.bytes, type: type)
        return writer.bytes
    }

    private static func wireValue(of key: ServiceParameterKey, in parameters: ServiceParameters) -> [UInt8] {
        switch key {
        case .mandatory:
            var writer = DNSMessageWriter()
            for listed in parameters.mandatory ?? [] { writer.append(listed.rawValue) }
            return writer.bytes
        case .alpn:
            return (parameters.alpn ?? []).flatMap { [UInt8(truncatingIfNeeded: $0.count)] + $0 }
        case .noDefaultALPN:
            return []
        case .port:
            let port = parameters.port ?? 0
            return [UInt8(port >> 8), UInt8(port & 0xFF)]
        case .ipv4Hint:
            return (parameters.ipv4Hints ?? []).flatMap(\.bytes)
        case .ech:
            return parameters.ech ?? []
        case .ipv6Hint:
            return (parameters.ipv6Hints ?? []).flatMap(\.bytes)
        case .dohPath:
            return Array((parameters.dohPath ?? "").utf8)
        default:
            return parameters.unknown[key] ?? []
        }
    }
}
