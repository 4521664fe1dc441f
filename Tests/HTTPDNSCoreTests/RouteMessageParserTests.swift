import Testing
@testable import HTTPDNSCore

/// rtnetlink datagrams built field by field in host byte order, as the kernel sends them.
@Suite("rtnetlink message parser")
struct RouteMessageParserTests {
    /// One netlink message: header (length, type, flags, sequence, port) and `body`, padded to 4.
    static func message(type: UInt16, _ body: [UInt8]) -> [UInt8] {
        var bytes = native(UInt32(16 + body.count)) + native(type) + native(UInt16(0)) + native(UInt32(0)) + native(UInt32(0)) + body
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }

    static func attribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
        var bytes = native(UInt16(4 + value.count)) + native(type) + value
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }

    static func native<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }

    /// ifaddrmsg: family, prefix length, flags, scope, index.
    static func address(family: UInt8, prefix: UInt8, index: UInt32, _ attributes: [UInt8]) -> [UInt8] {
        [family, prefix, 0, 0] + native(index) + attributes
    }

    /// rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type, flags.
    static func route(family: UInt8, destinationLength: UInt8, table: UInt8 = 254, type: UInt8 = 1, _ attributes: [UInt8]) -> [UInt8] {
        [family, destinationLength, 0, 0, table, 4, 0, type] + native(UInt32(0)) + attributes
    }

    @Test("RTM_NEWADDR with IFA_LOCAL and RTM_DELADDR of an IPv6 address (IFA_ADDRESS only)")
    func addresses() {
        let v4 = Self.message(type: 20, Self.address(family: 2, prefix: 24, index: 3, Self.attribute(1, [10, 0, 0, 9]) + Self.attribute(2, [10, 0, 0, 1])))
        let v6 = Self.message(type: 21, Self.address(family: 10, prefix: 64, index: 4, Self.attribute(1, IPAddress("fd23::1")!.bytes)))
        #expect(
            RouteMessageParser.events(in: v4 + v6) == [
                .addressAdded(IPAddress("10.0.0.1")!, prefixLength: 24, interfaceIndex: 3),
                .addressRemoved(IPAddress("fd23::1")!, prefixLength: 64, interfaceIndex: 4)
            ])
    }

    @Test("RTM_NEWROUTE default via a gateway; a local-table route and a multicast route are left out")
    func routes() {
        let main = Self.message(type: 24, Self.route(family: 2, destinationLength: 0, Self.attribute(5, [10, 0, 0, 2]) + Self.attribute(4, Self.native(UInt32(3)))))
        let local = Self.message(type: 24, Self.route(family: 2, destinationLength: 32, table: 255, Self.attribute(1, [10, 0, 0, 1])))
        let multicast = Self.message(type: 25, Self.route(family: 10, destinationLength: 8, type: 5, Self.attribute(1, IPAddress("ff00::")!.bytes)))
        let removed = Self.message(type: 25, Self.route(family: 10, destinationLength: 64, Self.attribute(1, IPAddress("fd23::")!.bytes)))
        let events = RouteMessageParser.events(in: main + local + multicast + removed)
        #expect(
            events == [
                .routeAdded(NetworkChange.Route(family: .ipv4, destination: nil, prefixLength: 0, gateway: IPAddress("10.0.0.2"), interfaceIndex: 3)),
                .routeRemoved(NetworkChange.Route(family: .ipv6, destination: IPAddress("fd23::"), prefixLength: 64, gateway: nil, interfaceIndex: nil))
            ])
        #expect(NetworkChange(events: events).touchesDefaultRoute)
    }

    @Test("a truncated message ends the parse; the messages before it stand; other types are skipped")
    func truncated() {
        let good = Self.message(type: 20, Self.address(family: 2, prefix: 8, index: 1, Self.attribute(2, [127, 0, 0, 1])))
        let link = Self.message(type: 16, [0, 0, 0, 0] + Self.native(UInt32(1)) + [0, 0, 0, 0, 0, 0, 0, 0]) // RTM_NEWLINK
        let cut = Array(Self.message(type: 21, Self.address(family: 2, prefix: 8, index: 1, Self.attribute(2, [127, 0, 0, 2]))).dropLast(6))
        #expect(RouteMessageParser.events(in: good + link + cut) == [.addressAdded(IPAddress("127.0.0.1")!, prefixLength: 8, interfaceIndex: 1)])
        #expect(RouteMessageParser.events(in: [1, 2, 3]).isEmpty)
    }
}
