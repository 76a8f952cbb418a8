import Glibc
import CSQLite
import WharfSystem

/// Security-scoped access for Wharf: grants held by sessions, leases that balance like
/// `start/stopAccessingSecurityScopedResource`, bookmarks that outlive the process, and I/O
/// brokered through leases.
///
/// **Where things live.** What this process's sessions hold — their grants and leases — lives
/// in memory, where every check reads it: a `resolveAccess` or `readFile` never waits on SQLite
/// for them. It is written behind to the SQLite store shared by every Wharf process of the user
/// (in small batches, within a few milliseconds), so that `wharf access list` and `revoke`
/// see it and can take it away: a grant revoked in the store by another process is dropped
/// here at this process's next access check (SQLite's `data_version` says when the store
/// changed). Bookmarks belong to the app, not a session: they are written to the store before
/// `createBookmark` answers, and read from it. Remembered folders are written behind too.
///
/// What a crash can lose: the grants and leases of the sessions that were running (they die
/// with the process anyway; the next Wharf clears their rows), and folders remembered in the
/// last few milliseconds. Never a bookmark that was handed out.
///
/// Threat model. Wharf protects against a *client* reaching files the human did not pick for
/// it: another session's grants, paths beyond a grant (`..`, symbolic links leading out, links
/// or other files swapped in after the pick), bookmarks it was not given or has edited, and
/// recycled inode numbers posing as deleted files. It does not protect against other programs
/// running as the same user — they can read the files, and the store, directly.
///
/// `Sendable` and internally synchronised: session state behind one lock (never held across
/// file-system or SQLite work), the store's connections behind their own.
public final class AccessStore: Sendable {
    /// The most bytes one `read` or `write` call moves: 16 MiB. Large enough for whole documents
    /// in one call, small enough that one request cannot make the server buffer gigabytes (the
    /// protocol layer base64-encodes it, adding a third).
    public static let maximumTransferLength = 16 << 20

    /// How long a write waits for another process's transaction before giving up. Transactions
    /// are a handful of point updates, so in practice waits are microseconds; the generous
    /// bound only matters when a machine is badly overloaded. Nothing a client waits for waits
    /// this long: grants are written behind.
    static let busyTimeoutMilliseconds: Int32 = 30_000

    /// `state.sqlite3` inside the state directory, or `:memory:`.
    public let databasePath: FilePath

    let instance: String
    /// The connection writes go through (the write-behind batches, bookmarks).
    let writer: Locked<SQLiteConnection?>
    /// A second connection for reads, so a read never waits behind a write that waits for
    /// another process's lock (the same connection as `writer` for an in-memory store).
    let reader: Locked<SQLiteConnection?>
    /// This process's sessions: their grants and leases.
    let sessions = Locked(SessionState())
    /// Changes waiting to be written to the store.
    let pending: WriteBehind
    /// The store's `data_version` when revocations were last looked for.
    let lastDataVersion = Locked<Int64>(-1)
    /// Told about failures nobody waits for (a batch the store refused), to log them.
    let problems: Locked<(@Sendable (String) -> Void)?> = Locked(nil)

    private init(writer: SQLiteConnection, reader: SQLiteConnection?, instance: String, databasePath: FilePath) {
        let writing = Locked<SQLiteConnection?>(writer)
        self.writer = writing
        self.reader = reader.map { Locked($0) } ?? writing
        self.instance = instance
        self.databasePath = databasePath
        self.pending = WriteBehind()
    }

    deinit { close() }

    /// Where to report failures of writes nobody waits for (the server logs them).
    public func reportProblems(to handler: @escaping @Sendable (String) -> Void) {
        problems.withValue { $0 = handler }
    }

    // MARK: Opening

    /// Opens (creating if needed) the store in `stateDirectory` — nil for the default
    /// (`$XDG_STATE_HOME/wharf`, else `~/.local/state/wharf`), `:memory:` for a store that lives
    /// and dies with this object.
    ///
    /// Answers the store and warnings worth logging: chiefly that a corrupted database was found,
    /// moved aside (`state.sqlite3.corrupt-<timestamp>`) and replaced by a fresh one. Throws only
    /// when no usable store can be had (the directory cannot be created, the database was written
    /// by a newer Wharf, or a fresh database is corrupt too). This process's registration and the
    /// sweep of dead processes' rows happen in the background: opening never waits for another
    /// process's lock.
    public static func open(stateDirectory: FilePath?) throws(AccessError) -> (AccessStore, [String]) {
        let instance: String
        do { instance = try RandomTokens.instanceId() } catch { throw .io(error) }

        guard let directory = StateLocation.directory(explicit: stateDirectory) else {
            let memory = FilePath(stringLiteral: StateLocation.memory)
            switch openConfigured(path: memory) {
            case .success(let connection):
                return (finishOpening(writer: connection, reader: nil, instance: instance, path: memory), [])
            case .failure(let error):
                throw .store(StoreFailure(error, doing: "open an in-memory state store"))
            }
        }

        var warnings: [String]
        do { warnings = try StateLocation.prepareDirectory(directory) } catch { throw .io(error) }
        let path = directory.appending(StateLocation.databaseName)

        // One retry: a corrupted file is moved aside and a fresh one made in its place.
        for attempt in 0..<2 {
            let judged: FileIdentity
            do { judged = try StateLocation.prepareDatabaseFile(path) } catch { throw .io(error) }
            switch openConfigured(path: path) {
            case .success(let connection):
                let reader: SQLiteConnection
                do {
                    reader = try SQLiteConnection(path: path)
                    try reader.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
                } catch {
                    throw .store(StoreFailure(error, doing: "open the state store \(path) for reading"))
                }
                return (finishOpening(writer: connection, reader: reader, instance: instance, path: path), warnings)
            case .failure(let error) where error.isCorruption && attempt == 0:
                let movedTo: FilePath?
                do { movedTo = try StateLocation.moveAside(database: path, judged: judged) } catch { throw .io(error) }
                if let movedTo {
                    warnings.append("the state store \(path) was unreadable (\(error.message)); it was moved "
                        + "aside to \(movedTo) and a fresh store was started — bookmarks and remembered "
                        + "folders kept in it are lost")
                } else {
                    warnings.append("the state store \(path) was unreadable (\(error.message)); another "
                        + "Wharf process has already replaced it with a fresh store")
                }
            case .failure(let error):
                throw .store(StoreFailure(error, doing: "open the state store \(path)"))
            }
        }
        throw .store(StoreFailure(kind: .other, message: "cannot open the state store \(path)"))
    }

    /// Opens and configures a connection, reading the schema so that a file that is not a
    /// database (or is damaged) fails here, where it can be moved aside, rather than mid-request.
    private static func openConfigured(path: FilePath) -> Result<SQLiteConnection, SQLiteError> {
        do {
            let connection = try SQLiteConnection(path: path)
            do {
                // The busy timeout first: switching to WAL itself needs a lock.
                try connection.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
                try switchToWAL(connection)
                // In WAL mode NORMAL syncs at checkpoints only; a power cut may lose the last
                // commits but never corrupts the store.
                try connection.execute("PRAGMA synchronous = NORMAL")
                // Every statement touches a few rows: 256 KiB of page cache is plenty, and
                // keeps a long session's memory flat as grants come and go (SQLite's default
                // lets the cache grow to 2 MiB).
                try connection.execute("PRAGMA cache_size = -256")
                try connection.execute("PRAGMA foreign_keys = ON")
                try quickCheck(connection)
                try migrate(connection)
                return .success(connection)
            } catch {
                connection.close()
                throw error
            }
        } catch let error as SQLiteError {
            return .failure(error)
        } catch {
            return .failure(SQLiteError(code: SQLITE_ERROR, message: "\(error)", sql: nil))
        }
    }

    /// `PRAGMA journal_mode = WAL`, retried while other processes are opening the same fresh
    /// store: SQLite answers SQLITE_BUSY here without calling the busy handler when another
    /// connection is switching the mode or recovering the WAL index at that moment (seen with
    /// eight processes starting together on a loaded machine), so the busy timeout alone does
    /// not cover it.
    private static func switchToWAL(_ connection: SQLiteConnection) throws {
        let patience = Int(busyTimeoutMilliseconds) * 1000
        var waited = 0
        while true {
            do {
                try connection.execute("PRAGMA journal_mode = WAL")
                return
            } catch {
                guard error.isBusy, waited < patience else { throw error }
                let pause = Int.random(in: 1...20)
                ProcessControl.sleep(milliseconds: pause)
                waited += pause * 1000
            }
        }
    }

    /// `PRAGMA quick_check`: walks every page (milliseconds for a store of this size) so that
    /// damage inside the file is found at start, not by whichever request first touches it.
    private static func quickCheck(_ connection: SQLiteConnection) throws {
        var problems: [String] = []
        try connection.query("PRAGMA quick_check") { row in problems.append(row.text(0)) }
        if problems != ["ok"] {
            throw SQLiteError(code: SQLITE_CORRUPT, message: problems.prefix(3).joined(separator: "; "),
                              sql: "PRAGMA quick_check")
        }
    }

    /// Runs the migrations this database lacks, inside one IMMEDIATE transaction so that
    /// processes starting together migrate exactly once (the version is read again under the
    /// lock). A database from a newer Wharf is refused, never downgraded.
    static func migrate(_ connection: SQLiteConnection) throws {
        func version() throws -> Int { Int(try connection.first("PRAGMA user_version") { $0.int(0) } ?? 0) }
        if try version() == Schema.currentVersion { return }
        try connection.writeTransaction {
            let found = try version()
            if found > Schema.currentVersion {
                throw SQLiteError(code: SQLITE_ERROR, message: "the store has schema version \(found), written "
                    + "by a newer Wharf; this one knows versions up to \(Schema.currentVersion)", sql: nil)
            }
            for step in found..<Schema.currentVersion {
                try connection.execute(Schema.migrations[step])
            }
            try connection.execute("PRAGMA user_version = \(Schema.currentVersion)")
        }
    }

    /// The store, with this process's registration (and the sweep of processes that died
    /// without cleaning up) as its first write-behind batch.
    private static func finishOpening(writer: SQLiteConnection, reader: SQLiteConnection?, instance: String,
                                      path: FilePath) -> AccessStore {
        let store = AccessStore(writer: writer, reader: reader, instance: instance, databasePath: path)
        store.pending.registerInstance()
        store.scheduleFlush()
        return store
    }

    /// Writes what is pending, then ends this process's instance: its sessions' grants and
    /// leases are removed from the shared store (bookmarks stay), and the connections closed.
    /// Later calls fail with a `.store` error. Called by `deinit` too; safe to call twice.
    public func close() {
        flush()
        writer.withValue { connection in
            guard let db = connection else { return }
            _ = try? db.writeTransaction { try db.run("DELETE FROM instances WHERE id = ?", [.text(instance)]) }
            db.close()
            connection = nil
        }
        reader.withValue { connection in
            connection?.close()
            connection = nil
        }
    }

    // MARK: Running statements

    /// Runs `body` with the reading connection, outside any explicit transaction (single
    /// statements are atomic on their own). Errors become `AccessError`.
    func read<T>(_ body: (SQLiteConnection) throws -> T) throws(AccessError) -> T {
        try Self.translatingErrors(doing: "read the state store") {
            try reader.withValue { connection in
                guard let db = connection else { throw AccessError.store(.closed) }
                return try body(db)
            }
        }
    }

    /// Runs `body` in a short `BEGIN IMMEDIATE` transaction on the writing connection. Keep
    /// file-system work out of it; call it off the read loop (it may wait for another
    /// process's lock).
    @discardableResult
    func write<T>(_ body: (SQLiteConnection) throws -> T) throws(AccessError) -> T {
        try Self.translatingErrors(doing: "write the state store") {
            try writer.withValue { connection in
                guard let db = connection else { throw AccessError.store(.closed) }
                return try db.writeTransaction { try body(db) }
            }
        }
    }

    /// The one place where the errors of the layers below become `AccessError`s.
    static func translatingErrors<T>(doing what: String, _ body: () throws -> T) throws(AccessError) -> T {
        do {
            return try body()
        } catch let error as AccessError {
            throw error
        } catch let error as SQLiteError {
            throw .store(StoreFailure(error, doing: what))
        } catch let error as SystemError {
            throw .io(error)
        } catch {
            throw .store(StoreFailure(kind: .other, message: "\(error)"))
        }
    }

    /// Reports a failure nobody waits for.
    func report(_ message: String) {
        if let handler = problems.withValue({ $0 }) { handler(message) }
    }
}
