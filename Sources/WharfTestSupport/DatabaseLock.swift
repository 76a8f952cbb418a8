import Glibc
import WharfSystem

/// Another process holding an SQLite database's write lock, as `wharf access revoke` or a
/// second Wharf would: Python's `sqlite3` takes `BEGIN EXCLUSIVE`, runs `statements` inside that
/// transaction (uncommitted, so nobody else sees them yet), holds it for `seconds`, then
/// commits. The initializer returns once the lock is held; the process is killed when the
/// value goes away.
public final class DatabaseLock {
    public let holder: ChildProcess

    public init(_ database: FilePath, seconds: Double, running statements: [String] = []) throws {
        holder = try ChildProcess(path: "python3", arguments: ["-c", """
            import sqlite3, sys, time
            connection = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
            connection.execute("BEGIN EXCLUSIVE")
            for statement in sys.argv[3:]:
                connection.execute(statement)
            print("locked", flush=True)
            time.sleep(float(sys.argv[2]))
            connection.execute("COMMIT")
            """, database.description, String(seconds)] + statements, searchPath: true)
        guard holder.waitForLine(startingWith: "locked") != nil else {
            holder.kill()
            throw SystemError(code: EIO, operation: "lock the database from python3 (\(holder.readErrors()))", path: database)
        }
    }

    deinit { holder.kill() }
}
