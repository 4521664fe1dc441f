extension DNSMessage {
    /// The UDP payload size advertised in the OPT record of built queries (RFC 6891 §6.2.3). DoH does
    /// not use UDP, but the field is mandatory and some servers size answers by it.
    public static let advertisedPayloadSize: UInt16 = 4096

    /// The EDNS option code of the Padding option (RFC 7830 §3).
    public static let paddingOptionCode: UInt16 = 12

    /// Builds an RFC 8484 §4.1 query in DNS wire format, ready to send as an `application/dns-message` body.
    ///
    /// Layout: 12-octet header (ID `id`, RD set, QDCOUNT 1, ARCOUNT 1), one question (`name`
    /// uncompressed, QTYPE `type`, QCLASS `IN`), then an EDNS(0) OPT record (RFC 6891 §6.1.2: root
    /// owner, UDP size `advertisedPayloadSize`, extended RCODE/version/flags 0). With a block size the
    /// OPT carries one Padding option (code 12, RFC 7830) of zero octets sized so the whole message is
    /// a multiple of `paddingBlockSize` octets (RFC 8467 §4.1 recommends 128 for queries).
    /// `dnssecOK` sets the OPT record's DO bit (RFC 3225 §3) so the server includes RRSIG, NSEC and
    /// NSEC3 records; `checkingDisabled` sets the header's CD bit (RFC 4035 §3.2.2) so a validating
    /// resolver passes on data it would call bogus, for the client to judge itself. A `clientSubnet`
    /// goes in the OPT record as an EDNS Client Subnet option (code 8, RFC 7871 §6), before the padding.
    ///
    /// - Parameters:
    ///   - name: A host name, any case (encoded lower-case), optional trailing dot; `"."` is the root.
    ///     Labels 1–63 octets of printable ASCII without backslashes; at most 255 octets on the wire.
    ///   - type: QTYPE, normally `.a` or `.aaaa`.
    ///   - id: Message ID. RFC 8484 §4.1 asks for 0 so that HTTP caches see identical queries.
    ///   - paddingBlockSize: Block size in octets (1…65535), or `nil` for an OPT record without padding.
    ///   - dnssecOK: Whether to set DO (0x8000 in the OPT flags).
    ///   - checkingDisabled: Whether to set CD (0x0010 in the header flags).
    ///   - clientSubnet: The ECS option to send; nil: none.
    /// - Returns: The message octets.
    /// - Throws: `DNSWireError.invalidName` for a name that cannot be sent;
    ///   `DNSWireError.invalidPaddingBlockSize` for a block size outside 1…65535.
    public static func query(
        name: String, type: DNSRecordType, id: UInt16 = 0, paddingBlockSize: Int? = 128, dnssecOK: Bool = false, checkingDisabled: Bool = false,
        clientSubnet: EDNSClientSubnet? = nil
    ) throws(DNSWireError) -> [UInt8] {
        if let block = paddingBlockSize, !(1...65535).contains(block) {
            throw .invalidPaddingBlockSize(block)
        }
        let qname = try DNSName.encode(name, allowEscapes: false)

        var writer = DNSMessageWriter()
        writer.append(id)
        writer.append(checkingDisabled ? 0x0110 : 0x0100 as UInt16) // QR 0, OPCODE 0, RD 1, CD
        writer.append(1 as UInt16) // QDCOUNT
        writer.append(0 as UInt16) // ANCOUNT
        writer.append(0 as UInt16) // NSCOUNT
        writer.append(1 as UInt16) // ARCOUNT: the OPT record
        writer.append(contentsOf: qname)
        writer.append(type.rawValue)
        writer.append(1 as UInt16) // QCLASS IN

        writer.append(0 as UInt8) // OPT owner: root
        writer.append(DNSRecordType.opt.rawValue)
        writer.append(advertisedPayloadSize)
        writer.append(dnssecOK ? 0x8000 : 0 as UInt32) // extended RCODE 0, version 0, flags: DO
        var options: [UInt8] = []
        if let clientSubnet {
            let data = clientSubnet.optionData
            options += [UInt8(EDNSClientSubnet.optionCode >> 8), UInt8(EDNSClientSubnet.optionCode & 0xFF), 0, UInt8(data.count)] + data
        }
        if let block = paddingBlockSize {
            // RDLENGTH (2), the other options and the padding option's code and length (4) come
            // before the padding octets.
            let unpadded = writer.count + 2 + options.count + 4
            let padding = (block - unpadded % block) % block
            try writer.appendLength(options.count + 4 + padding)
            writer.append(contentsOf: options)
            writer.append(paddingOptionCode)
            try writer.appendLength(padding)
            writer.append(contentsOf: [UInt8](repeating: 0, count: padding))
        } else {
            try writer.appendLength(options.count)
            writer.append(contentsOf: options)
        }
        guard writer.count <= 65535 else { throw .messageTooLong(length: writer.count) }
        return writer.bytes
    }
}
