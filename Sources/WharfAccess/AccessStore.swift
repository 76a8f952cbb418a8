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

    /// The most leases one client (one connection) may hold at once: 4096. An editor nests a
    /// few per document; without a bound a client could grow the sessions' state, which every
    /// client's access checks lock, without end.
    public static let maximumLeasesPerClient = 4096

    /// How long a write waits for another process's transaction before giving up. Transactions
    /// are a handful of point updates, so in practice waits are microseconds; the generous
    /// bound only matters when a machine is badly overloaded. Nothing a client waits for waits
    /// this long: grants are written behind.
    static let busyTimeoutMilliseconds: Int32 = 30_000
    /// How long writes wait for another process's lock once the store is closing (``close()``).
    static let closingPatienceNanoseconds: UInt64 = 1_000_000_000
    /// When ``close()`` began: from then on, a write waits at most `closingPatienceNanoseconds`.
    private let closingSince = Locked<UInt64?>(nil)

    /// Whether a write waiting for the lock should give up: the store has been closing a while.
    private var givesUp: @Sendable () -> Bool {
        { [closingSince] in
            guard let since = closingSince.withValue({ $0 }) else { return false }
            return monotonicNanoseconds() - since > Self.closingPatienceNanoseconds
        }
    }

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
    /// Told about failures nobody waits for (a batch the store refused), to log them; what
    /// happens before it is set waits in `unreported`.
    let problems: Locked<(@Sendable (String) -> Void)?> = Locked(nil)
    private let unreported = Locked<[String]>([])
    /// Where the database stands (see `open`): statements wait while it is being opened.
    private let database = WaitableValue(DatabaseState.notOpened)
    /// This process's `running/` marker while the database is open (none for `:memory:`).
    private let marker = Locked<InUseMarker?>(nil)
    /// The state directory; nil for `:memory:`.
    private let stateDirectory: FilePath?

    private init(instance: String, stateDirectory: FilePath?, databasePath: FilePath, inMemory: Bool) {
        let writing = Locked<SQLiteConnection?>(nil)
        self.stateDirectory = stateDirectory
        self.writer = writing
        self.reader = inMemory ? writing : Locked(nil)
        self.instance = instance
        self.databasePath = databasePath
        self.pending = WriteBehind()
    }

    deinit { close() }

    /// Where to report failures nobody waits for (the server logs them): a batch the store
    /// refused, a database moved aside or that could not be opened when first needed.
    public func reportProblems(to handler: @escaping @Sendable (String) -> Void) {
        let waiting = problems.withValue { problems -> [String] in
            problems = handler
            return unreported.withValue { messages in defer { messages = [] }; return messages }
        }
        for message in waiting { handler(message) }
    }

    // MARK: Opening

    /// When `open` opens the database itself.
    public enum Opening: Sendable {
        /// Before `open` returns (tools, tests).
        case now
        /// When a statement first needs it: a server whose sessions never open a dialog or
        /// resolve a bookmark never touches SQLite. (A server still sweeps at start what a
        /// crashed process left, when ``crashLeftovers`` says there is some.)
        case whenNeeded
    }

    /// Opens (creating if needed) the store in `stateDirectory`: nil for the default
    /// (`$XDG_STATE_HOME/wharf`, else `~/.local/state/wharf`), `:memory:` for a store that lives
    /// and dies with this object.
    ///
    /// The directory is made (mode 0700) at once, and an unusable one throws. The database
    /// itself (connections, WAL, a `quick_check` of every page, migrations) is opened as
    /// `opening` says; whatever needs it first waits for it. A corrupted database is moved aside
    /// (`state.sqlite3.corrupt-<timestamp>`) and replaced by a fresh one; that is a warning
    /// (answered, or reported through `reportProblems` when opened later). A database that
    /// cannot be opened at all (written by a newer Wharf; a fresh one corrupt too) throws, or,
    /// opened later, fails every statement with the reason and is reported. This process's
    /// registration and the sweep of dead processes' rows are the first write-behind batch:
    /// opening never waits for another process's lock.
    public static func open(stateDirectory: FilePath?, opening: Opening = .now) throws(AccessError) -> (AccessStore, [String]) {
        let instance: String
        do { instance = try RandomTokens.instanceId() } catch { throw .io(error) }
        var warnings: [String] = []
        let path: FilePath
        let directory = StateLocation.directory(explicit: stateDirectory)
        if let directory {
            do { warnings = try StateLocation.prepareDirectory(directory) } catch { throw .io(error) }
            path = directory.appending(StateLocation.databaseName)
        } else {
            path = FilePath(stringLiteral: StateLocation.memory)
        }
        let store = AccessStore(instance: instance, stateDirectory: directory, databasePath: path,
                                inMemory: stateDirectory?.description == StateLocation.memory)
        switch opening {
        case .now:
            warnings += try store.openDatabase()
        case .whenNeeded:
            break
        }
        return (store, warnings)
    }

    /// Whether a process that used this store ended without closing it (see ``InUseMarker``).
    /// Its rows are swept in the first batch written after the database opens; the temporary
    /// files it left in ``writtenDirectories()`` are for the caller to remove.
    public var crashLeftovers: Bool {
        stateDirectory.map { InUseMarker.crashLeftovers(in: $0) } ?? false
    }

    /// The markers of processes that ended without closing the store, removed once what they
    /// left is swept.
    public func forgetCrashLeftovers() {
        if let stateDirectory { InUseMarker.removeAbandoned(in: stateDirectory) }
    }

    /// Opens the database's connections; answers warnings worth logging. Every statement
    /// waiting for it goes on once this returns.
    private func openDatabase() throws(AccessError) -> [String] {
        var warnings: [String] = []
        let result: Result<Void, AccessError> = Result { () throws(AccessError) in
            guard databasePath.description != StateLocation.memory else {
                switch Self.openConfigured(path: databasePath) {
                case .success(let connection): writer.withValue { $0 = connection }
                case .failure(let error): throw .store(StoreFailure(error, doing: "open an in-memory state store"))
                }
                return
            }
            if let stateDirectory {
                do {
                    let created = try InUseMarker.create(in: stateDirectory, instance: instance)
                    marker.withValue { $0 = created }
                } catch {
                    warnings.append("cannot mark the state store as in use (\(error)): if this process crashes, "
                        + "the next Wharf will not know to sweep what it left")
                }
            }
            try openFile(warnings: &warnings)
        }
        database.change {
            $0 = .opened(result.mapError { error in
                if case .store(let failure) = error { return failure }
                return StoreFailure(kind: .other, message: "\(error)")
            })
        }
        try result.get()
        pending.registerInstance()
        scheduleFlush()
        return warnings
    }

    /// The file store's two connections; one retry: a corrupted file is moved aside and a fresh
    /// one made in its place.
    private func openFile(warnings: inout [String]) throws(AccessError) {
        let path = databasePath
        for attempt in 0..<2 {
            let judged: FileIdentity
            do { judged = try StateLocation.prepareDatabaseFile(path) } catch {
                throw .store(StoreFailure(error, doing: "open the state store \(path)"))
            }
            switch Self.openConfigured(path: path) {
            case .success(let connection):
                let second: SQLiteConnection
                do {
                    second = try SQLiteConnection(path: path)
                    try second.setBusyTimeout(milliseconds: Self.busyTimeoutMilliseconds)
                } catch {
                    throw .store(StoreFailure(error, doing: "open the state store \(path) for reading"))
                }
                do {
                    try connection.setBusyHandler(milliseconds: Int(Self.busyTimeoutMilliseconds), giveUp: givesUp)
                } catch {
                    throw .store(StoreFailure(error, doing: "open the state store \(path)"))
                }
                writer.withValue { $0 = connection }
                reader.withValue { $0 = second }
                return
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

    /// Waits until the database is open, opening it on this thread if nothing has yet; throws
    /// why it could not be.
    private func awaitDatabase() throws(AccessError) {
        // Nil: nobody has started opening it, and this thread now does.
        let result = database.wait { state -> Result<Void, StoreFailure>?? in
            switch state {
            case .opened(let result): return .some(result)
            case .notOpened:
                state = .opening
                return .some(nil)
            case .opening: return nil
            }
        }
        guard let result else {
            do {
                for warning in try openDatabase() { report(warning) }
            } catch {
                report("the state store \(databasePath) cannot be used: \(error)")
                throw error
            }
            return
        }
        if case .failure(let failure) = result { throw .store(failure) }
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

    /// Writes what is pending, then ends this process's instance: its sessions' grants and
    /// leases are removed from the shared store (bookmarks stay), and the connections closed.
    /// Later calls fail with a `.store` error. Called by `deinit` too; safe to call twice.
    public func close() {
        // A store never opened, with nothing to write, stays unopened: it is closed from now on.
        let unopened = database.withValue { state -> Bool in
            guard case .notOpened = state, pending.isEmpty else { return false }
            state = .opened(.failure(.closed))
            return true
        }
        guard !unopened, (try? awaitDatabase()) != nil else { return }
        // Exiting waits for another process's lock on the database only briefly: with the usual
        // busy timeout, a write under way and each of the two below could keep the process for
        // 30 s after `exit`. What cannot be written now is what a crash would leave, and is
        // swept as such: the in-use marker stays unless everything was written.
        closingSince.withValue { $0 = $0 ?? monotonicNanoseconds() }
        flush()
        var everythingWritten = pending.isWritten
        writer.withValue { connection in
            guard let db = connection else { return }
            let removed = try? db.writeTransaction { try db.run("DELETE FROM instances WHERE id = ?", [.text(instance)]) }
            everythingWritten = everythingWritten && removed != nil
            db.close()
            connection = nil
        }
        reader.withValue { connection in
            connection?.close()
            connection = nil
        }
        marker.withValue { marker in
            if everythingWritten { marker?.remove() }
            marker = nil
        }
    }

    // MARK: Running statements

    /// Runs `body` with the reading connection, outside any explicit transaction (single
    /// statements are atomic on their own). Errors become `AccessError`.
    func read<T>(_ body: (SQLiteConnection) throws -> T) throws(AccessError) -> T {
        try awaitDatabase()
        return try Self.translatingErrors(doing: "read the state store") {
            try reader.withValue { connection in
                guard let db = connection else { throw AccessError.store(.closed) }
                return try body(db)
            }
        }
    }

    /// Runs `body` in a short `BEGIN IMMEDIATE` transaction on the writing connection. Keep
    /// file-system work out of it; call it off the read loop (it may wait for another
    /// process's lock).
    ///
    /// - Parameter durable: the commit is on disk before this returns, power cut included
    ///   (`synchronous = FULL` for this transaction: the write-ahead log is `fsync`ed at its
    ///   commit). Otherwise the store's `NORMAL` holds: a crash of the process loses nothing
    ///   committed, a power cut may lose the last commits.
    @discardableResult
    func write<T: Sendable>(durable: Bool = false, _ body: (SQLiteConnection) throws -> T) throws(AccessError) -> T {
        try awaitDatabase()
        return try Self.translatingErrors(doing: "write the state store") {
            try writer.withValue { connection in
                guard let db = connection else { throw AccessError.store(.closed) }
                guard durable else { return try db.writeTransaction { try body(db) } }
                try db.execute("PRAGMA synchronous = FULL")
                defer { try? db.execute("PRAGMA synchronous = NORMAL") }
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
        // Kept for later, under the same lock the handler is set under, when there is none yet.
        let handler = problems.withValue { handler -> (@Sendable (String) -> Void)? in
            if handler == nil { unreported.withValue { $0.append(message) } }
            return handler
        }
        handler?(message)
    }
}

/// Where a store's database stands.
private enum DatabaseState {
    case notOpened
    case opening
    case opened(Result<Void, StoreFailure>)
}
