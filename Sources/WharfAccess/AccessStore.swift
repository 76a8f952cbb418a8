#if canImport(Glibc)
import Glibc
#endif
import CSQLite
import WharfSystem

/// Security-scoped access for Wharf: grants held by sessions, leases that balance like
/// `start/stopAccessingSecurityScopedResource`, bookmarks that outlive the process, and I/O
/// brokered through leases — all kept in one SQLite store shared by every Wharf process of the
/// user.
///
/// The database is the single source of truth. Every check reads it, so a revocation made by
/// another process (`wharf access revoke`) takes effect at the next request; nothing is cached
/// that could keep a revoked grant alive.
///
/// Threat model. Wharf protects against a *client* reaching files the human did not pick for
/// it: another session's grants, paths beyond a grant (`..`, symbolic links leading out, links
/// or other kinds of files swapped in after the pick), bookmarks it was not given or has edited,
/// and recycled inode numbers posing as deleted files. It does not protect against other programs
/// running as the same user — they can read the files, and the store, directly — and an app
/// identity is the name a client declares, a label rather than a credential: what keeps one
/// app's bookmarks from another is that the bookmark strings are unguessable secrets. A regular
/// file put at a granted path (an editor's save; equally a hard link made there by something
/// that could already reach the target) is accepted as the granted document, marked stale.
///
/// `Sendable` and internally synchronised: the one connection sits behind a lock (SQLite itself
/// is opened without its own mutexes), and file-system work — locating moved files, reading,
/// writing — happens outside that lock.
public final class AccessStore: Sendable {
    /// The most bytes one `read` or `write` call moves: 16 MiB. Large enough for whole documents
    /// in one call, small enough that one request cannot make the server buffer gigabytes (the
    /// protocol layer base64-encodes it, adding a third).
    public static let maximumTransferLength = 16 << 20

    /// How long a write waits for another process's transaction before giving up. Transactions
    /// are a handful of point updates, so in practice waits are microseconds; the generous
    /// bound only matters when a machine is badly overloaded.
    static let busyTimeoutMilliseconds: Int32 = 30_000

    /// `state.sqlite3` inside the state directory, or `":memory:"`.
    public let databasePath: FilePath

    let instance: String
    private let connection: Locked<SQLiteConnection?>
    private let released = Locked<[ClientID: ReleasedAccessIds]>([:])

    private init(connection: SQLiteConnection, instance: String, databasePath: FilePath) {
        self.connection = Locked(connection)
        self.instance = instance
        self.databasePath = databasePath
    }

    deinit { close() }

    // MARK: Opening

    /// Opens (creating if needed) the store in `stateDirectory` — nil for the default
    /// (`$XDG_STATE_HOME/wharf`, else `~/.local/state/wharf`), `":memory:"` for a store that lives
    /// and dies with this object.
    ///
    /// Answers the store and warnings worth logging: chiefly that a corrupted database was found,
    /// moved aside (`state.sqlite3.corrupt-<timestamp>`) and replaced by a fresh one. Throws only
    /// when no usable store can be had (the directory cannot be created, the database was written
    /// by a newer Wharf, or a fresh database is corrupt too).
    public static func open(stateDirectory: FilePath?) throws(AccessError) -> (AccessStore, [String]) {
        let instance: String
        do { instance = try RandomTokens.instanceId() } catch { throw .io(error) }

        guard let directory = StateLocation.directory(explicit: stateDirectory) else {
            let memory = FilePath(stringLiteral: StateLocation.memory)
            switch openConfigured(path: memory) {
            case .success(let connection):
                return (try finishOpening(connection, instance: instance, path: memory), [])
            case .failure(let error):
                throw .store("cannot open an in-memory state store: \(error)")
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
                return (try finishOpening(connection, instance: instance, path: path), warnings)
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
                throw .store("cannot open the state store \(path): \(error)")
            }
        }
        throw .store("cannot open the state store \(path)")
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
                let pause = Int.random(in: 1_000...20_000)
                usleep(UInt32(pause))
                waited += pause
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

    /// Registers this process's instance and clears what dead processes left behind.
    private static func finishOpening(_ connection: SQLiteConnection, instance: String,
                                      path: FilePath) throws(AccessError) -> AccessStore {
        let store = AccessStore(connection: connection, instance: instance, databasePath: path)
        let me = ProcessIdentity.current()
        try store.write { db in
            try db.run("INSERT INTO instances (id, pid, process_start, started) VALUES (?, ?, ?, ?)",
                       [.text(instance), .integer(Int64(me.pid)), .integer(Int64(me.startTime)),
                        .real(StateLocation.now())])
        }
        try store.sweepDeadInstances()
        return store
    }

    /// Deletes the instances (and, by cascade, the grants and leases) of processes that are no
    /// longer running — those that crashed or were killed before `close()`.
    func sweepDeadInstances() throws(AccessError) {
        var instances: [(id: String, process: ProcessIdentity)] = []
        try read { db in
            try db.query("SELECT id, pid, process_start FROM instances") { row in
                instances.append((row.text(0), ProcessIdentity(pid: Int32(row.int(1)), startTime: UInt64(row.int(2)))))
            }
        }
        let dead = instances.filter { $0.id != instance && !$0.process.isRunning }
        guard !dead.isEmpty else { return }
        try write { db in
            for entry in dead { try db.run("DELETE FROM instances WHERE id = ?", [.text(entry.id)]) }
        }
    }

    /// Ends this process's instance: its sessions' grants and leases are removed from the shared
    /// store (bookmarks stay), and the connection is closed. Later calls fail with `.store`.
    /// Called by `deinit` too; safe to call twice.
    public func close() {
        connection.withValue { connection in
            guard let db = connection else { return }
            _ = try? db.writeTransaction { try db.run("DELETE FROM instances WHERE id = ?", [.text(instance)]) }
            db.close()
            connection = nil
        }
    }

    // MARK: Running statements

    /// Runs `body` with the connection, outside any explicit transaction (single statements are
    /// atomic on their own). Errors become `AccessError`.
    func read<T>(_ body: (SQLiteConnection) throws -> T) throws(AccessError) -> T {
        try Self.translatingErrors {
            try connection.withValue { connection in
                guard let db = connection else { throw AccessError.store("the state store is closed") }
                return try body(db)
            }
        }
    }

    /// Runs `body` in a short `BEGIN IMMEDIATE` transaction. Keep file-system work out of it.
    @discardableResult
    func write<T>(_ body: (SQLiteConnection) throws -> T) throws(AccessError) -> T {
        try read { db in try db.writeTransaction { try body(db) } }
    }

    /// The one place where the errors of the layers below become `AccessError`s.
    static func translatingErrors<T>(_ body: () throws -> T) throws(AccessError) -> T {
        do {
            return try body()
        } catch let error as AccessError {
            throw error
        } catch let error as SQLiteError {
            throw .store(error.description)
        } catch let error as SystemError {
            throw .io(error)
        } catch {
            throw .store("\(error)")
        }
    }

    // MARK: Released ids

    /// Remembers that `accessId` was released by `client`, so a second release is told apart from
    /// an id that was never this client's.
    func rememberReleased(_ accessId: String, by client: ClientID) {
        released.withValue { $0[client, default: ReleasedAccessIds()].insert(accessId) }
    }

    func wasReleased(_ accessId: String, by client: ClientID) -> Bool {
        released.withValue { $0[client]?.contains(accessId) ?? false }
    }

    func forgetReleased(of client: ClientID) {
        _ = released.withValue { $0.removeValue(forKey: client) }
    }
}

/// The ids a client has released, newest kept: a bounded memory (the oldest are forgotten past
/// `capacity`), so a long session cannot grow it without end. A forgotten id released again is
/// reported as unknown rather than as released twice — still an error, just a vaguer one.
struct ReleasedAccessIds {
    static let capacity = 4096
    private var ids: Set<String> = []
    private var order: [String] = []
    private var start = 0

    mutating func insert(_ id: String) {
        guard ids.insert(id).inserted else { return }
        order.append(id)
        if ids.count > Self.capacity {
            ids.remove(order[start])
            start += 1
            if start > Self.capacity {
                order.removeFirst(start)
                start = 0
            }
        }
    }

    func contains(_ id: String) -> Bool { ids.contains(id) }
}
