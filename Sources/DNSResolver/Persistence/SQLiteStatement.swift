import Foundation
internal import CSQLite

/// One compiled SQL statement: the owner of its `sqlite3_stmt*`, finalized in `deinit`.
final class SQLiteStatement {
    private let database: SQLiteDatabase
    private let handle: OpaquePointer

    init(database: SQLiteDatabase, handle: OpaquePointer) {
        self.database = database
        self.handle = handle
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds `values` to the parameters `?1`, `?2`, ... in order, after a reset.
    func bind(_ values: [SQLiteValue]) throws(SQLiteDatabase.Failure) {
        reset()
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Makes the statement ready to run again; its bindings stay.
    func reset() {
        sqlite3_reset(handle)
    }

    /// Binds `value` to the parameter `?index` (from 1). For a statement run once per row, this
    /// spares an array of values per row.
    func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteDatabase.Failure) {
        let code: Int32 =
            switch value {
            case .text(let text): sqlite3_bind_text(handle, index, text, -1, httpdns_sqlite_transient())
            case .real(let number): sqlite3_bind_double(handle, index, number)
            case .integer(let number): sqlite3_bind_int64(handle, index, Int64(number))
            case .null: sqlite3_bind_null(handle, index)
            }
        guard code == SQLITE_OK else { throw database.failure(code) }
    }

    /// Advances to the next row. - Returns: true at a row, false when done.
    func step() throws(SQLiteDatabase.Failure) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            sqlite3_reset(handle)
            throw database.failure(code)
        }
    }

    /// Runs the statement with `values` to completion.
    func run(_ values: [SQLiteValue]) throws(SQLiteDatabase.Failure) {
        try bind(values)
        while try step() {}
    }

    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }
    func real(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    func text(_ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}

/// A value bound to a statement's parameter.
enum SQLiteValue {
    case text(String)
    case real(Double)
    case integer(Int)
    case null
}
