import Foundation
import DNSWire

/// Records from the RFCs' own examples, as their presentation format gives them.
enum DNSSECFixtures {
    /// RFC 4034 §5.4 (and RFC 4509 §2.3): `dskey.example.com. DNSKEY 256 3 5 …`, key tag 60485.
    static let dskeyPublicKey = [UInt8](
        Data(
            base64Encoded: "AQOeiiR0GOMYkDshWoSKz9XzfwJr1AYtsmx3TGkJaNXVbfi/2pHm822aJ5iI9BMzNXxeYCmZDRD99WYwYqUSdjMmmAphXdvx"
                + "egXd/M5+X7OrzKBaMbCVdFLUUh6DhweJBjEVv5f2wwjM9XzcnOf+EPbtG9DMBmADjFDc2w/rljwvFw==")!)
    static let dskey = DNSKEY(flags: 256, algorithm: .rsaSHA1, publicKey: dskeyPublicKey)

    /// RFC 4034 §2.3: `example.com. DNSKEY 256 3 5 …`, the key whose tag RFC 4034 §3.3 signs with (2642).
    static let exampleComKey = DNSKEY(
        flags: 256, algorithm: .rsaSHA1,
        publicKey: [UInt8](
            Data(
                base64Encoded: "AQPSKmynfzW4kyBv015MUG2DeIQ3Cbl+BBZH4b/0PY1kxkmvHjcZc8nokfzj31GajIQKY+5CptLr3buXA10hWqTkF7H6RfoRqXQe"
                    + "ogmMHfpftf6zMv1LyBUgia7za6ZEzOJBOztyvhjL742iU/TpPSEDhm2SNKLijfUppn1UaNvv4w==")!))

    /// Hex text to octets (test data only: traps on bad input).
    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }
}
