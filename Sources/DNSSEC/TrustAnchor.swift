import Foundation
import DNSWire

/// A key a validator trusts without proof (RFC 4033 §2, RFC 7958): a DS or a DNSKEY for a zone,
/// usually the root's KSK.
///
/// `root()` reads Debian's `dns-root-data` package; callers may also give their own, for private
/// zones or tests.
public struct TrustAnchor: Hashable, Sendable {
    /// The trusted key, as a digest or in full.
    public enum Key: Hashable, Sendable {
        /// A DS record's RDATA: a digest of the key.
        case ds(DS)
        /// The DNSKEY itself.
        case dnskey(DNSKEY)
    }

    /// The zone the key belongs to (text form: lower-case, no trailing dot, root `""`).
    public var zone: String
    /// The key.
    public var key: Key

    /// An anchor for `zone` (any case, optional trailing dot; `"."` is the root).
    public init(zone: String, key: Key) {
        self.zone = DNSCanonicalForm.name(zone == "." ? "" : zone) ?? zone
        self.key = key
    }

    /// The key tag the anchor names (the DS's, or the DNSKEY's computed one).
    public var keyTag: UInt16 {
        switch key {
        case .ds(let ds): ds.keyTag
        case .dnskey(let key): key.keyTag
        }
    }

    /// Debian's copy of the IANA root anchors (package `dns-root-data`).
    public static let debianRootDS = "/usr/share/dns/root.ds"
    /// The same anchors as DNSKEY records.
    public static let debianRootKey = "/usr/share/dns/root.key"

    /// The root zone's trust anchors from Debian's `dns-root-data`: `root.ds` when present, otherwise
    /// `root.key`. Only anchors for the root are kept.
    /// - Parameter directory: Where the two files are (default `/usr/share/dns`).
    /// - Throws: `DNSSECValidationError.invalidTrustAnchor` when neither file can be read, or one has a
    ///   malformed line or no root anchor.
    public static func root(directory: String = "/usr/share/dns") throws(DNSSECValidationError) -> [TrustAnchor] {
        let candidates = ["root.ds", "root.key"].map { directory + "/" + $0 }
        guard let path = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0) }) else {
            throw .invalidTrustAnchor(source: candidates.joined(separator: " or "), reason: "not readable: install Debian's dns-root-data package, or give anchors yourself")
        }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .invalidTrustAnchor(source: path, reason: "cannot be read: \(error.localizedDescription)")
        }
        let anchors = try parse(text, source: path).filter { $0.zone.isEmpty }
        guard !anchors.isEmpty else { throw .invalidTrustAnchor(source: path, reason: "holds no DS or DNSKEY for the root") }
        return anchors
    }
}
