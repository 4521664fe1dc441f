import Foundation
import DNSSEC
import DNSWire
import TestSupport

/// A small zone signed at test time with Debian's ldns tools (`ldns-keygen`, `ldns-signzone`), read
/// back with `ldns-read-zone -u` (every record in RFC 3597 generic form, `\# length hex`) and parsed
/// through `DNSMessage`, so the records are exactly what a DNS response would carry.
struct SignedZone: Sendable {
    /// The zone's apex, absolute (`"test."`).
    let origin: String
    let directory: URL
    /// The signed zone file as `ldns-signzone` wrote it.
    let signedFile: URL
    /// The KSK's `.key` file (for `ldns-verify-zone -k`).
    let kskFile: URL
    /// Every record of the signed zone.
    let records: [DNSResourceRecord]
    /// The KSK's DS record(s), as `ldns-keygen` wrote them.
    let anchors: [TrustAnchor]

    /// Signature inception and expiration given to `ldns-signzone` (YYYYMMDDHHmmSS, UTC).
    static let inception = "20250101000000"
    static let expiration = "20350101000000"
    /// Seconds since 1970 of the two, and a moment inside the window.
    static let inceptionTime: Int64 = 1_735_689_600
    static let expirationTime: Int64 = 2_051_222_400
    static let insideWindow: Int64 = 1_893_456_000 // 2030-01-01

    /// The unsigned zone: apex SOA and NS, an address, an alias and a delegation-free child name.
    static func zoneText(origin: String) -> String {
        """
        $ORIGIN \(origin)
        $TTL 3600
        @ IN SOA ns.\(origin) hostmaster.\(origin) 1 7200 3600 1209600 300
        @ IN NS ns.\(origin)
        ns IN A 192.0.2.1
        www IN A 192.0.2.2
        www IN A 192.0.2.3
        www IN AAAA 2001:db8::2
        alias IN CNAME www.\(origin)
        *.wild IN A 192.0.2.9
        """
    }

    /// Generates a KSK and a ZSK of `algorithm` (an ldns name: `RSASHA256`, `ECDSAP256SHA256`, …) and signs.
    /// - Parameter nsec3: Sign with NSEC3 (`-n`, SHA-1, no extra iterations, no salt) instead of NSEC.
    /// - Parameter keepFiles: Keep the directory (for `ldnsVerifies`, `reading`); the caller then calls
    ///   `remove()`. Otherwise it is deleted once the records are read.
    static func make(origin: String = "test.", algorithm: String, nsec3: Bool = false, optOut: Bool = false, extraText: String = "", keepFiles: Bool = false) throws -> SignedZone {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-dnssec-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { if !keepFiles { try? FileManager.default.removeItem(at: directory) } }
        let zone = directory.appendingPathComponent("zone")
        try (zoneText(origin: origin) + "\n" + extraText + "\n").write(to: zone, atomically: true, encoding: .utf8)

        let ksk = try shell("ldns-keygen -a \(algorithm) -k \(origin)", in: directory).trimmingCharacters(in: .whitespacesAndNewlines)
        let zsk = try shell("ldns-keygen -a \(algorithm) \(origin)", in: directory).trimmingCharacters(in: .whitespacesAndNewlines)
        var options = "-i \(inception) -e \(expiration) -f signed"
        if nsec3 { options += " -n -t 0" + (optOut ? " -p" : "") }
        _ = try shell("ldns-signzone \(options) zone \(ksk) \(zsk)", in: directory)
        let signedFile = directory.appendingPathComponent("signed")
        let dsText = try String(contentsOf: directory.appendingPathComponent(ksk + ".ds"), encoding: .utf8)
        return SignedZone(
            origin: origin, directory: directory, signedFile: signedFile, kskFile: directory.appendingPathComponent(ksk + ".key"),
            records: try read(signedFile), anchors: try TrustAnchor.parse(dsText, source: ksk + ".ds"))
    }

    /// The records of a zone file, through `ldns-read-zone -u` and the message parser.
    static func read(_ file: URL) throws -> [DNSResourceRecord] {
        let types = ["SOA", "NS", "A", "AAAA", "CNAME", "DNSKEY", "RRSIG", "NSEC", "NSEC3", "NSEC3PARAM", "DS", "TXT"]
        return try parseGeneric(shell("ldns-read-zone " + types.map { "-u \($0)" }.joined(separator: " ") + " '\(file.path)'", in: file.deletingLastPathComponent()))
    }

    /// This zone with its records replaced by those of `file` (a copy of the signed file, edited).
    func reading(_ file: URL) throws -> SignedZone {
        SignedZone(origin: origin, directory: directory, signedFile: file, kskFile: kskFile, records: try Self.read(file), anchors: anchors)
    }

    /// `ldns-verify-zone -k KSK` on `file` at the real time; `true` when it accepts the zone.
    func ldnsVerifies(_ file: URL? = nil) throws -> Bool {
        let result = try Command.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "ldns-verify-zone -k '\(kskFile.path)' '\((file ?? signedFile).path)'"], timeout: 120)
        return result.status == 0
    }

    /// Runs a shell command in `directory`; its standard output, or an error with its standard error.
    @discardableResult
    static func shell(_ command: String, in directory: URL) throws -> String {
        let result = try Command.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "cd '\(directory.path)' && " + command], timeout: 120)
        guard result.status == 0 else { throw ZoneError(message: "\(command) exited \(result.status): \(result.stderrText)") }
        return result.stdoutText
    }

    struct ZoneError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// Lines `owner TTL class TYPEn \# length hex…` into records, through the message parser.
    static func parseGeneric(_ text: String) throws -> [DNSResourceRecord] {
        var wire: [UInt8] = []
        var count = 0
        for line in text.split(separator: "\n") where !line.hasPrefix(";") {
            let fields = line.split { $0 == " " || $0 == "\t" }
            guard fields.count >= 6, fields[4] == "\\#", let ttl = UInt32(fields[1]), fields[3].hasPrefix("TYPE"), let type = UInt16(fields[3].dropFirst(4))
            else { throw ZoneError(message: "unexpected line from ldns-read-zone: \(line)") }
            let rdata = OpenSSLTool.bytes(hex: fields[6...].joined())
            wire += try DNSCanonicalForm.wireName(String(fields[0])) + be16(type) + be16(1) + be16(UInt16(ttl >> 16)) + be16(UInt16(ttl & 0xFFFF))
            wire += be16(UInt16(rdata.count)) + rdata
            count += 1
        }
        // A response header with every record in the answer section.
        let header = be16(0) + be16(0x8400) + be16(0) + be16(UInt16(count)) + be16(0) + be16(0)
        return try DNSMessage(parsing: header + wire).answers
    }

    private static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    // MARK: Looking things up

    /// The RRset `name`/`type` (name relative to nothing: give it absolute or in text form).
    func rrset(_ name: String, _ type: DNSRecordType) -> [DNSResourceRecord] {
        let owner = DNSCanonicalForm.name(name)
        return records.filter { $0.type == type && DNSCanonicalForm.name($0.name) == owner }
    }

    /// The RRSIGs at `name` covering `type`.
    func signatures(_ name: String, covering type: DNSRecordType) throws -> [RRSIG] {
        try rrset(name, .rrsig).compactMap { record in
            guard case .rrsig(let signature) = try record.dnssecData(), signature.typeCovered == type else { return nil }
            return signature
        }
    }

    /// The zone's DNSKEYs.
    func keys() throws -> [DNSKEY] {
        try rrset(origin, .dnskey).compactMap { record in
            guard case .dnskey(let key) = try record.dnssecData() else { return nil }
            return key
        }
    }

    /// The zone's DNSKEY RRset validated against its own DS, at `now`.
    func trustedKeys(at now: Int64 = insideWindow) throws -> DNSSECTrustedKeySet {
        try DNSSECValidator(clock: FixedDNSSECClock(now)).validateKeySet(
            rrset(origin, .dnskey), signatures: signatures(origin, covering: .dnskey), zone: origin, anchors: anchors)
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
