import CSQLite
import WharfSystem

/// A value bound to or read from a statement.
enum SQLiteValue: Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    /// Bytes kept exactly: how paths are stored (a path is bytes, not text).
    case blob([UInt8])
}

/// One result row, valid only inside the closure it is handed to.
struct SQLiteRow {
    fileprivate let statement: OpaquePointer

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }
    func int(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
    func real(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }
    /// The column's text by its length, not up to its first NUL (see `bind`).
    func text(_ column: Int32) -> String {
        guard let raw = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeRawBufferPointer(start: raw, count: count), as: UTF8.self)
    }
    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let raw = sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: raw, count: count))
    }
    func optionalInt(_ column: Int32) -> Int64? { isNull(column) ? nil : int(column) }
}

/// The thin wrapper around one `sqlite3*` connection: prepared statements cached by their SQL
/// text, every return code turned into a `SQLiteError` in one place (`check`).
///
/// Not thread-safe on its own: `AccessStore` keeps it in a `Locked` and reaches it only inside
/// `withValue`, which is also what makes a transaction the connection's only user while it runs.
/// SQLite is opened with `SQLITE_OPEN_NOMUTEX` for that reason.
///
/// `@unchecked Sendable` so that it may be put into its lock and lent to a statement's body
/// there (the lock's value is `sending`); no thread reaches it but through that lock.
final class SQLiteConnection: @unchecked Sendable {
    /// Kept alive for SQLite, which holds it unretained (``setBusyHandler(milliseconds:giveUp:)``).
    private var busyHandler: BusyHandler?
    private var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    let path: FilePath

    /// `sqlite3_open_v2` with read-write + create, or, with `readOnly`, reading an existing
    /// database only (nothing is created; SQLite refuses every write). `path` may be `":memory:"`.
    init(path: FilePath, readOnly: Bool = false) throws(SQLiteError) {
        self.path = path
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let status = path.withCString { sqlite3_open_v2($0, &db, flags, nil) }
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw SQLiteError(code: status, message: message, sql: nil)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
    }

    deinit { close() }

    /// Finalises every cached statement and closes the connection. Safe to call twice.
    func close() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements.removeAll()
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// How long SQLite itself retries when another process holds the lock (`sqlite3_busy_timeout`).
    func setBusyTimeout(milliseconds: Int32) throws(SQLiteError) {
        try check(sqlite3_busy_timeout(try db(), milliseconds), sql: "busy_timeout")
    }

    /// Retries while another process holds the lock, as the busy timeout does, for up to
    /// `milliseconds`, unless `giveUp` says to stop sooner: it is asked before every wait, which
    /// is never longer than 100 ms (a store closing as its process exits gives up at once
    /// instead of keeping the process for the whole timeout).
    func setBusyHandler(milliseconds: Int, giveUp: @escaping @Sendable () -> Bool) throws(SQLiteError) {
        let handler = BusyHandler(limit: milliseconds, giveUp: giveUp)
        busyHandler = handler
        try check(sqlite3_busy_handler(try db(), { context, count in
            Unmanaged<BusyHandler>.fromOpaque(context!).takeUnretainedValue().retry(after: Int(count)) ? 1 : 0
        }, Unmanaged.passUnretained(handler).toOpaque()), sql: "busy_handler")
    }

    /// Runs one or more statements without results (schema scripts, pragmas, BEGIN/COMMIT).
    func execute(_ sql: String) throws(SQLiteError) {
        var error: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(try db(), sql, nil, nil, &error)
        if status != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(error)
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: message, sql: sql)
        }
    }

    /// Runs a statement, handing each result row to `row`.
    func query(_ sql: String, _ bindings: [SQLiteValue] = [], row: (SQLiteRow) throws -> Void) throws {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        try bind(bindings, to: statement, sql: sql)
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { break }
            guard status == SQLITE_ROW else { throw failure(status, sql: sql) }
            try row(SQLiteRow(statement: statement))
        }
    }

    /// The first row mapped through `map`, or nil when there is none.
    func first<T>(_ sql: String, _ bindings: [SQLiteValue] = [], map: (SQLiteRow) throws -> T) throws -> T? {
        var result: T?
        try query(sql, bindings) { row in
            if result == nil { result = try map(row) }
        }
        return result
    }

    /// Runs a statement that returns no rows; answers how many rows it changed.
    @discardableResult
    func run(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteError) -> Int {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        try bind(bindings, to: statement, sql: sql)
        let status = sqlite3_step(statement)
        guard status == SQLITE_DONE || status == SQLITE_ROW else { throw failure(status, sql: sql) }
        return Int(sqlite3_changes(handle))
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back if it throws.
    ///
    /// IMMEDIATE takes the write lock up front, so the busy timeout covers the whole wait. A
    /// deferred transaction that reads first and then writes can fail with `SQLITE_BUSY` at the
    /// upgrade without SQLite ever retrying — the classic source of "database is locked" under
    /// concurrency — which is why every write goes through here.
    func writeTransaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    // MARK: Internals

    private func db() throws(SQLiteError) -> OpaquePointer {
        guard let handle else { throw SQLiteError(code: SQLITE_MISUSE, message: "the database is closed", sql: nil) }
        return handle
    }

    private func prepared(_ sql: String) throws(SQLiteError) -> OpaquePointer {
        if let cached = statements[sql] { return cached }
        var statement: OpaquePointer?
        let flags = UInt32(SQLITE_PREPARE_PERSISTENT)
        let status = sqlite3_prepare_v3(try db(), sql, -1, flags, &statement, nil)
        guard status == SQLITE_OK, let statement else { throw failure(status, sql: sql) }
        statements[sql] = statement
        return statement
    }

    private func bind(_ values: [SQLiteValue], to statement: OpaquePointer, sql: String) throws(SQLiteError) {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .null: status = sqlite3_bind_null(statement, index)
            case .integer(let number): status = sqlite3_bind_int64(statement, index, number)
            case .real(let number): status = sqlite3_bind_double(statement, index, number)
            case .text(let text):
                // By its length: with -1 SQLite stops at the first NUL, and two names differing
                // after one would be stored as one.
                var text = text
                status = text.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { chars in
                        guard let start = chars.baseAddress else { return sqlite3_bind_text(statement, index, "", 0, nil) }
                        return sqlite3_bind_text(statement, index, start, Int32(chars.count), wharf_sqlite_transient())
                    }
                }
            case .blob(let bytes):
                status = bytes.withUnsafeBytes { raw in
                    // A zero-length blob still binds as a blob, never as NULL.
                    sqlite3_bind_blob(statement, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(raw.count), wharf_sqlite_transient())
                }
            }
            try check(status, sql: sql)
        }
    }

    private func check(_ status: Int32, sql: String) throws(SQLiteError) {
        guard status == SQLITE_OK else { throw failure(status, sql: sql) }
    }

    private func failure(_ status: Int32, sql: String) -> SQLiteError {
        let code = handle.map { sqlite3_extended_errcode($0) } ?? status
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
        return SQLiteError(code: code == SQLITE_OK ? status : code, message: message, sql: sql)
    }
}

/// A busy handler's state: SQLite's own back-off (1 ms growing to 100 ms a wait), bounded by a
/// total, and a way to give up early.
final class BusyHandler: Sendable {
    private static let waits = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]
    private let limit: Int
    private let giveUp: @Sendable () -> Bool

    init(limit: Int, giveUp: @escaping @Sendable () -> Bool) {
        self.limit = limit
        self.giveUp = giveUp
    }

    /// Whether to try again after `count` waits (then waits once more).
    func retry(after count: Int) -> Bool {
        if giveUp() { return false }
        let waited = count < Self.waits.count
            ? Self.waits.prefix(count).reduce(0, +)
            : Self.waits.reduce(0, +) + (count - Self.waits.count) * 100
        guard waited < limit else { return false }
        ProcessControl.sleep(milliseconds: count < Self.waits.count ? Self.waits[count] : 100)
        return true
    }
}
