import Foundation
import HTTPDNSCore
#if canImport(Glibc)
import Glibc
#endif

/// The on-disk form of `HostResolver`'s cache (`Configuration.persistentCacheFile`): JSON,
/// `{"format": "httpdns-cache", "version": 1, "records": [{"name", "families", "addresses", "expires",
/// "provider"}]}` with `expires` in seconds since 1970 (wall clock, so it survives a reboot).
///
/// Only address answers are kept; negative answers are short-lived and not worth a restart.
enum PersistentCacheFile {
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

    /// Why a cache file was not written.
    struct WriteError: Error, CustomStringConvertible {
        var description: String
    }

    /// What is at `path` (symbolic links followed): nil when nothing is, else a description of
    /// anything but a regular file ("a directory", "not a regular file"), or "" for a regular file.
    private static func kind(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return ""
        case S_IFDIR: return "it is a directory"
        default: return "it is not a regular file (a device, FIFO or socket), which the cache never replaces"
        }
    }

    /// Why `file` must not be replaced by a cache write, or nil when it may be (it is missing, or
    /// an httpdns cache file of this version, however damaged): a JSON document of another format,
    /// or of another version of this one (a newer program's file is not downgraded), or a file
    /// that is neither JSON nor mentions this format, is someone else's data.
    static func refusalToReplace(_ file: URL) -> String? {
        let target = file.followingSymbolicLinks()
        // Anything but a regular file is never opened (a FIFO would block): `write` refuses it.
        guard kind(of: target.path) == "", let data = try? Data(contentsOf: target), !data.isEmpty else { return nil }
        struct Header: Decodable { var format: String?; var version: Int? }
        if let header = try? JSONDecoder().decode(Header.self, from: data) {
            if header.format != format { return "it is not an httpdns cache file (format '\(header.format ?? "none")')" }
            if header.version != version { return "it is a cache file of version \(header.version.map(String.init) ?? "none"), not \(version)" }
            return nil
        }
        return data.range(of: Data(format.utf8)) == nil ? "it is not an httpdns cache file (not JSON)" : nil
    }

    /// Runs `body` holding an exclusive lock (flock) on the directory that holds `file`, so that
    /// processes sharing the cache file merge their writes one after another (the file itself is
    /// replaced by a rename, so a lock on it would not hold; a lock file beside it would stay).
    /// Runs it unlocked when the directory cannot be opened (it does not exist yet: `write`
    /// creates it).
    static func withLock<T>(on file: URL, _ body: () -> T) -> T {
        let target = file.followingSymbolicLinks()
        guard (kind(of: target.path) ?? "") == "" else { return body() }
        let fd = open(target.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return body() }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0, errno == EINTR {}
        defer { flock(fd, LOCK_UN) }
        return body()
    }

    /// The records in `file`.
    /// - Throws: `ReadError` for an unreadable, malformed or foreign file (another format or version),
    ///   or anything but a regular file.
    static func read(from file: URL) throws(ReadError) -> [Record] {
        if let kind = kind(of: file.path), !kind.isEmpty { throw ReadError(description: kind) }
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

    /// Writes `records` to `file` atomically (a temporary file beside it, then rename).
    ///
    /// A symbolic link is followed (its target is replaced, the link kept); anything but a regular
    /// file (`/dev/null`, a FIFO, a directory) is left alone. A replaced file keeps its permissions
    /// and, when the process may set it, its owner (`FileReplacement`).
    /// - Throws: `WriteError` saying why (the POSIX reason).
    static func write(_ records: [Record], to file: URL) throws(WriteError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(Document(format: format, version: version, records: records.sorted { $0.name < $1.name }))
        } catch {
            throw WriteError(description: "cannot encode the cache (\(error))")
        }
        let target = file.followingSymbolicLinks()
        if let kind = kind(of: target.path), !kind.isEmpty { throw WriteError(description: kind) }
        // A first run with a cache file in a new directory (~/.cache/...) creates it.
        let directory = target.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw WriteError(description: "cannot create the directory \(directory.path) (\(posixReason(error)))")
        }
        guard let replacement = FileReplacement(replacing: target.path) else {
            throw WriteError(description: "cannot create a file in \(directory.path) (\(String(cString: strerror(errno))))")
        }
        let failure = data.withUnsafeBytes { writeFully($0, to: replacement.fd) }
        close(replacement.fd)
        if let failure {
            replacement.discard()
            throw WriteError(description: failure)
        }
        if let failure = replacement.commit() { throw WriteError(description: failure) }
    }

    /// The POSIX reason inside a Foundation file error, else its description.
    private static func posixReason(_ error: any Error) -> String {
        if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let underlying, underlying.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(underlying.code))) }
        return error.localizedDescription
    }
}
