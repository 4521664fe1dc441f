import Foundation
import HTTPDNSCore

/// DNS wire bytes built by hand (RFC 1035 §4), independent of DNSWire, to answer the resolver's queries.
enum DNSFixture {
    /// The question of a query: its name (lower case, no trailing dot), QTYPE, and raw question octets.
    struct Question: Equatable {
        var name: String
        var type: UInt16
        var bytes: [UInt8]
    }

    struct Record {
        var name: String
        var type: UInt16
        var ttl: UInt32
        var rdata: [UInt8]

        static func a(_ name: String, _ address: String, ttl: UInt32) -> Record {
            Record(name: name, type: 1, ttl: ttl, rdata: IPAddress(address)!.bytes)
        }

        static func aaaa(_ name: String, _ address: String, ttl: UInt32) -> Record {
            Record(name: name, type: 28, ttl: ttl, rdata: IPAddress(address)!.bytes)
        }

        static func cname(_ name: String, _ target: String, ttl: UInt32) -> Record {
            Record(name: name, type: 5, ttl: ttl, rdata: DNSFixture.encode(name: target))
        }

        /// An SOA whose negative TTL (RFC 2308 §5) is min(ttl, minimum).
        static func soa(_ zone: String, ttl: UInt32, minimum: UInt32) -> Record {
            var rdata = DNSFixture.encode(name: "ns.\(zone)") + DNSFixture.encode(name: "hostmaster.\(zone)")
            for field: UInt32 in [2_024_010_101, 7200, 3600, 1_209_600, minimum] { rdata += be32(field) }
            return Record(name: zone, type: 6, ttl: ttl, rdata: rdata)
        }
    }

    static let typeA: UInt16 = 1
    static let typeAAAA: UInt16 = 28

    enum ResponseCode: UInt8 {
        case noError = 0, formatError = 1, serverFailure = 2, nameError = 3, notImplemented = 4, refused = 5
    }

    /// Reads the header and question of a query. `nil` when it is not a one-question message.
    static func question(of query: [UInt8]) -> Question? {
        guard query.count >= 12, query[4] == 0, query[5] == 1 else { return nil }
        var offset = 12
        var labels: [String] = []
        while offset < query.count {
            let length = Int(query[offset])
            offset += 1
            if length == 0 { break }
            guard length < 64, offset + length <= query.count else { return nil }
            labels.append(String(decoding: query[offset..<offset + length], as: UTF8.self))
            offset += length
        }
        guard offset + 4 <= query.count else { return nil }
        let type = UInt16(query[offset]) << 8 | UInt16(query[offset + 1])
        return Question(name: labels.joined(separator: "."), type: type, bytes: Array(query[12..<offset + 4]))
    }

    /// A response echoing `query`'s ID and question.
    static func response(
        to query: [UInt8], code: ResponseCode = .noError, answers: [Record] = [], authorities: [Record] = [],
        truncated: Bool = false
    ) -> Data {
        let question = question(of: query)!
        var flags: UInt16 = 0x8000 | 0x0100 | 0x0080 | UInt16(code.rawValue)
        if truncated { flags |= 0x0200 }
        var bytes: [UInt8] = [query[0], query[1]]
        bytes += be16(flags) + be16(1) + be16(UInt16(answers.count)) + be16(UInt16(authorities.count)) + be16(0)
        bytes += question.bytes
        for record in answers + authorities {
            bytes += encode(name: record.name) + be16(record.type) + be16(1) + be32(record.ttl)
            bytes += be16(UInt16(record.rdata.count)) + record.rdata
        }
        return Data(bytes)
    }

    static func encode(name: String) -> [UInt8] {
        var bytes: [UInt8] = []
        for label in name.split(separator: ".") {
            bytes.append(UInt8(label.utf8.count))
            bytes += Array(label.utf8)
        }
        return bytes + [0]
    }

    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    /// Decodes base64url without padding (RFC 4648 §5).
    static func decodeBase64URL(_ text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map(Array.init)
    }
}
