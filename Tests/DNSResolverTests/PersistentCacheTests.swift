@testable import DNSResolver
import Foundation
import HTTPDNSCore
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Persistent cache")
struct PersistentCacheTests {
    static func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-cache-\(UUID().uuidString).json")
    }

    static func harness(file: URL, events: EventRecorder = EventRecorder(), stale: TimeInterval? = nil) -> ResolverHarness {
        ResolverHarness {
            $0.persistentCacheFile = file
            $0.families = .ipv4
            $0.observer = events
            $0.maximumStaleness = stale
        }
    }

    @Test func aRestartedResolverAnswersFromTheFileWithoutAsking() async throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let first = Self.harness(file: file)
        _ = try await first.resolve("a.test")
        let second = Self.harness(file: file)
        let resolution = try await second.resolve("a.test")
        #expect(resolution.source == .cache)
        #expect(resolution.addresses == [IPAddress("192.0.2.1")!])
        #expect(resolution.provider == "doh")
        #expect(second.queries == 0)
    }

    static func mode(of path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode : nil
    }

    @Test("a FIFO (as /dev/null, anything but a regular file) is neither read nor replaced, with a warning")
    func aFileThatIsNotRegularIsLeftAlone() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("fifo").path
        try #require(mkfifo(fifo, 0o600) == 0)
        let events = EventRecorder()
        // Reading a FIFO with no writer would block for ever; it is not even opened.
        let harness = Self.harness(file: URL(fileURLWithPath: fifo), events: events)
        _ = try await harness.resolve("a.test")
        harness.resolver.savePersistentCache()
        #expect(Self.mode(of: fifo).map { $0 & S_IFMT } == S_IFIFO, "the FIFO is still a FIFO")
        #expect(throws: PersistentCacheFile.WriteError.self) { try PersistentCacheFile.write([], to: URL(fileURLWithPath: fifo)) }
        #expect(throws: PersistentCacheFile.ReadError.self) { try PersistentCacheFile.read(from: URL(fileURLWithPath: fifo)) }
        #expect(events.events.contains { $0.hasPrefix("warning") && $0.contains("not a regular file") }, "\(events.events)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["fifo"], "no lock file beside a FIFO")
    }

    @Test("a file of another format, or of another version of this one, is warned about and never replaced",
          arguments: [#"{"format":"other","version":1}"#, #"{"format":"httpdns-cache","version":2,"records":[]}"#, "plain text\n"])
    func aForeignFileIsNotReplaced(content: String) async throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(content.utf8).write(to: file)
        let events = EventRecorder()
        let harness = Self.harness(file: file, events: events)
        _ = try await harness.resolve("a.test")
        harness.resolver.savePersistentCache()
        #expect(try String(contentsOf: file, encoding: .utf8) == content)
        #expect(events.events.contains { $0.hasPrefix("warning") && $0.contains("not writing the cache file") }, "\(events.events)")
    }

    @Test("two resolvers sharing the file keep each other's answers: each write merges what the file holds")
    func sharedFileMergesWrites() async throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        // Both start before either writes, as two processes would.
        let first = Self.harness(file: file)
        let second = Self.harness(file: file)
        _ = try await first.resolve("a.test")
        first.resolver.savePersistentCache()
        _ = try await second.resolve("v4only.test")
        second.resolver.savePersistentCache()
        #expect(Set(try PersistentCacheFile.read(from: file).map(\.name)) == ["a.test", "v4only.test"])
    }

    @Test("a symbolic link is followed: its target is replaced and the link kept; a replaced file keeps its permissions")
    func symbolicLinksAndPermissions() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let real = directory.appendingPathComponent("real.json")
        let link = directory.appendingPathComponent("link.json")
        try Data("{}".utf8).write(to: real)
        try #require(chmod(real.path, 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "real.json")
        let record = PersistentCacheFile.Record(name: "a.test", families: .ipv4, addresses: [IPAddress("192.0.2.1")!], expires: 2e9, provider: nil)
        try PersistentCacheFile.write([record], to: link)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "real.json", "the link is kept")
        #expect(try PersistentCacheFile.read(from: real).map(\.name) == ["a.test"], "the target was written")
        #expect(Self.mode(of: real.path).map { $0 & 0o777 } == 0o600, "a private file stays private")
    }

    @Test("a new file gets 0666 less the umask, which the kernel applies: the process's umask is never changed, even for a moment")
    func aNewFileGetsTheUmasksMode() throws {
        // The umask as /proc reports it (Linux 4.7+): reading it with umask(2) would change it.
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
        let umaskValue = try #require(mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("new.json")
        let record = PersistentCacheFile.Record(name: "a.test", families: .ipv4, addresses: [IPAddress("192.0.2.1")!], expires: 2e9, provider: nil)
        try PersistentCacheFile.write([record], to: file)
        #expect(Self.mode(of: file.path).map { $0 & 0o777 } == 0o666 & ~umaskValue)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["new.json"], "no temporary file is left")
    }

    @Test func theFileIsReplacedAtomicallyAndIsAnHttpdnsCacheDocument() async throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        _ = try await Self.harness(file: file).resolve("a.test")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        #expect(object["format"] as? String == "httpdns-cache")
        #expect(object["version"] as? Int == 1)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
            .filter { $0.hasPrefix(".\(file.lastPathComponent)") || ($0.contains(file.deletingPathExtension().lastPathComponent) && $0 != file.lastPathComponent) }
        #expect(leftovers.isEmpty, "no temporary files left beside it: \(leftovers)")
    }

    @Test(arguments: ["{not json", #"{"format":"something-else","version":1,"records":[]}"#, #"{"format":"httpdns-cache","version":99,"records":[]}"#,
                      #"{"format":"httpdns-cache","version":1,"records":[{"name":"a..test","families":"ipv4","addresses":["x"],"expires":1}]}"#, "",
                      #"{"format":"httpdns-cache","vers"#])
    func aCorruptOrForeignFileIsIgnoredWithAWarning(contents: String) async throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(contents.utf8).write(to: file)
        let events = EventRecorder()
        let harness = Self.harness(file: file, events: events)
        #expect(events.events.contains { $0.hasPrefix("warning ignoring the cache file") })
        #expect(try await harness.resolve("a.test").source == .doh(endpoint: ResolverHarness.first.url))
        // A damaged cache file of this version, or an empty one, is replaced by a good one; someone
        // else's data (another format or version, or text that is not one) is left as it was.
        let foreign = PersistentCacheFile.refusalToReplace(file) != nil
        #expect(foreign == (contents.hasPrefix("{not") || contents.contains("something-else") || contents.contains("99")))
        #expect((Self.harness(file: file).resolver.cachedResolution(host: "a.test") != nil) == !foreign)
    }

    static func write(records: [(name: String, expires: TimeInterval)], to file: URL) throws {
        let list = records.map { #"{"name":"\#($0.name)","families":"ipv4","addresses":["192.0.2.77"],"expires":\#($0.expires)}"# }
        try Data(#"{"format":"httpdns-cache","version":1,"records":[\#(list.joined(separator: ","))]}"#.utf8).write(to: file)
    }

    @Test func recordsExpiredLongerThanTheMaximumAgeAreDroppedOnLoad() async throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let now = Date().timeIntervalSince1970
        try Self.write(records: [("recent.test", now - 100), ("ancient.test", now - 200_000), ("live.test", now + 500)], to: file)
        let harness = Self.harness(file: file, stale: 1_000)
        #expect(harness.resolver.cachedCount == 2)
        #expect(harness.resolver.cachedResolution(host: "live.test")?.addresses == [IPAddress("192.0.2.77")!])
        let recent = try await harness.resolve("recent.test")
        #expect(recent.isStale, "an answer expired a little is usable as stale only")
    }
}

@Suite("Hijack check")
struct HijackCheckTests {
    static func harness(system: @escaping @Sendable (String) throws -> [IPAddress]) -> ResolverHarness {
        ResolverHarness(system: FakeSystemResolver(system)) { $0.families = .ipv4 }
    }

    @Test func matchingAnswersAgree() async {
        let comparison = await Self.harness { _ in [IPAddress("192.0.2.1")!] }.resolver.compare(host: "a.test")
        #expect(comparison.verdict == .agree)
    }

    @Test func disjointAnswersDisagreeAndListBothSets() async {
        let comparison = await Self.harness { _ in [IPAddress("203.0.113.66")!] }.resolver.compare(host: "A.test.")
        #expect(comparison.verdict == .disagree)
        #expect(comparison.host == "a.test")
        #expect(comparison.trusted == .success([IPAddress("192.0.2.1")!]))
        #expect(comparison.system == .success([IPAddress("203.0.113.66")!]))
    }

    @Test func aSystemAnswerForANameThatDoesNotExistDisagrees() async {
        let comparison = await Self.harness { _ in [IPAddress("203.0.113.66")!] }.resolver.compare(host: "missing.test")
        #expect(comparison.verdict == .disagree)
    }

    @Test("a name with no address of the family asked on either side agrees: the system's other-family addresses are NODATA here too")
    func noDataOnBothSidesAgrees() async {
        // The fake zone's nodata.test has no A record; the system resolver knows only an IPv6 address.
        let comparison = await Self.harness { _ in [IPAddress("2001:db8::9")!] }.resolver.compare(host: "nodata.test")
        #expect(comparison.system == .failure(.noAddresses(host: "nodata.test", negativeTTL: nil)))
        #expect(comparison.verdict == .agree)
    }

    @Test func aFailingSideIsReportedAsSuch() async {
        let comparison = await Self.harness { name in throw ResolutionError.resolverUnavailable(host: name, reasons: ["timeout"]) }.resolver.compare(host: "a.test")
        #expect(comparison.verdict == .systemFailed)
    }

    @Test func theComparisonNeverUsesTheCache() async throws {
        let harness = Self.harness { _ in [IPAddress("192.0.2.1")!] }
        _ = try await harness.resolve("a.test")
        _ = await harness.resolver.compare(host: "a.test")
        #expect(harness.queries == 2)
    }
}
