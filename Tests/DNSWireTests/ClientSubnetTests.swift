import DNSWire
import HTTPDNSCore
import Testing

/// The EDNS Client Subnet option (RFC 7871 §6) in built queries: exact octets, masking, the
/// privacy defaults of §11.1, and the /0 opt-out of §7.1.2.
@Suite struct ClientSubnetTests {
    @Test("192.0.2.77 with the default /24: family 1, source 24, scope 0, three address octets, bits past the prefix zero")
    func ipv4Default() throws {
        let subnet = try EDNSClientSubnet(address: IPAddress("192.0.2.77")!)
        #expect(subnet.description == "192.0.2.0/24")
        #expect(subnet.optionData == [0x00, 0x01, 24, 0, 192, 0, 2])
    }

    @Test("a /20 keeps 3 octets with the last 4 bits cleared; IPv6 defaults to /56 (7 octets); /0 sends no address")
    func masking() throws {
        #expect(try EDNSClientSubnet(address: IPAddress("198.51.100.255")!, sourcePrefixLength: 20).optionData == [0, 1, 20, 0, 198, 51, 96])
        let v6 = try EDNSClientSubnet(address: IPAddress("2001:db8:1234:5678:9abc::1")!)
        #expect(v6.description == "2001:db8:1234:5600::/56")
        #expect(v6.optionData == [0, 2, 56, 0, 0x20, 0x01, 0x0d, 0xb8, 0x12, 0x34, 0x56])
        #expect(EDNSClientSubnet.optOut.optionData == [0, 1, 0, 0])
        #expect(try EDNSClientSubnet(address: IPAddress("10.1.2.3")!, sourcePrefixLength: 32).optionData == [0, 1, 32, 0, 10, 1, 2, 3])
    }

    @Test("prefix lengths past the family's width are refused; the text form parses ADDRESS[/PREFIX] and nothing else")
    func parsing() throws {
        #expect(throws: EDNSClientSubnet.Problem.prefixLength(33, family: .ipv4)) { try EDNSClientSubnet(address: IPAddress("1.2.3.4")!, sourcePrefixLength: 33) }
        #expect(throws: EDNSClientSubnet.Problem.prefixLength(129, family: .ipv6)) { try EDNSClientSubnet(parsing: "::1/129") }
        #expect(try EDNSClientSubnet(parsing: "203.0.113.9/16")?.description == "203.0.0.0/16")
        #expect(try EDNSClientSubnet(parsing: "2001:db8::1")?.description == "2001:db8::/56")
        for text in ["", "a.test", "1.2.3.4/", "1.2.3.4/x", "1.2.3.4/-1", "1.2.3.4/24/1", "1.2.3.4/0024"] {
            #expect(try EDNSClientSubnet(parsing: text) == nil, "\(text)")
        }
    }

    @Test("a query carries the option before its padding, still padded to 128 octets, and parses back with the option intact")
    func inQuery() throws {
        let subnet = try EDNSClientSubnet(address: IPAddress("192.0.2.77")!)
        let query = try DNSMessage.query(name: "example.com", type: .a, clientSubnet: subnet)
        #expect(query.count == 128)
        let optStart = 12 + 13 + 4
        #expect(
            Array(query[optStart..<(optStart + 26)]) == [
                0x00, 0x00, 0x29, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00,
                0x00, 0x58, // RDLENGTH 88: ECS (4 + 7) and padding (4 + 73)
                0x00, 0x08, 0x00, 0x07, 0x00, 0x01, 24, 0, 192, 0, 2, // ECS
                0x00, 0x0c, 0x00, 0x49 // Padding, 73 octets
            ])
        let message = try DNSMessage(parsing: query)
        let opt = try #require(message.additionals.first)
        guard case .other(let rdata) = opt.data else { Issue.record("\(opt.data)"); return }
        #expect(Array(rdata.prefix(11)) == [0x00, 0x08, 0x00, 0x07, 0x00, 0x01, 24, 0, 192, 0, 2])
        let unpadded = try DNSMessage.query(name: "example.com", type: .a, paddingBlockSize: nil, clientSubnet: .optOut)
        // RDLENGTH 8, then ECS family 1, source /0, scope 0 and no address.
        #expect(Array(unpadded.suffix(10)) == [0x00, 0x08, 0x00, 0x08, 0x00, 0x04, 0x00, 0x01, 0x00, 0x00])
    }
}
