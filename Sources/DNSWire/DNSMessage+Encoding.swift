extension DNSMessage {
    /// This message in DNS wire format (RFC 1035 §4), without name compression.
    ///
    /// Counts come from the section arrays. The header carries the low 4 bits of `responseCode`; the
    /// first OPT record in `additionals`, if any, gets the high 8 bits in the top of its TTL (RFC 6891
    /// §6.1.3), replacing what it held; other OPT records (misplaced, or repeated) are written as given. Record data is written as given, whatever the record's type.
    /// Meant for test servers and fixtures; clients send `query(name:type:id:paddingBlockSize:)`.
    /// - Returns: The message octets; `init(parsing:)` reads them back to an equal message.
    /// - Throws: `DNSWireError.invalidName` for a name that cannot be encoded (escapes are accepted),
    ///   `.extendedResponseCodeWithoutOPT` for a code above 15 with no OPT record, `.messageTooLong`
    ///   when the message or one RDATA exceeds 65535 octets.
    public func encoded() throws(DNSWireError) -> [UInt8] {
        // The OPT record that carries the extended RCODE: the first in the additional section, the one
        // `init(parsing:)` reads it from. Any other OPT record keeps its TTL as given.
        let codeCarrier = additionals.firstIndex { $0.type == .opt }
        guard responseCode.rawValue <= 0x0F || codeCarrier != nil else {
            throw .extendedResponseCodeWithoutOPT(responseCode)
        }
        var flags = UInt16(opcode & 0x0F) << 11 | responseCode.rawValue & 0x0F
        if isResponse { flags |= 0x8000 }
        if isAuthoritative { flags |= 0x0400 }
        if isTruncated { flags |= 0x0200 }
        if recursionDesired { flags |= 0x0100 }
        if recursionAvailable { flags |= 0x0080 }
        if isAuthenticData { flags |= 0x0020 }
        if checkingDisabled { flags |= 0x0010 }

        var writer = DNSMessageWriter()
        writer.append(id)
        writer.append(flags)
        for count in [questions.count, answers.count, authorities.count, additionals.count] {
            try writer.appendLength(count)
        }
        for question in questions {
            writer.append(contentsOf: try Self.wireName(question.name))
            writer.append(question.type.rawValue)
            writer.append(question.recordClass)
        }
        let extendedCode = UInt32(truncatingIfNeeded: responseCode.rawValue >> 4) & 0xFF
        let carrierPosition = codeCarrier.map { answers.count + authorities.count + $0 }
        for (position, record) in (answers + authorities + additionals).enumerated() {
            var ttl = record.ttl
            if position == carrierPosition { ttl = extendedCode << 24 | ttl & 0x00FF_FFFF }
            writer.append(contentsOf: try Self.wireName(record.name))
            writer.append(record.type.rawValue)
            writer.append(record.recordClass)
            writer.append(ttl)
            let rdata = try Self.encode(record.data, type: record.type)
            try writer.appendLength(rdata.count)
            writer.append(contentsOf: rdata)
        }
        guard writer.count <= 65535 else { throw .messageTooLong(length: writer.count) }
        return writer.bytes
    }

    static func encode(_ data: DNSRecordData, type: DNSRecordType) throws(DNSWireError) -> [UInt8] {
        switch data {
        case .a(let address), .aaaa(let address):
            return address.bytes
        case .cname(let name):
            return try wireName(name)
        case .soa(let soa):
            var writer = DNSMessageWriter()
            writer.append(contentsOf: try wireName(soa.mname))
            writer.append(contentsOf: try wireName(soa.rname))
            for field in [soa.serial, soa.refresh, soa.retry, soa.expire, soa.minimum] {
                writer.append(field)
            }
            return writer.bytes
        case .serviceBinding(let binding):
            return try binding.wireRData(type: type)
        case .other(let octets):
            return octets
        }
    }

    /// Names as this module writes them: `""` is the root.
    private static func wireName(_ name: String) throws(DNSWireError) -> [UInt8] {
        try DNSName.encode(name.isEmpty ? "." : name, allowEscapes: true)
    }
}
