@testable import DNSResolver
import Foundation
import HTTPDNSCore
import Testing
#if canImport(Glibc)
    import Glibc
#endif

/// The SQLite cache file (`Configuration.persistentCacheFile`, `ResolverCacheStore`). Each test works
/// in a directory of its own, removed at its end with the WAL files beside the cache.
@Suite("Persistent cache (SQLite)")
struct ResolverCacheStoreTests {
    /// A new directory under /tmp, and a cache file path in it.
    static func scratch() throws -> (directory: URL, file: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (directory, directory.appendingPathComponent("cache.sqlite"))
    }

    static func harness(
        file: URL, events: EventRecorder = EventRecorder(), stale: TimeInterval? = nil,
        configure: (inout HostResolver.Configuration) -> Void = { _ in }
    ) throws -> ResolverHarness {
        try ResolverHarness {
            $0.persistentCacheFile = file
            $0.families = .ipv4
            $0.observer = events
            $0.maximumStaleness = stale
            configure(&$0)
        }
    }

    /// The names in the file's rows, read with a connection of the test's own.
    static func names(in file: URL) throws -> [String] {
        let database = try SQLiteDatabase(path: file.path, readOnly: true, busyTimeout: 1)
        let statement = try database.prepare("SELECT name FROM answers ORDER BY name")
        var names: [String] = []
        while try statement.step() { names.append(statement.text(0) ?? "") }
        return names
    }

    static func mode(of path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode : nil
    }

    @Test func aRestartedResolverAnswersFromTheFileWithoutAsking() async throws {
        let (directory, file) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try Self.harness(file: file)
        _ = try await first.resolve("a.test")
        first.resolver.savePersistentCache()
        let second = try Self.harness(file: file)
        let resolution = try await second.resolve("a.test")
        #expect(resolution.source == .cache)
        #expect(resolution.addresses == [IPAddress("192.0.2.1")!])
        #expect(resolution.provider == "doh")
        #expect(second.queries == 0)
    }

    @Test("the file is SQLite in WAL mode with this schema's version and application id")
    func theFileIsAnSQLiteDatabaseOfThisSchema() async throws {
        let (directory, file) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let harness = try Self.harness(file: file)
        _ = try await harness.resolve("a.test")
        harness.resolver.savePersistentCache()
        let database = try SQLiteDatabase(path: file.path, readOnly: true, busyTimeout: 1)
        #expect(try database.pragma("user_version") == ResolverCacheStore.schemaVersion)
        #expect(try database.pragma("application_id") == ResolverCacheStore.applicationID)
        let mode = try database.prepare("PRAGMA journal_mode")
        #expect(try mode.step())
        #expect(mode.text(0) == "wal")
        #expect(try Self.names(in: file) == ["a.test"])
    }

    @Test("one row per name and family set: a second answer for the same pair replaces its row")
    func oneRowPerNameAndFamilies() async throws {
        let (directory, file) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let harness = try Self.harness(file: file)
        _ = try await harness.resolver.resolve(host: "a.test", port: 443, families: .ipv4)
        _ = try await harness.resolver.resolve(host: "a.test", port: 443, families: .both)
        harness.clock.advance(by: 301)
        _ = try await harness.resolver.resolve(host: "a.test", port: 443, families: .ipv4)
        harness.resolver.savePersistentCache()
        let database = try SQLiteDatabase(path: file.path, readOnly: true, busyTimeout: 1)
        let rows = try database.prepare("SELECT families FROM answers WHERE name = 'a.test' ORDER BY families")
        var families: [String] = []
        while try rows.step() { families.append(rows.text(0) ?? "") }
        #expect(families == ["both", "ipv4"])
    }

    @Test("flush() deletes every row: a new resolver on the file asks again")
    func flushDeletesTheRows() async throws {
        let (directory, file) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try Self.harness(file: file)
        _ = try await first.resolve("a.test")
        _ = try await first.resolve("v4only.test")
        first.resolver.flush()
        first.resolver.savePersistentCache()
        #expect(try Self.names(in: file).isEmpty)
        let second = try Self.harness(file: file)
        #expect(second.resolver.cachedCount == 0)
        #expect(try await second.resolve("a.test").source == .doh(endpoint: ResolverHarness.first.url))
    }

    @Test("flush(host:) deletes that name's rows only")
    func flushHostDeletesItsRows() async throws {
        let (directory, file) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let harness = try Self.harness(file: file)
        _ = try await harness.resolve("a.test")
        _ = try await harness.resolve("v4only.test")
        harness.resolver.flush(host: "A.test.")
        harness.resolver.savePersistentCache()
        #expect(try Self.names(in: file) == ["v4only.test"])
    }

    @Test("two resolvers sharing the file keep each other's answers: each writes only its changed rows")
    func sharedFileKeepsBothResolversAnswers() async throws {
        let (directory, file) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Both start before either writes, as two processes would.
        let first = try Self.harness(file: file)
        let second = try Self.harness(file: file)
        _ = try await first.resolve("a.test")
        first.resolver.savePersistentCache()
        _ = try await second.resolve("v4only.test")
        second.resolver.savePersistentCache()
        #expect(try Self.names(in: file) == ["a.test", "v4only.test"])
    }

    @Test("a lookup does not wait for the disk: with the file locked by another process it answers, and the answer is written once the lock goes")
    func aLockedFileDelaysTheWriteNotTheLookupAndLosesNothing() async throws {
        let (directory, file) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let events = EventRecorder()
        let harness = try Self.harness(file: file, events: events) { $0.persistentCacheBusyTimeout = 0.05 }
        let other = try SQLiteDatabase(path: file.path, readOnly: false, busyTimeout: 0)
        try other.execute("BEGIN EXCLUSIVE")
        #expect(try await harness.resolve("a.test").addresses == [IPAddress("192.0.2.1")!])
        harness.resolver.savePersistentCache()
        #expect(events.events.contains { $0.hasPrefix("warning") && $0.contains("locked by another process") && $0.contains(file.path) }, "\(events.events)")
        try other.execute("COMMIT")
        harness.resolver.savePersistentCache()
        #expect(try Self.names(in: file) == ["a.test"], "the answer kept in memory was written")
    }

    /// A connection of the test's own holding the file's write lock (as another process would)
    /// until its `COMMIT`.
    static func holdWriteLock(_ file: URL) throws -> SQLiteDatabase {
        let other = try SQLiteDatabase(path: file.path, readOnly: false, busyTimeout: 0)
        try other.execute("BEGIN IMMEDIATE")
        return other
    }

    @Test("loading the file does not wait for another process's write lock: a resolver on a locked file is made at once, with its answers")
    func loadingDoesNotWaitForAWriteLock() async throws {
        let (directory, file) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let first = try Self.harness(file: file)
            _ = try await first.resolve("a.test")
            first.resolver.savePersistentCache()
        }
        let other = try Self.holdWriteLock(file)
        defer { try? other.execute("COMMIT") }
        let started = ContinuousClock.now
        // The default busy timeout (2 s): what a reader waiting for the lock would wait.
        let second = try Self.harness(file: file)
        #expect(ContinuousClock.now - started < .seconds(1), "the load waited for the lock")
        #expect(try await second.resolve("a.test").source == .cache)
        #expect(second.queries == 0)
    }

    @Test("a save that finds the file still locked says the answer was not saved, in words that count it right")
    func aSaveLockedOutSaysWhatWasNotSaved() async throws {
        let (directory, file) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let events = EventRecorder()
        let harness = try Self.harness(file: file, events: events) { $0.persistentCacheBusyTimeout = 0.05 }
        let other = try Self.holdWriteLock(file)
        _ = try await harness.resolve("a.test")
        harness.resolver.savePersistentCache()
        try other.execute("COMMIT")
        let warning = try #require(events.events.last { $0.hasPrefix("warning") }, "\(events.events)")
        #expect(warning == "warning the cache file \(file.path) stayed locked by another process for 0.05 s: 1 answer was not saved (the writer tries again while this process runs)")
    }

    @Test("a valid cache file in a directory that may not be written is read, with one warning that answers are not saved")
    func aFileInAReadOnlyDirectoryIsRead() async throws {
        let (directory, file) = try Self.scratch()
        defer {
            Self.makeWritable(directory.path, mode: 0o755)
            try? FileManager.default.removeItem(at: directory)
        }
        do {
            let first = try Self.harness(file: file)
            _ = try await first.resolve("a.test")
            first.resolver.savePersistentCache()
        }
        // Without its -wal and -shm files, which SQLite cannot make in the directory.
        try #require(try await Self.filesOnceTheWALFilesGo(in: directory.path) == ["cache.sqlite"])
        try Self.makeUnwritable(directory.path, mode: 0o555)
        let events = EventRecorder()
        let second = try Self.harness(file: file, events: events)
        #expect(try await second.resolve("a.test").source == .cache)
        #expect(second.queries == 0)
        _ = try await second.resolve("v4only.test")
        second.resolver.savePersistentCache()
        let warnings = events.events.filter { $0.hasPrefix("warning") }
        #expect(
            warnings == ["warning the cache file \(file.path) is in a directory this process may not write, where SQLite keeps its -wal and -shm files: its answers are used, new ones are not saved"])
    }

    @Test("a FIFO (as /dev/null, anything but a regular file) is neither opened nor replaced, with a warning")
    func aFileThatIsNotRegularIsLeftAlone() async throws {
        let (directory, _) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("fifo").path
        try #require(mkfifo(fifo, 0o600) == 0)
        let events = EventRecorder()
        // Opening a FIFO with no writer would block for ever; it is not even opened.
        let harness = try Self.harness(file: URL(fileURLWithPath: fifo), events: events)
        _ = try await harness.resolve("a.test")
        harness.resolver.savePersistentCache()
        #expect(Self.mode(of: fifo).map { $0 & S_IFMT } == S_IFIFO, "the FIFO is still a FIFO")
        #expect(events.events.contains { $0.hasPrefix("warning") && $0.contains("not a regular file") }, "\(events.events)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["fifo"], "nothing made beside a FIFO")
    }

    @Test("cache-file problems reach the observer's cacheFileWarning with the configured file, so a caller can say which setting they are about")
    func cacheFileWarningsNameTheFile() async throws {
        let (directory, _) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        final class FileWarnings: ResolverObserver {
            let log = LockedValue<[String]>([])
            func warning(_ message: String) { log.withLock { $0.append("warning \(message)") } }
            func cacheFileWarning(file: URL, message: String) { log.withLock { $0.append("\(file.path): \(message)") } }
        }
        let observer = FileWarnings()
        // The directory itself as the cache file: not usable.
        let harness = try ResolverHarness {
            $0.persistentCacheFile = directory
            $0.observer = observer
        }
        _ = try await harness.resolve("a.test")
        let lines = observer.log.withLock { $0 }
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.hasPrefix("\(directory.path): not using the cache file \(directory.path)") == true, "\(lines)")
    }

    @Test("a cache path that is a directory is reported, and lookups work from memory")
    func aDirectoryIsReported() async throws {
        let (directory, _) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let events = EventRecorder()
        let harness = try Self.harness(file: directory, events: events)
        #expect(events.events.contains { $0.contains("not using the cache file \(directory.path): it is a directory") }, "\(events.events)")
        _ = try await harness.resolve("a.test")
        #expect(try await harness.resolve("a.test").source == .cache)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test(
        "a directory that cannot be made is named with the system's reason, and lookups work from memory",
        arguments: [
            // A parent that is a file: as root too, mkdir says ENOTDIR.
            ("FILE/sub/cache.sqlite", "FILE/sub", "Not a directory"),
            // procfs has no room for a directory, whoever asks.
            ("/proc/httpdns-no-such-directory/cache.sqlite", "/proc/httpdns-no-such-directory", "No such file or directory")
        ])
    func anUncreatableDirectoryIsNamedWithItsReason(path: String, directory: String, reason: String) async throws {
        let (scratch, _) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let parentFile = scratch.appendingPathComponent("file")
        try Data("not a directory".utf8).write(to: parentFile)
        let file = URL(fileURLWithPath: path.replacingOccurrences(of: "FILE", with: parentFile.path))
        let events = EventRecorder()
        let harness = try Self.harness(file: file, events: events)
        let directory = directory.replacingOccurrences(of: "FILE", with: parentFile.path)
        #expect(
            events.events == [
                "warning not using the cache file \(file.path): cannot create the directory \(directory) (\(reason)); answers are kept in memory only"
            ])
        _ = try await harness.resolve("a.test")
        #expect(try await harness.resolve("a.test").source == .cache)
    }

    @Test("missing directories are made, every level of them, with the file in the last")
    func missingDirectoriesAreMade() async throws {
        let (scratch, _) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("a/b/c/cache.sqlite")
        let events = EventRecorder()
        let harness = try Self.harness(file: file, events: events)
        _ = try await harness.resolve("a.test")
        harness.resolver.savePersistentCache()
        #expect(!events.events.contains { $0.hasPrefix("warning") }, "\(events.events)")
        #expect(try Self.names(in: file) == ["a.test"])
    }

    /// SQLite files that are not this schema's cache: another program's, a newer httpdns's, a damaged one.
    static func foreignDatabase(_ kind: String, at file: URL) throws {
        if kind == "corrupt" {
            try Data("SQLite format 3\u{0}".utf8 + Data(repeating: 0xA5, count: 4080)).write(to: file)
            return
        }
        let database = try SQLiteDatabase(path: file.path, readOnly: false, busyTimeout: 1)
        switch kind {
        case "other program": try database.execute("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine')")
        case "other application id": try database.execute("PRAGMA application_id = 7; CREATE TABLE answers (x)")
        default: try database.execute("PRAGMA application_id = \(ResolverCacheStore.applicationID); PRAGMA user_version = 2; CREATE TABLE answers (x)")
        }
    }

    @Test(
        "an SQLite file that is another program's, of a newer schema or corrupt is reported and left byte for byte as it was",
        arguments: ["other program", "other application id", "newer schema", "corrupt"])
    func aForeignDatabaseIsNotTouched(kind: String) async throws {
        let (directory, file) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.foreignDatabase(kind, at: file)
        let before = try Data(contentsOf: file)
        let events = EventRecorder()
        let harness = try Self.harness(file: file, events: events)
        _ = try await harness.resolve("a.test")
        harness.resolver.flush()
        harness.resolver.savePersistentCache()
        #expect(try Data(contentsOf: file) == before)
        #expect(events.events.contains { $0.hasPrefix("warning not using the cache file \(file.path)") && $0.contains("left as it is") }, "\(events.events)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["cache.sqlite"])
    }

    @Test(
        "a file that is neither SQLite nor httpdns's JSON, or JSON of another format or version, is reported and left as it was",
        arguments: [
            #"{"format":"other","version":1}"#, #"{"format":"httpdns-cache","version":2,"records":[]}"#, "plain text\n",
            #"{"format":"httpdns-cache","version":1,"records":[{"name":"a..test","families":"ipv4","addresses":["x"],"expires":1}]}"#,
            #"{"format":"httpdns-cache","vers"#
        ])
    func aForeignFileIsNotReplaced(content: String) async throws {
        let (directory, file) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(content.utf8).write(to: file)
        let events = EventRecorder()
        let harness = try Self.harness(file: file, events: events)
        #expect(try await harness.resolve("a.test").source == .doh(endpoint: ResolverHarness.first.url))
        harness.resolver.savePersistentCache()
        #expect(try String(contentsOf: file, encoding: .utf8) == content)
        #expect(events.events.contains { $0.hasPrefix("warning not using the cache file \(file.path)") }, "\(events.events)")
    }

    @Test("an empty file is taken as a new cache")
    func anEmptyFileBecomesTheCache() async throws {
        let (directory, file) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data().write(to: file)
        let events = EventRecorder()
        let harness = try Self.harness(file: file, events: events)
        _ = try await harness.resolve("a.test")
        harness.resolver.savePersistentCache()
        #expect(try Self.names(in: file) == ["a.test"])
        #expect(!events.events.contains { $0.hasPrefix("warning") }, "\(events.events)")
    }

    static func writeLegacy(records: [(name: String, expires: TimeInterval)], to file: URL) throws {
        let list = records.map { #"{"name":"\#($0.name)","families":"ipv4","addresses":["192.0.2.77"],"expires":\#($0.expires)}"# }
        try Data(#"{"format":"httpdns-cache","version":1,"records":[\#(list.joined(separator: ","))]}"#.utf8).write(to: file)
    }

    @Test("a cache file of the former JSON format is migrated once: its records are answered, the file becomes SQLite, with a warning")
    func aJSONCacheFileIsMigrated() async throws {
        let (directory, file) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.writeLegacy(records: [("old.test", Date().timeIntervalSince1970 + 500)], to: file)
        let events = EventRecorder()
        let harness = try Self.harness(file: file, events: events)
        #expect(events.events.contains { $0 == "warning migrated the JSON cache file \(file.path) to SQLite (1 record)" }, "\(events.events)")
        let resolution = try await harness.resolve("old.test")
        #expect(resolution.source == .cache)
        #expect(resolution.addresses == [IPAddress("192.0.2.77")!])
        #expect(try Self.names(in: file) == ["old.test"])
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: directory.path).contains { $0.contains("migrating") }))
        let again = EventRecorder()
        _ = try Self.harness(file: file, events: again)
        #expect(again.events.isEmpty, "migrated once: \(again.events)")
    }

    @Test("a migrated JSON cache file keeps its mode, and a symbolic link to it stays a link to the migrated file")
    func migrationKeepsModeAndLinks() async throws {
        let (directory, file) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.writeLegacy(records: [("old.test", Date().timeIntervalSince1970 + 500)], to: file)
        try #require(chmod(file.path, 0o600) == 0)
        let link = directory.appendingPathComponent("link.json")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
        let harness = try Self.harness(file: link)
        #expect(try await harness.resolve("old.test").source == .cache)
        harness.resolver.savePersistentCache()
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == file.path, "the link was replaced")
        #expect(Self.mode(of: file.path).map { $0 & 0o777 } == 0o600)
        #expect(try Self.names(in: file) == ["old.test"])
    }

    @Test("rows expired longer than the maximum age are not loaded and are deleted from the file; those expired less long are stale answers")
    func rowsPastTheMaximumAgeAreDropped() async throws {
        let (directory, file) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let now = Date().timeIntervalSince1970
        try Self.writeLegacy(records: [("recent.test", now - 100), ("ancient.test", now - 200_000), ("live.test", now + 500)], to: file)
        let harness = try Self.harness(file: file, stale: 1_000)
        #expect(harness.resolver.cachedCount == 2)
        #expect(harness.resolver.cachedResolution(host: "live.test")?.addresses == [IPAddress("192.0.2.77")!])
        let recent = try await harness.resolve("recent.test")
        #expect(recent.isStale, "an answer expired a little is usable as stale only")
        harness.resolver.savePersistentCache()
        #expect(!(try Self.names(in: file).contains("ancient.test")))
    }

    @Test("at most cacheCapacity rows are loaded, those expiring last")
    func loadIsBoundedByTheCapacity() async throws {
        let (directory, file) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let now = Date().timeIntervalSince1970
        try Self.writeLegacy(records: (0..<10).map { ("n\($0).test", now + 100 + Double($0)) }, to: file)
        let harness = try Self.harness(file: file) { $0.cacheCapacity = 3 }
        #expect(harness.resolver.cachedCount == 3)
        #expect(harness.resolver.cachedResolution(host: "n9.test") != nil)
        #expect(harness.resolver.cachedResolution(host: "n0.test") == nil)
    }

    @Test("a symbolic link is followed: the link is kept and its target holds the cache")
    func symbolicLinksAreFollowed() async throws {
        let (directory, _) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let real = directory.appendingPathComponent("real.sqlite")
        let link = directory.appendingPathComponent("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "real.sqlite")
        let harness = try Self.harness(file: link)
        _ = try await harness.resolve("a.test")
        harness.resolver.savePersistentCache()
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "real.sqlite", "the link is kept")
        #expect(try Self.names(in: real) == ["a.test"], "the target was written")
    }

    @Test("a new file (and its directory) is made with 0666 less the umask, which the kernel applies; nothing is left beside it once the resolver is gone")
    func aNewFileGetsTheUmasksMode() async throws {
        // The umask as /proc reports it (Linux 4.7+): reading it with umask(2) would change it.
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
        let umaskValue = try #require(mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8))
        let (directory, _) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("new/sub/cache.sqlite")
        do {
            let harness = try Self.harness(file: file)
            _ = try await harness.resolve("a.test")
            harness.resolver.savePersistentCache()
        }
        #expect(Self.mode(of: file.path).map { $0 & 0o777 } == 0o666 & ~umaskValue)
        #expect(
            try await Self.filesOnceTheWALFilesGo(in: file.deletingLastPathComponent().path) == ["cache.sqlite"],
            "the WAL files go with the last connection")
    }

    /// The names in `folder` once `cache.sqlite` is alone there or 2 s passed: the last connection
    /// closes on the store's writer queue once the resolver is gone, and the WAL files go with it.
    static func filesOnceTheWALFilesGo(in folder: String) async throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(2)
        while try FileManager.default.contentsOfDirectory(atPath: folder) != ["cache.sqlite"], ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        return try FileManager.default.contentsOfDirectory(atPath: folder)
    }

    /// Runs chattr (e2fsprogs, essential on Debian) on `path`.
    static func chattr(_ flag: String, _ path: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        process.arguments = [flag, path]
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Makes `path` unwritable: `mode` (0444, 0555), or, for root, whom modes do not stop, immutable
    /// (chattr +i).
    static func makeUnwritable(_ path: String, mode: mode_t) throws {
        if getuid() == 0 {
            try #require(try chattr("+i", path) == 0, "chattr +i failed: the file system must support immutable files")
        } else {
            try #require(chmod(path, mode) == 0)
        }
    }

    /// Undoes `makeUnwritable`, so the scratch directory can be removed.
    static func makeWritable(_ path: String, mode: mode_t) {
        if getuid() == 0 { _ = try? chattr("-i", path) } else { _ = chmod(path, mode) }
    }

    @Test("a file that may not be written is read, with a warning that new answers are not saved")
    func aReadOnlyFileIsReadNotWritten() async throws {
        let (directory, file) = try Self.scratch()
        defer {
            Self.makeWritable(file.path, mode: 0o644)
            try? FileManager.default.removeItem(at: directory)
        }
        do {
            let first = try Self.harness(file: file)
            _ = try await first.resolve("a.test")
            first.resolver.savePersistentCache()
        }
        try Self.makeUnwritable(file.path, mode: 0o444)
        let events = EventRecorder()
        let second = try Self.harness(file: file, events: events)
        #expect(try await second.resolve("a.test").source == .cache)
        #expect(events.events.contains { $0.contains("read-only") }, "\(events.events)")
    }
}
