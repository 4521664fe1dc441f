internal import COpenSSL
import DNSWire

/// NSEC3 owner-name hashing (RFC 5155 §5) and the Base32hex encoding of hashes (RFC 4648 §7).
public enum NSEC3Hash {
    /// The most extra iterations this validator computes. RFC 9276 §3.2 lets validators treat NSEC3
    /// records above a limit as insecure; 150 is the limit most resolvers adopted.
    public static let maximumIterations: UInt16 = 150

    /// The hash of `name` with `parameters` (RFC 5155 §5): SHA-1 over the canonical wire name and
    /// the salt, then `iterations` more times over the previous hash and the salt.
    /// - Returns: 20 octets, or `nil` for a hash algorithm other than 1 (SHA-1) or a name that cannot
    ///   be encoded.
    public static func hash(_ name: String, parameters: NSEC3PARAM) -> [UInt8]? {
        guard parameters.hashAlgorithm == 1, let wire = try? DNSCanonicalForm.wireName(name) else { return nil }
        guard var digest = sha1(wire + parameters.salt) else { return nil }
        for _ in 0..<parameters.iterations {
            guard let next = sha1(digest + parameters.salt) else { return nil }
            digest = next
        }
        return digest
    }

    private static func sha1(_ input: [UInt8]) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        guard EVP_Digest(input, input.count, &output, &length, EVP_sha1(), nil) == 1, length == 20 else {
            ERR_clear_error()
            return nil
        }
        return output
    }

    private static let alphabet = Array("0123456789abcdefghijklmnopqrstuv".utf8)

    /// `octets` in Base32hex without padding, lower-case, as NSEC3 owner labels are written.
    public static func base32hex(_ octets: [UInt8]) -> String {
        var text: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for octet in octets {
            buffer = buffer << 8 | UInt32(octet)
            bits += 8
            while bits >= 5 {
                text.append(alphabet[Int(buffer >> UInt32(bits - 5) & 0x1F)])
                bits -= 5
            }
        }
        if bits > 0 { text.append(alphabet[Int(buffer << UInt32(5 - bits) & 0x1F)]) }
        return String(decoding: text, as: UTF8.self)
    }

    /// The octets a Base32hex label spells (either case, no padding); `nil` for any other character or
    /// for leftover bits that are not zero.
    public static func octets(base32hex text: some StringProtocol) -> [UInt8]? {
        var octets: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for character in text.utf8 {
            let value: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "v"): value = character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "V"): value = character - UInt8(ascii: "A") + 10
            default: return nil
            }
            buffer = buffer << 5 | UInt32(value)
            bits += 5
            if bits >= 8 {
                octets.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits - 8)))
                bits -= 8
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        return buffer == 0 ? octets : nil
    }
}
