/// Reads the address and route messages of one rtnetlink datagram (rtnetlink(7), netlink(7)): a
/// pure function of the bytes, so it is tested on fixtures without a socket.
///
/// Layout, in host byte order: `nlmsghdr` (length u32, type u16, flags u16, sequence u32, port u32),
/// then `ifaddrmsg` (family, prefix length, flags, scope: u8 each; index u32) or `rtmsg` (family,
/// destination length, source length, TOS, table, protocol, scope, type: u8 each; flags u32), then
/// attributes (`rtattr`: length u16, type u16, value), each message and attribute 4-byte aligned.
/// A truncated or malformed message ends the datagram's parse; what was read before stands.
enum RouteMessageParser {
    static let newAddress: UInt16 = 20 // RTM_NEWADDR
    static let deleteAddress: UInt16 = 21 // RTM_DELADDR
    static let newRoute: UInt16 = 24 // RTM_NEWROUTE
    static let deleteRoute: UInt16 = 25 // RTM_DELROUTE
    private static let addressFamilyIPv4: UInt8 = 2 // AF_INET
    private static let addressFamilyIPv6: UInt8 = 10 // AF_INET6
    private static let localTable: UInt32 = 255 // RT_TABLE_LOCAL
    private static let multicastRouteType: UInt8 = 5 // RTN_MULTICAST

    static func events(in datagram: some Collection<UInt8>) -> [NetworkChange.Event] {
        let bytes = Array(datagram)
        var events: [NetworkChange.Event] = []
        var offset = 0
        while offset + 16 <= bytes.count {
            let length = Int(read32(bytes, offset))
            guard length >= 16, offset + length <= bytes.count else { break }
            let type = read16(bytes, offset + 4)
            let body = Array(bytes[(offset + 16)..<(offset + length)])
            switch type {
            case newAddress, deleteAddress:
                if let event = addressEvent(body, added: type == newAddress) { events.append(event) }
            case newRoute, deleteRoute:
                if let event = routeEvent(body, added: type == newRoute) { events.append(event) }
            default:
                break
            }
            offset += align(length)
        }
        return events
    }

    private static func addressEvent(_ body: [UInt8], added: Bool) -> NetworkChange.Event? {
        guard body.count >= 8, let size = addressSize(body[0]) else { return nil }
        let prefixLength = Int(body[1])
        let index = Int(read32(body, 4))
        let attributes = self.attributes(body, from: 8)
        // IFA_LOCAL (2) is the interface's own address; IFA_ADDRESS (1) is the peer's on a
        // point-to-point link, and the only one IPv6 sends.
        guard let raw = attributes[2] ?? attributes[1], raw.count == size, let address = IPAddress(bytes: raw) else { return nil }
        return added
            ? .addressAdded(address, prefixLength: prefixLength, interfaceIndex: index)
            : .addressRemoved(address, prefixLength: prefixLength, interfaceIndex: index)
    }

    private static func routeEvent(_ body: [UInt8], added: Bool) -> NetworkChange.Event? {
        guard body.count >= 12, let size = addressSize(body[0]) else { return nil }
        let attributes = self.attributes(body, from: 12)
        // RTA_TABLE (15) holds tables above 255; rtm_table says RT_TABLE_COMPAT then.
        let table = attributes[15].flatMap { $0.count == 4 ? read32($0, 0) : nil } ?? UInt32(body[4])
        guard table != localTable, body[7] != multicastRouteType else { return nil }
        let address = { (type: UInt16) -> IPAddress? in attributes[type].flatMap { $0.count == size ? IPAddress(bytes: $0) : nil } }
        let route = NetworkChange.Route(
            family: size == 4 ? .ipv4 : .ipv6, destination: address(1), prefixLength: Int(body[1]), gateway: address(5),
            interfaceIndex: attributes[4].flatMap { $0.count == 4 ? Int(read32($0, 0)) : nil })
        return added ? .routeAdded(route) : .routeRemoved(route)
    }

    private static func addressSize(_ family: UInt8) -> Int? {
        switch family {
        case addressFamilyIPv4: 4
        case addressFamilyIPv6: 16
        default: nil
        }
    }

    /// The attributes after `start`, by type (the first of each type).
    private static func attributes(_ body: [UInt8], from start: Int) -> [UInt16: [UInt8]] {
        var found: [UInt16: [UInt8]] = [:]
        var offset = start
        while offset + 4 <= body.count {
            let length = Int(read16(body, offset))
            guard length >= 4, offset + length <= body.count else { break }
            let type = read16(body, offset + 2) & 0x3FFF // without NLA_F_NESTED and NLA_F_NET_BYTEORDER
            if found[type] == nil { found[type] = Array(body[(offset + 4)..<(offset + length)]) }
            offset += align(length)
        }
        return found
    }

    private static func align(_ length: Int) -> Int { (length + 3) & ~3 }

    /// Netlink fields are in host byte order, as a native load reads them.
    private static func read16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
        bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt16.self) }
    }

    private static func read32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }
    }
}
