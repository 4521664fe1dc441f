import Foundation
import DNSWire
import HTTPDNSCore

extension TrustAnchor {
    /// Parses DS and DNSKEY records in zone-file presentation format (RFC 1035 §5, RFC 4034 §2.2 and
    /// §5.3), as `root.ds`, `root.key` and `dnssec-keygen`'s `.key` / `.ds` files hold them:
    /// `owner [TTL] [IN] DS keytag algorithm digesttype hex…` or `owner [TTL] [IN] DNSKEY flags protocol algorithm base64…`.
    ///
    /// Comments (`;` to the end of the line), blank lines, `$` directives and parentheses spanning lines
    /// are understood; records of other types are skipped. Owners must be absolute (a trailing dot).
    /// - Parameters:
    ///   - text: The file's contents.
    ///   - source: A name for the text in errors (a path).
    /// - Throws: `DNSSECValidationError.invalidTrustAnchor` naming the line and what is wrong.
    public static func parse(_ text: String, source: String) throws(DNSSECValidationError) -> [TrustAnchor] {
        var anchors: [TrustAnchor] = []
        var pending: [Substring] = []
        var pendingLine = 0
        var depth = 0
        for (index, rawLine) in text.textLines.enumerated() {
            let line = rawLine.prefix { $0 != ";" }
            if pending.isEmpty, depth == 0 {
                pendingLine = index + 1
                if line.first == "$" { continue }
            }
            for character in line where character == "(" || character == ")" { depth += character == "(" ? 1 : -1 }
            pending += line.split { $0 == " " || $0 == "\t" || $0 == "(" || $0 == ")" || $0 == "\r" }
            guard depth <= 0 else { continue }
            depth = 0
            defer { pending = [] }
            guard !pending.isEmpty else { continue }
            do {
                if let anchor = try record(pending) { anchors.append(anchor) }
            } catch {
                throw .invalidTrustAnchor(source: source, reason: "line \(pendingLine): \(error.reason)")
            }
        }
        return anchors
    }

    private struct LineError: Error {
        let reason: String
    }

    private static func record(_ tokens: [Substring]) throws(LineError) -> TrustAnchor? {
        guard let owner = tokens.first, owner.hasSuffix(".") else { throw LineError(reason: "the owner name must be absolute (end in a dot)") }
        var rest = tokens.dropFirst()
        // TTL and class may come in either order (RFC 1035 §5.1).
        while let token = rest.first, token.allSatisfy(\.isNumber) || token.uppercased() == "IN" {
            rest = rest.dropFirst()
        }
        guard let type = rest.first?.uppercased() else { throw LineError(reason: "no record type") }
        let fields = Array(rest.dropFirst())
        switch type {
        case "DS":
            guard fields.count >= 4, let tag = UInt16(fields[0]), let algorithm = UInt8(fields[1]), let digestType = UInt8(fields[2]),
                let digest = HexText.bytes(fields[3...].joined()), !digest.isEmpty
            else { throw LineError(reason: "a DS needs key tag, algorithm, digest type and a hex digest") }
            let ds = DS(keyTag: tag, algorithm: DNSSECAlgorithm(rawValue: algorithm), digestType: DNSSECDigestType(rawValue: digestType), digest: digest)
            return TrustAnchor(zone: String(owner), key: .ds(ds))
        case "DNSKEY":
            guard fields.count >= 4, let flags = UInt16(fields[0]), let proto = UInt8(fields[1]), let algorithm = UInt8(fields[2]),
                let key = Data(base64Encoded: fields[3...].joined())
            else { throw LineError(reason: "a DNSKEY needs flags, protocol, algorithm and a Base64 key") }
            return TrustAnchor(zone: String(owner), key: .dnskey(DNSKEY(flags: flags, protocol: proto, algorithm: DNSSECAlgorithm(rawValue: algorithm), publicKey: [UInt8](key))))
        default:
            return nil
        }
    }
}
