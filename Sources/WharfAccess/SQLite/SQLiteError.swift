import CSQLite

/// A failed SQLite call: the result code, SQLite's own message, and the statement that failed.
struct SQLiteError: Error, CustomStringConvertible {
    /// The extended result code (e.g. `SQLITE_BUSY_SNAPSHOT`); `code & 0xff` is the primary one.
    var code: Int32
    var message: String
    var sql: String?

    var primaryCode: Int32 { code & 0xff }

    /// The file is not a database or its pages are damaged: the store must be moved aside.
    var isCorruption: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }

    /// Another connection held a lock for longer than the busy timeout.
    var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }

    var description: String {
        let name = String(cString: sqlite3_errstr(code))
        var text = "SQLite error \(code) (\(name)): \(message)"
        if let sql { text += " — while running: \(sql)" }
        return text
    }
}
