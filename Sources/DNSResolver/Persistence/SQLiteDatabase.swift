import Foundation
internal import CSQLite

/// One SQLite connection: the owner of its `sqlite3*`, closed in `deinit`.
///
/// Not safe for concurrent use: `ResolverCacheStore` uses a connection from one serial queue only.
/// Statements hold their database, so the connection outlives every statement prepared on it.
final class SQLiteDatabase: @unchecked Sendable { // used from one serial queue at a time (ResolverCacheStore)
    /// An SQLite error: the result code (`SQLITE_BUSY`, `SQLITE_CORRUPT`, ...) and its message.
    struct Failure: Error, CustomStringConvertible {
        var code: Int32
        var message: String

        /// Another connection held the lock past the busy timeout (SQLITE_BUSY, SQLITE_LOCKED).
        var isBusy: Bool { code & 0xFF == SQLITE_BUSY || code & 0xFF == SQLITE_LOCKED }
        /// The file is not a database, or a damaged one (SQLITE_NOTADB, SQLITE_CORRUPT).
        var isCorrupt: Bool { code & 0xFF == SQLITE_NOTADB || code & 0xFF == SQLITE_CORRUPT }
        /// The file may not be written (SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN).
        var isReadOnly: Bool { code & 0xFF == SQLITE_READONLY || code & 0xFF == SQLITE_PERM || code & 0xFF == SQLITE_CANTOPEN }
        /// A file could not be opened or made (SQLITE_CANTOPEN): the database, or the -wal or -shm
        /// file beside it.
        var cannotOpen: Bool { code & 0xFF == SQLITE_CANTOPEN }

        var description: String { message }
    }

    private let handle: OpaquePointer
    /// Whether the connection was opened without write access.
    let isReadOnly: Bool

    /// Opens (or, unless `readOnly`, creates) the database at `path`.
    /// - Parameters:
    ///   - immutable: Read it as a file nothing changes (URI parameter `immutable=1`): no locks, and no
    ///     -wal or -shm file is opened or made. Only with `readOnly`.
    ///   - busyTimeout: How long, in seconds, a statement waits for another connection's lock
    ///     before failing with SQLITE_BUSY (`sqlite3_busy_timeout`).
    /// - Throws: `Failure` when the file cannot be opened.
    init(path: String, readOnly: Bool, immutable: Bool = false, busyTimeout: TimeInterval) throws(Failure) {
        var handle: OpaquePointer?
        var flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        var name = path
        if immutable {
            flags |= SQLITE_OPEN_URI
            name = "file:" + Self.uriPath(path) + "?immutable=1"
        }
        let code = sqlite3_open_v2(name, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(handle)
            throw Failure(code: code, message: message)
        }
        self.handle = handle
        // SQLite opens a file it may not write (an immutable one, even for root) read-only
        // without an error; only a write would fail.
        self.isReadOnly = readOnly || sqlite3_db_readonly(handle, "main") == 1
        sqlite3_extended_result_codes(handle, 1)
        setBusyTimeout(busyTimeout)
    }

    /// `path` as a URI's path: "?", "#" and "%" percent-encoded (SQLite decodes them).
    private static func uriPath(_ path: String) -> String {
        var encoded = ""
        for character in path {
            switch character {
            case "%": encoded += "%25"
            case "?": encoded += "%3F"
            case "#": encoded += "%23"
            default: encoded.append(character)
            }
        }
        return encoded
    }

    /// Sets how long, in seconds, a statement waits for another connection's lock (`sqlite3_busy_timeout`).
    func setBusyTimeout(_ seconds: TimeInterval) {
        let milliseconds = seconds.isNaN ? 0 : Int32(clamping: Int(min(max(0, seconds), 2e6) * 1000))
        sqlite3_busy_timeout(handle, milliseconds)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Runs `sql` (one or more statements, no parameters, rows ignored).
    func execute(_ sql: String) throws(Failure) {
        var error: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &error)
        guard code == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? lastMessage
            sqlite3_free(error)
            throw Failure(code: code, message: message)
        }
    }

    /// Compiles `sql` into a statement.
    func prepare(_ sql: String) throws(Failure) -> SQLiteStatement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else { throw failure(code) }
        return SQLiteStatement(database: self, handle: statement)
    }

    /// The integer a `PRAGMA name` returns.
    func pragma(_ name: String) throws(Failure) -> Int {
        let statement = try prepare("PRAGMA \(name)")
        guard try statement.step() else { return 0 }
        return statement.int(0)
    }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction (the write lock taken at once, so a busy
    /// database fails here rather than halfway), committed when it returns, rolled back when it throws.
    func transaction(_ body: () throws(Failure) -> Void) throws(Failure) {
        try execute("BEGIN IMMEDIATE")
        do {
            try body()
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }

    func failure(_ code: Int32) -> Failure {
        Failure(code: sqlite3_extended_errcode(handle), message: lastMessage)
    }
}
