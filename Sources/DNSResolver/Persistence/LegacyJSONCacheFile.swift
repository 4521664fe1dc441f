import Foundation
import HTTPDNSCore
#if canImport(Glibc)
    import Glibc
#endif

/// The cache file of httpdns before the SQLite store: JSON,
/// `{"format": "httpdns-cache", "version": 1, "records": [{"name", "families", "addresses", "expires",
/// "provider"}]}` with `expires` in seconds since 1970. Read once, when `ResolverCacheStore` migrates
/// such a file to SQLite; never written.
enum LegacyJSONCacheFile {
    static let format = "httpdns-cache"
    static let version = 1

    struct Record: Codable, Sendable {
        var name: String
        var families: AddressFamilies
        var addresses: [IPAddress]
        var expires: TimeInterval
        var provider: String?

        enum CodingKeys: String, CodingKey { case name, families, addresses, expires, provider }

        init(name: String, families: AddressFamilies, addresses: [IPAddress], expires: TimeInterval, provider: String?) {
            self.name = name
            self.families = families
            self.addresses = addresses
            self.expires = expires
            self.provider = provider
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let rawName = try container.decode(String.self, forKey: .name)
            guard let name = HostName.normalize(rawName), IPAddress(name) == nil else {
                throw DecodingError.dataCorruptedError(forKey: .name, in: container, debugDescription: "invalid host name '\(rawName)'")
            }
            self.name = name
            let rawFamilies = try container.decode(String.self, forKey: .families)
            guard let families = AddressFamilies(rawValue: rawFamilies), families != .auto else {
                throw DecodingError.dataCorruptedError(forKey: .families, in: container, debugDescription: "invalid families '\(rawFamilies)'")
            }
            self.families = families
            var addresses: [IPAddress] = []
            for text in try container.decode([String].self, forKey: .addresses) {
                guard let address = IPAddress(text) else {
                    throw DecodingError.dataCorruptedError(forKey: .addresses, in: container, debugDescription: "invalid address '\(text)'")
                }
                addresses.append(address)
            }
            self.addresses = addresses
            expires = try container.decode(TimeInterval.self, forKey: .expires)
            guard expires.isFinite else {
                throw DecodingError.dataCorruptedError(forKey: .expires, in: container, debugDescription: "invalid expiry")
            }
            provider = try container.decodeIfPresent(String.self, forKey: .provider)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(families.rawValue, forKey: .families)
            try container.encode(addresses.map(\.description), forKey: .addresses)
            try container.encode(expires, forKey: .expires)
            try container.encodeIfPresent(provider, forKey: .provider)
        }
    }

    private struct Document: Codable {
        var format: String
        var version: Int
        var records: [Record]
    }

    /// Why a cache file was not used.
    struct ReadError: Error, CustomStringConvertible {
        var description: String
    }

    /// Whether `data` is a JSON document of this format (of any version, however damaged after
    /// its header).
    static func isLegacyDocument(_ data: Data) -> Bool {
        struct Header: Decodable { var format: String? }
        if let header = try? JSONDecoder().decode(Header.self, from: data) { return header.format == format }
        return data.first == UInt8(ascii: "{") && data.prefix(200).range(of: Data("\"\(format)\"".utf8)) != nil
    }

    /// The records in `file`.
    /// - Throws: `ReadError` for an unreadable, malformed or foreign file (another format or version).
    static func read(from file: URL) throws(ReadError) -> [Record] {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw ReadError(description: "cannot read it (\(posixReason(error)))")
        }
        struct Header: Decodable { var format: String?; var version: Int? }
        guard let header = try? JSONDecoder().decode(Header.self, from: data) else {
            throw ReadError(description: "it is not an httpdns cache file (not JSON)")
        }
        guard header.format == format else { throw ReadError(description: "it is not an httpdns cache file (format '\(header.format ?? "none")')") }
        guard header.version == version else { throw ReadError(description: "unsupported cache file version \(header.version.map(String.init) ?? "none")") }
        do {
            return try JSONDecoder().decode(Document.self, from: data).records
        } catch {
            throw ReadError(description: "it is corrupt (\(error))")
        }
    }

    /// The POSIX reason inside a Foundation file error, else its description.
    private static func posixReason(_ error: any Error) -> String {
        if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let underlying, underlying.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(underlying.code))) }
        return error.localizedDescription
    }
}
