/// The set of RR types present at a name, as NSEC and NSEC3 records carry it (RFC 4034 §4.1.2,
/// RFC 5155 §3.2.1): window blocks of up to 256 types each.
///
/// Parsing is strict, as RFC 4034 §4.1.2 lays the field out: windows in increasing order and each at
/// most once, bitmap lengths 1…32, and no trailing zero octet in a window. Encoding writes exactly that
/// form, so `init(parsing:type:)` of `encoded` gives back an equal bitmap.
public struct DNSTypeBitmap: Hashable, Sendable, CustomStringConvertible {
    /// The type codes present, ascending, without duplicates.
    public private(set) var types: [DNSRecordType]

    /// A bitmap of `types` (any order; duplicates are dropped).
    public init(_ types: some Sequence<DNSRecordType>) {
        self.types = Set(types.map(\.rawValue)).sorted().map { DNSRecordType(rawValue: $0) }
    }

    /// Parses the type bitmap field: the whole of `octets`.
    /// - Parameter type: The record the bitmap belongs to (`.nsec` or `.nsec3`), named in errors.
    /// - Throws: `DNSSECRecordError.typeBitmap` with the problem.
    public init(parsing octets: [UInt8], type: DNSRecordType) throws(DNSSECRecordError) {
        var codes: [DNSRecordType] = []
        var offset = 0
        var previous: UInt8?
        while offset < octets.count {
            guard octets.count - offset >= 2 else { throw .typeBitmap(type: type, .truncatedWindowHeader(offset: offset)) }
            let window = octets[offset], length = Int(octets[offset + 1])
            if let previous, window <= previous { throw .typeBitmap(type: type, .windowOutOfOrder(window: window, previous: previous)) }
            guard (1...32).contains(length) else { throw .typeBitmap(type: type, .badWindowLength(window: window, length: length)) }
            let start = offset + 2
            guard octets.count - start >= length else {
                throw .typeBitmap(type: type, .truncatedWindow(window: window, length: length, available: octets.count - start))
            }
            guard octets[start + length - 1] != 0 else { throw .typeBitmap(type: type, .trailingZeroOctet(window: window)) }
            for index in 0..<length {
                let octet = octets[start + index]
                for bit in 0..<8 where octet & (0x80 >> bit) != 0 {
                    codes.append(DNSRecordType(rawValue: UInt16(window) << 8 | UInt16(index * 8 + bit)))
                }
            }
            previous = window
            offset = start + length
        }
        self.types = codes
    }

    /// Whether `type` is in the set.
    public func contains(_ type: DNSRecordType) -> Bool {
        types.contains(type)
    }

    /// The field in wire form: one block per window that has a type, each as short as its highest type allows.
    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        var index = types.startIndex
        while index < types.endIndex {
            let window = UInt8(types[index].rawValue >> 8)
            var bitmap = [UInt8](repeating: 0, count: 32)
            var highest = 0
            while index < types.endIndex, UInt8(types[index].rawValue >> 8) == window {
                let low = Int(types[index].rawValue & 0xFF)
                bitmap[low / 8] |= 0x80 >> UInt8(low % 8)
                highest = low / 8
                index += 1
            }
            bytes.append(window)
            bytes.append(UInt8(highest + 1))
            bytes.append(contentsOf: bitmap[0...highest])
        }
        return bytes
    }

    /// The types' mnemonics separated by spaces, as in presentation format.
    public var description: String {
        types.map(\.description).joined(separator: " ")
    }
}
