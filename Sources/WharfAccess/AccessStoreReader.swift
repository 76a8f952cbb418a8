import CSQLite
import Glibc
import WharfSystem

/// The state store seen by `wharf access list`: read, never written, never created.
///
/// A person asking what apps hold must not change what they hold, nor leave a store behind
/// where there was none (`AccessStore.open` creates the directory and the database, registers
/// its process and sweeps dead processes' rows). This opens an existing database with
/// `SQLITE_OPEN_READONLY` and leaves out the grants of processes that are no longer running
/// instead of deleting them; the next Wharf that writes clears those. (SQLite may leave its
/// `-wal` and `-shm` companions next to a database in WAL mode after a read-only connection:
/// they belong to the store that was already there.)
public final class AccessStoreReader {
    private let connection: SQLiteConnection
    /// `state.sqlite3` in the state directory.
    public let databasePath: FilePath

    private init(connection: SQLiteConnection, databasePath: FilePath) {
        self.connection = connection
        self.databasePath = databasePath
    }

    deinit { connection.close() }

    /// Where the database of `stateDirectory` is (nil for the default location, as
    /// ``AccessStore/open(stateDirectory:)`` finds it); nil for `:memory:`, which no other
    /// process can see.
    public static func databasePath(stateDirectory: FilePath?) -> FilePath? {
        StateLocation.directory(explicit: stateDirectory)?.appending(StateLocation.databaseName)
    }

    /// The store in `stateDirectory`, opened for reading; nil when there is none (nothing was
    /// ever granted or bookmarked there, or it is `:memory:`). Throws when a store is there but
    /// cannot be read, or was written by a Wharf whose schema this one does not read.
    public static func open(stateDirectory: FilePath?) throws(AccessError) -> AccessStoreReader? {
        guard let path = databasePath(stateDirectory: stateDirectory) else { return nil }
        do {
            guard try FileStatus.ofLink(path).kind == .regular else {
                throw AccessError.store(StoreFailure(kind: .other, message: "\(path) is not a regular file"))
            }
        } catch let error as SystemError {
            if error.code == ENOENT || error.code == ENOTDIR { return nil }
            throw .io(error)
        } catch let error as AccessError {
            throw error
        } catch {
            throw .store(StoreFailure(kind: .other, message: "\(error)"))
        }
        let connection: SQLiteConnection
        let version: Int64
        do {
            connection = try SQLiteConnection(path: path, readOnly: true)
            try connection.setBusyTimeout(milliseconds: AccessStore.busyTimeoutMilliseconds)
            version = try connection.first("PRAGMA user_version") { $0.int(0) } ?? 0
        } catch let error as SQLiteError {
            throw .store(StoreFailure(error, doing: "read the state store \(path)"))
        } catch {
            throw .store(StoreFailure(kind: .other, message: "\(error)"))
        }
        if version == 0 {
            connection.close()
            return nil  // made, never written to: it holds nothing
        }
        guard version == Schema.currentVersion else {
            connection.close()
            let who = version > Schema.currentVersion ? "a newer" : "an older"
            throw .store(StoreFailure(kind: .other, message: "the state store \(path) has schema version \(version), "
                + "written by \(who) Wharf; this one reads version \(Schema.currentVersion)"
                + (version < Schema.currentVersion ? " (start the server once to upgrade it)" : "")))
        }
        return AccessStoreReader(connection: connection, databasePath: path)
    }

    /// Every grant held by a running Wharf process and every bookmark, of every app, ordered by
    /// app and path. Bookmark tokens are left out: a person revokes by `id`, and a listing
    /// must not hand out keys.
    public func entries() throws(AccessError) -> [AccessEntry] {
        try AccessStore.translatingErrors(doing: "read the state store \(databasePath)") {
            var entries: [AccessEntry] = []
            var alive: [String: Bool] = [:]
            try connection.query("SELECT id, pid, process_start FROM instances") { row in
                alive[row.text(0)] = ProcessIdentity(pid: Int32(row.int(1)), startTime: UInt64(row.int(2))).isRunning
            }
            // Leases held by running processes, by grant and by the bookmark their grant came from.
            var leasesByGrant: [Int64: Int] = [:], leasesByBookmark: [Int64: Int] = [:]
            try connection.query("""
                SELECT g.id, g.bookmark_id, l.instance FROM leases l JOIN grants g ON l.grant_id = g.id
                """) { row in
                guard alive[row.text(2)] == true else { return }
                leasesByGrant[row.int(0), default: 0] += 1
                if let bookmark = row.optionalInt(1) { leasesByBookmark[bookmark, default: 0] += 1 }
            }
            try connection.query("""
                SELECT g.id, g.app, g.path, g.read_only, g.is_directory, g.created, 0, i.pid, g.client, g.instance
                FROM grants g JOIN instances i ON i.id = g.instance ORDER BY g.app, g.path, g.id
                """) { row in
                guard alive[row.text(9)] == true else { return }
                var entry = AccessStore.entry(kind: .grant, row, bookmark: nil, holder: "pid \(row.int(7)), client \(row.text(8))")
                entry.activeLeases = leasesByGrant[row.int(0)] ?? 0
                entries.append(entry)
            }
            try connection.query("""
                SELECT b.id, b.app, b.path, b.read_only, b.is_directory, b.created, 0
                FROM bookmarks b ORDER BY b.app, b.path, b.id
                """) { row in
                var entry = AccessStore.entry(kind: .bookmark, row, bookmark: nil, holder: nil)
                entry.activeLeases = leasesByBookmark[row.int(0)] ?? 0
                entries.append(entry)
            }
            return entries
        }
    }
}
