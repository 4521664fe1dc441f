import Dispatch
import Foundation
import HTTPDNSCore
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// The resolver's persistent cache: one SQLite file (WAL mode) that several processes may share.
///
/// Schema 1 (`PRAGMA user_version = 1`, `PRAGMA application_id = 0x48444E53`, "HDNS"): one table,
/// `answers(name, families, addresses, expires, stored, provider)`, primary key `(name, families)`,
/// one row per name and address-family set. `addresses` is the addresses' text, comma-separated;
/// `expires` and `stored` are seconds since 1970 (wall clock, so a row survives a reboot).
///
/// Lookups never wait for it: `record`, `remove(name:)` and `removeAll` only note the change, and a
/// serial background writer writes every noted change in one transaction. Nor does the load at
/// opening wait for another process's write lock: it reads (WAL readers never wait) before the
/// writer is given anything. When two processes write one row, the later answer (by `stored`) wins.
/// A write that finds the file locked past the busy timeout keeps its changes in memory and tries
/// again while the process runs. A corrupt, foreign or newer-schema file is reported and left
/// exactly as it was (the store is then not used).
final class ResolverCacheStore: Sendable {
    /// One row: an address answer for a name and family set.
    struct Row: Sendable, Equatable {
        var name: String
        var families: AddressFamilies
        var addresses: [IPAddress]
        /// Seconds since 1970.
        var expires: TimeInterval
        /// When the answer was had, seconds since 1970.
        var stored: TimeInterval
        var provider: String?
    }

    /// Seconds between the first change noted and the write that takes it and those noted since.
    static let gatheringDelay: TimeInterval = 0.05
    /// Answers noted that make a write start at once rather than after the delay: a burst of
    /// lookups is written as it goes, on another thread, and leaves little for `writeNow`.
    static let batchSize = 128

    static let schemaVersion = 1
    static let applicationID = 0x4844_4E53

    let file: URL
    /// Rows past their expiry by more than this many seconds are neither loaded nor kept.
    let maximumAge: TimeInterval
    private let busyTimeout: TimeInterval
    private let database: SQLiteDatabase
    private let warn: @Sendable (String) -> Void
    /// The writer's queue: the only place `database` is used after `open`.
    private let queue = DispatchQueue(label: "httpdns.resolver-cache-store")
    private let pending = Mutex(Pending())
    /// The upsert statement, prepared by the first write (parsing it cost a write of a thousand
    /// rows a tenth of its time). Only used on `queue`, as `database` is.
    private nonisolated(unsafe) var upsertStatement: SQLiteStatement?
    /// Whether the last write found the file locked (warned once until a write succeeds).
    private let lockedWarned = Atomic<Bool>(false)

    /// Changes not yet written, in the order they apply: clear, then deletions, then upserts.
    private struct Pending {
        var clearAll = false
        var deletedNames: Set<String> = []
        var upserts: [ResolutionCache.Key: Row] = [:]
        var writeScheduled = false
        /// Whether a write of a full batch is queued (`batchSize`).
        var batchWriteQueued = false
        /// Rows that expired before this (seconds since 1970) are deleted with the next write: the
        /// cleanup at opening found the file locked.
        var expiredBefore: TimeInterval?

        /// No change to write (a cleanup alone waits for one: it is not worth a wait for the lock).
        var isEmpty: Bool { !clearAll && deletedNames.isEmpty && upserts.isEmpty }

        /// The changes in words, for a warning: "1 answer", "3 answers and 1 name's removal".
        var summary: String {
            var parts: [String] = []
            if !upserts.isEmpty { parts.append(upserts.count == 1 ? "1 answer" : "\(upserts.count) answers") }
            if clearAll { parts.append("the removal of every answer") }
            if !deletedNames.isEmpty { parts.append(deletedNames.count == 1 ? "1 name's removal" : "\(deletedNames.count) names' removal") }
            return parts.joined(separator: " and ")
        }

        /// Whether `summary` names one change (for the verb's number).
        var isSingular: Bool { upserts.count + deletedNames.count + (clearAll ? 1 : 0) == 1 }
    }

    /// Opens the store at `file`, creating it (and its directory) when missing, migrating a cache file
    /// of the JSON format once, and reads its rows. Problems go to `warn`, in words that name the file.
    /// - Parameters:
    ///   - busyTimeout: Seconds a write waits for another process's lock.
    ///   - maximumAge: Seconds past expiry after which rows are dropped.
    ///   - loadLimit: The most rows read.
    /// - Returns: The store and the rows not past `maximumAge`, latest expiry first (rows that do not
    ///   parse are skipped with one warning); nil when the file cannot be used (a directory, corrupt,
    ///   foreign, a newer schema, not readable): the resolver then keeps its cache in memory only, and
    ///   the file is left as it was.
    static func open(
        _ file: URL, busyTimeout: TimeInterval, maximumAge: TimeInterval, loadLimit: Int,
        warn: @escaping @Sendable (String) -> Void
    ) -> (store: ResolverCacheStore, rows: [Row])? {
        // What another store of this process noted for the file is written first, so a resolver made
        // after another one's lookups reads their answers (as a restarted process would).
        let path = file.standardizedFileURL.resolvingSymlinksInPath().path
        for store in live.withLock({ $0.compactMap { $0.path == path ? $0.store : nil } }) { store.writeNow() }
        do {
            let store = try ResolverCacheStore(file: file, busyTimeout: busyTimeout, maximumAge: maximumAge, warn: warn)
            // Read before the writer has anything to do, on the caller's thread: the connection is
            // the writer's too, and the writer's first task (the cleanup) takes the write lock.
            let (rows, anyPastMaximumAge) = store.load(limit: loadLimit)
            if anyPastMaximumAge { store.scheduleCleanup() }
            live.withLock { stores in
                stores.removeAll { $0.store == nil }
                stores.append(LiveStore(path: path, store: store))
            }
            return (store, rows)
        } catch {
            warn("not using the cache file \(file.path): \(error.description); answers are kept in memory only")
            return nil
        }
    }

    /// The stores open in this process, by resolved path.
    private struct LiveStore: Sendable {
        var path: String
        weak var store: ResolverCacheStore?
    }

    private static let live = Mutex<[LiveStore]>([])

    /// Why a cache file was not used.
    struct OpenError: Error, CustomStringConvertible {
        var description: String
    }

    private init(
        file: URL, busyTimeout: TimeInterval, maximumAge: TimeInterval,
        warn: @escaping @Sendable (String) -> Void
    ) throws(OpenError) {
        self.file = file
        self.maximumAge = maximumAge
        self.busyTimeout = busyTimeout
        self.warn = warn
        let path = file.path
        var migrated: [LegacyJSONCacheFile.Record]? = nil
        switch Self.kind(of: path) {
        case .missing:
            try Self.createEmpty(file)
        case .directory:
            throw OpenError(description: "it is a directory")
        case .special:
            throw OpenError(description: "it is not a regular file (a device, FIFO or socket), which the cache never opens")
        case .regular:
            let head = Self.head(of: path)
            if !head.isEmpty, !head.starts(with: Data("SQLite format 3\u{0}".utf8)) {
                guard LegacyJSONCacheFile.isLegacyDocument(head) else {
                    throw OpenError(description: "it is not an httpdns cache file (neither SQLite nor httpdns's JSON format); it was left as it is")
                }
                do {
                    migrated = try LegacyJSONCacheFile.read(from: file)
                } catch {
                    throw OpenError(description: "it is a JSON cache file that cannot be migrated (\(error)); it was left as it is")
                }
            }
        }
        if let records = migrated {
            database = try Self.migrate(records, file: file, busyTimeout: busyTimeout)
            warn("migrated the JSON cache file \(path) to SQLite (\(records.count) \(records.count == 1 ? "record" : "records"))")
        } else {
            database = try Self.connect(path, busyTimeout: busyTimeout, warn: warn)
        }
    }

    /// Deletes the rows past `maximumAge` in the background without waiting for a lock: when another
    /// process holds it, the next write deletes them (they are not loaded meanwhile).
    private func scheduleCleanup() {
        guard !database.isReadOnly else { return }
        // The load's cutoff or a later one: a row it found past the age is past this one too.
        let cutoff = Date().timeIntervalSince1970 - maximumAge
        queue.async { [self] in
            database.setBusyTimeout(0)
            defer { database.setBusyTimeout(busyTimeout) }
            do {
                try database.prepare("DELETE FROM answers WHERE expires < ?1").run([.real(cutoff)])
            } catch {
                pending.withLock { $0.expiredBefore = cutoff }
            }
        }
    }

    // MARK: - Opening

    private enum Kind { case missing, regular, directory, special }

    /// What is at `path`, symbolic links followed.
    private static func kind(of path: String) -> Kind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        default: return .special
        }
    }

    /// The file's first 4 KiB (enough for SQLite's header or the JSON format's).
    private static func head(of path: String) -> Data {
        guard let handle = FileHandle(forReadingAtPath: path) else { return Data() }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 4096)) ?? Data()
    }

    /// Creates the directory and an empty file with mode 0666 less the umask (SQLite's own default
    /// would be 0644); the WAL and shared-memory files beside it get the same mode.
    private static func createEmpty(_ file: URL) throws(OpenError) {
        try createDirectory(file.deletingLastPathComponent().path)
        let fd = Glibc.open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        if fd >= 0 { close(fd); return }
        if errno == EEXIST { return } // another process made it first
        throw OpenError(description: "cannot create it (\(String(cString: strerror(errno))))")
    }

    /// Creates `path` and its missing parents, as `mkdir -p` (mode 0777 less the umask).
    /// - Throws: `OpenError` naming the directory that could not be made and the system's reason
    ///   (`cannot create the directory /proc/x (No such file or directory)`), which Foundation's
    ///   `createDirectory` errors do not say.
    private static func createDirectory(_ path: String) throws(OpenError) {
        var info = stat()
        guard stat(path, &info) != 0 else { return } // there: what it is, the file's open says
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path { try createDirectory(parent) }
        if mkdir(path, 0o777) == 0 { return }
        let code = errno
        if code == EEXIST { return } // another process made it first
        throw OpenError(description: "cannot create the directory \(path) (\(String(cString: strerror(code))))")
    }

    /// A connection to an SQLite file that is new, empty or of this schema; read-only (with a warning)
    /// when the file may not be written, or when its directory may not be written and SQLite cannot
    /// make the -wal and -shm files a WAL database is read through.
    private static func connect(_ path: String, busyTimeout: TimeInterval, warn: (String) -> Void) throws(OpenError) -> SQLiteDatabase {
        let database: SQLiteDatabase
        do {
            database = try prepareSchema(SQLiteDatabase(path: path, readOnly: false, busyTimeout: busyTimeout))
            if database.isReadOnly { warn("the cache file \(path) is read-only: its answers are used, new ones are not saved") }
        } catch let failure as SQLiteDatabase.Failure where failure.isReadOnly {
            var directoryIsReadOnly = false
            do {
                do {
                    let plain = try SQLiteDatabase(path: path, readOnly: true, busyTimeout: busyTimeout)
                    try check(plain)
                    database = plain
                } catch let again as SQLiteDatabase.Failure where again.isReadOnly && !isWritableDirectory(of: path) {
                    // The main file alone, read without locks: a WAL left beside it by a process
                    // that did not close it is not read (the file is read once, at opening).
                    directoryIsReadOnly = true
                    database = try SQLiteDatabase(path: path, readOnly: true, immutable: true, busyTimeout: busyTimeout)
                    try check(database)
                }
            } catch let error as OpenError {
                throw error
            } catch {
                throw OpenError(description: "cannot open it (\(failure))")
            }
            if directoryIsReadOnly {
                warn("the cache file \(path) is in a directory this process may not write, where SQLite keeps its -wal and -shm files: its answers are used, new ones are not saved")
            } else {
                warn("the cache file \(path) is read-only (\(failure)): its answers are used, new ones are not saved")
            }
        } catch let error as OpenError {
            throw error
        } catch let failure as SQLiteDatabase.Failure {
            throw OpenError(
                description: failure.isCorrupt
                    ? "it is corrupt or not a database (\(failure)); it was left as it is"
                    : "cannot open it (\(failure))")
        } catch {
            throw OpenError(description: "\(error)")
        }
        return database
    }

    /// Whether the directory `path` is in may be written (files created in it).
    private static func isWritableDirectory(of path: String) -> Bool {
        access(URL(fileURLWithPath: path).deletingLastPathComponent().path, W_OK | X_OK) == 0
    }

    /// `database` with the schema made (a new file) or checked.
    private static func prepareSchema(_ database: SQLiteDatabase) throws -> SQLiteDatabase {
        // Checked before anything is written: a foreign file must be left exactly as it was.
        let current = try check(database)
        // WAL: readers in other processes never wait for this one's writes. NORMAL: a commit does not
        // wait for the disk (a crash may lose the last answers, never corrupt the file).
        try database.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        if current { return database }
        try database.transaction { () throws(SQLiteDatabase.Failure) in
            // Checked again under the write lock: another process may have made it meanwhile.
            guard try database.pragma("user_version") == 0 else { return }
            try database.execute(
                """
                CREATE TABLE answers (
                    name TEXT NOT NULL, families TEXT NOT NULL, addresses TEXT NOT NULL,
                    expires REAL NOT NULL, stored REAL NOT NULL, provider TEXT,
                    PRIMARY KEY (name, families)
                ) WITHOUT ROWID;
                PRAGMA application_id = \(applicationID);
                PRAGMA user_version = \(schemaVersion);
                """)
        }
        return database
    }

    /// Whether `database` holds this schema (true) or nothing at all (false).
    /// - Throws: `OpenError` for a newer schema or another application's database.
    @discardableResult
    private static func check(_ database: SQLiteDatabase) throws -> Bool {
        let version = try database.pragma("user_version")
        let application = try database.pragma("application_id")
        let tables = try database.pragma("schema_version") == 0 ? 0 : 1
        if application != 0 && application != applicationID || application == 0 && (version != 0 || tables != 0) {
            throw OpenError(description: "it is another program's SQLite database; it was left as it is")
        }
        if version > schemaVersion {
            throw OpenError(description: "it has cache schema \(version), newer than this version of httpdns reads (\(schemaVersion)); it was left as it is")
        }
        return version == schemaVersion
    }

    /// Writes `records` to a new SQLite file beside `file`, then renames it over the JSON file.
    /// A symbolic link's target is migrated (the link stays), and the new file keeps the JSON
    /// file's mode and, for root, its owner: the names a user visited stay as private as they were.
    private static func migrate(_ records: [LegacyJSONCacheFile.Record], file link: URL, busyTimeout: TimeInterval) throws(OpenError) -> SQLiteDatabase {
        let file = link.resolvingSymlinksInPath()
        var original = stat()
        let known = stat(file.path, &original) == 0
        let temporary = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).migrating-\(getpid())")
        try? FileManager.default.removeItem(at: temporary)
        do {
            try createEmpty(temporary)
            if known {
                guard chmod(temporary.path, original.st_mode & 0o7777) == 0 else {
                    throw OpenError(description: "cannot give the new file the old one's mode (\(String(cString: strerror(errno))))")
                }
                if geteuid() == 0 { _ = chown(temporary.path, original.st_uid, original.st_gid) }
            }
            do {
                let database = try prepareSchema(SQLiteDatabase(path: temporary.path, readOnly: false, busyTimeout: busyTimeout))
                let rows = records.map { Row(name: $0.name, families: $0.families, addresses: $0.addresses, expires: $0.expires, stored: 0, provider: $0.provider) }
                try database.transaction { () throws(SQLiteDatabase.Failure) in try upsert(rows, into: database) }
                // Back to a single file before the rename: the WAL file's name follows the path.
                try database.execute("PRAGMA journal_mode = DELETE")
            }
            guard rename(temporary.path, file.path) == 0 else {
                throw OpenError(description: "cannot replace it (\(String(cString: strerror(errno))))")
            }
            return try prepareSchema(SQLiteDatabase(path: file.path, readOnly: false, busyTimeout: busyTimeout))
        } catch let error as OpenError {
            try? FileManager.default.removeItem(at: temporary)
            throw OpenError(description: "cannot migrate it to SQLite: \(error.description); it was left as it is")
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw OpenError(description: "cannot migrate it to SQLite (\(error)); it was left as it is")
        }
    }

    // MARK: - Reading

    /// The rows not past `maximumAge`, latest expiry first, at most `limit` of them, and whether the
    /// file holds rows past it (for the cleanup, which is not worth a write lock otherwise). Rows
    /// that do not parse (a name, families or address that is not valid) are skipped with one
    /// warning. Only before the writer is given anything (`open`).
    private func load(limit: Int) -> (rows: [Row], anyPastMaximumAge: Bool) {
        let cutoff = Date().timeIntervalSince1970 - maximumAge
        do {
            let statement = try database.prepare(
                """
                SELECT name, families, addresses, expires, stored, provider FROM answers
                WHERE expires >= ?1 ORDER BY expires DESC LIMIT ?2
                """)
            try statement.bind([.real(cutoff), .integer(limit)])
            var rows: [Row] = []
            var invalid = 0
            while try statement.step() {
                guard let row = Self.row(statement) else { invalid += 1; continue }
                rows.append(row)
            }
            if invalid > 0 { warn("ignored \(invalid) invalid \(invalid == 1 ? "row" : "rows") of the cache file \(file.path)") }
            let past = try database.prepare("SELECT EXISTS (SELECT 1 FROM answers WHERE expires < ?1)")
            try past.bind([.real(cutoff)])
            return (rows, try past.step() && past.int(0) != 0)
        } catch {
            warn("cannot read the cache file \(file.path): \(error); its answers are not used")
            return ([], false)
        }
    }

    private static func row(_ statement: SQLiteStatement) -> Row? {
        guard let rawName = statement.text(0), let name = HostName.normalize(rawName), name == rawName,
            let families = statement.text(1).flatMap(AddressFamilies.init(rawValue:)), families != .auto,
            let text = statement.text(2)
        else { return nil }
        var addresses: [IPAddress] = []
        for part in text.split(separator: ",") {
            guard let address = IPAddress(String(part)) else { return nil }
            addresses.append(address)
        }
        let expires = statement.real(3)
        guard !addresses.isEmpty, expires.isFinite else { return nil }
        return Row(name: name, families: families, addresses: addresses, expires: expires, stored: statement.real(4), provider: statement.text(5))
    }

    // MARK: - Changes

    /// Notes `row` to be written (replacing any row of its name and families that is older).
    func record(_ row: Row) {
        change { $0.upserts[ResolutionCache.Key(name: row.name, families: row.families)] = row }
    }

    /// Notes the rows of `name` (every family set) to be deleted.
    func remove(name: String) {
        change { pending in
            pending.upserts = pending.upserts.filter { $0.key.name != name }
            pending.deletedNames.insert(name)
        }
    }

    /// Notes every row to be deleted.
    func removeAll() {
        change { pending in
            pending = Pending(clearAll: true, writeScheduled: pending.writeScheduled)
        }
    }

    private func change(_ body: (inout Pending) -> Void) {
        guard !database.isReadOnly else { return }
        let (schedule, batchFull) = pending.withLock { pending -> (Bool, Bool) in
            body(&pending)
            let schedule = !pending.writeScheduled
            let batchFull = !pending.batchWriteQueued && pending.upserts.count >= Self.batchSize
            pending.writeScheduled = true
            if batchFull { pending.batchWriteQueued = true }
            return (schedule, batchFull)
        }
        // A short delay gathers the changes of a burst of lookups into one transaction (each costs
        // a lock and a WAL commit); `writeNow` does not wait for it.
        if schedule { queue.asyncAfter(deadline: .now() + Self.gatheringDelay) { self.writePending() } }
        if batchFull { queue.async { self.writePending() } }
    }

    /// Writes every noted change now and returns when it is on disk or failed, with a warning that
    /// says what was not saved (each call warns: it is what a process does before it exits).
    func writeNow() {
        queue.sync {
            writePending(saving: true)
            // Into the main file: a copy of it alone, or a read of it where its -wal cannot be
            // opened (a directory this process may not write), then has every answer. PASSIVE: it
            // never waits for another process's readers (an exiting process must not); what they
            // hold back stays in the -wal, where every connection finds it.
            if !database.isReadOnly { try? database.execute("PRAGMA wal_checkpoint(PASSIVE)") }
        }
    }

    /// Whether changes are waiting to be written (for tests).
    var hasPendingChanges: Bool { pending.withLock { !$0.isEmpty } }

    /// On the queue: one transaction with every change noted so far. `saving`: for `writeNow`.
    private func writePending(saving: Bool = false) {
        let batch = pending.withLock { pending -> Pending? in
            guard !pending.isEmpty else { return nil }
            defer { pending = Pending() }
            return pending
        }
        guard let batch else { return }
        do {
            try database.transaction { () throws(SQLiteDatabase.Failure) in
                if let cutoff = batch.expiredBefore, !batch.clearAll {
                    try database.prepare("DELETE FROM answers WHERE expires < ?1").run([.real(cutoff)])
                }
                if batch.clearAll { try database.execute("DELETE FROM answers") }
                if !batch.deletedNames.isEmpty {
                    let delete = try database.prepare("DELETE FROM answers WHERE name = ?1")
                    for name in batch.deletedNames { try delete.run([.text(name)]) }
                }
                if !batch.upserts.isEmpty { try Self.upsert(batch.upserts.values, with: preparedUpsert()) }
            }
            if lockedWarned.exchange(false, ordering: .relaxed) {
                warn("the cache file \(file.path) is writable again; the changes kept in memory were saved")
            }
        } catch {
            keep(batch)
            let what = batch.summary
            let verb = batch.isSingular ? "was" : "were"
            if error.isBusy {
                let waited = "\(HostResolver.seconds(busyTimeout)) s"
                if saving {
                    // Said as it stands: a process saving before it exits loses these.
                    lockedWarned.store(true, ordering: .relaxed)
                    warn("the cache file \(file.path) stayed locked by another process for \(waited): \(what) \(verb) not saved (the writer tries again while this process runs)")
                } else if !lockedWarned.exchange(true, ordering: .relaxed) {
                    warn("the cache file \(file.path) is locked by another process (waited \(waited)): \(what) \(verb) not saved yet; the writer tries again every second while this process runs")
                }
                // Tried again later even if nothing else changes, so a released lock is noticed.
                queue.asyncAfter(deadline: .now() + 1) { self.writePending() }
            } else {
                warn("could not write the cache file \(file.path) (\(error)): \(what) \(verb) not saved (tried again with the next change)")
            }
        }
    }

    /// `upsertStatement`, prepared if it is not yet. On the queue.
    private func preparedUpsert() throws(SQLiteDatabase.Failure) -> SQLiteStatement {
        if let upsertStatement { return upsertStatement }
        let statement = try Self.makeUpsertStatement(on: database)
        upsertStatement = statement
        return statement
    }

    /// Puts a batch that was not written back in front of the changes noted since.
    private func keep(_ batch: Pending) {
        pending.withLock { pending in
            var merged = batch
            if pending.clearAll {
                merged = Pending(clearAll: true)
            }
            merged.expiredBefore = batch.expiredBefore ?? pending.expiredBefore
            for name in pending.deletedNames {
                merged.upserts = merged.upserts.filter { $0.key.name != name }
                merged.deletedNames.insert(name)
            }
            merged.upserts.merge(pending.upserts) { _, newer in newer }
            merged.writeScheduled = pending.writeScheduled
            merged.batchWriteQueued = pending.batchWriteQueued
            pending = merged
        }
    }

    private static func upsert(_ rows: some Collection<Row>, into database: SQLiteDatabase) throws(SQLiteDatabase.Failure) {
        guard !rows.isEmpty else { return }
        try upsert(rows, with: makeUpsertStatement(on: database))
    }

    /// The statement `upsert` runs per row, prepared on `database`.
    private static func makeUpsertStatement(on database: SQLiteDatabase) throws(SQLiteDatabase.Failure) -> SQLiteStatement {
        try database.prepare(
            """
            INSERT INTO answers (name, families, addresses, expires, stored, provider) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            ON CONFLICT (name, families) DO UPDATE SET
                addresses = excluded.addresses, expires = excluded.expires, stored = excluded.stored, provider = excluded.provider
            WHERE excluded.stored >= answers.stored
            """)
    }

    private static func upsert(_ rows: some Collection<Row>, with statement: SQLiteStatement) throws(SQLiteDatabase.Failure) {
        for row in rows {
            statement.reset()
            try statement.bind(.text(row.name), at: 1)
            try statement.bind(.text(row.families.rawValue), at: 2)
            try statement.bind(.text(text(of: row.addresses)), at: 3)
            try statement.bind(.real(row.expires), at: 4)
            try statement.bind(.real(row.stored), at: 5)
            try statement.bind(row.provider.map { .text($0) } ?? .null, at: 6)
            while try statement.step() {}
        }
    }

    /// The `addresses` column: the addresses' text, comma-separated.
    private static func text(of addresses: [IPAddress]) -> String {
        guard addresses.count > 1 else { return addresses.first?.description ?? "" }
        var text = ""
        for address in addresses {
            if !text.isEmpty { text += "," }
            text += address.description
        }
        return text
    }
}
