// wharf-sqlite-lock DATABASE SECONDS [STATEMENT...]: holds an SQLite database's write lock from
// a process of its own, as `wharf access revoke` or a second Wharf would (SQLite's locks are
// POSIX record locks, which a process never conflicts with itself on: another process is the
// only way to test waiting for one). `BEGIN EXCLUSIVE`, then each STATEMENT inside that
// transaction (uncommitted, so nobody else sees it yet), prints `locked`, holds it for SECONDS,
// commits and exits 0. Any failure is printed to standard error, with status 1.
import CSQLite
import Glibc
import WharfTestSupport

func fail(_ message: String) -> Never {
    say("wharf-sqlite-lock: \(message)", to: 2)
    exit(1)
}

func hold(_ arguments: [String]) {
    guard arguments.count >= 3, let seconds = Double(arguments[2]) else {
        fail("usage: wharf-sqlite-lock DATABASE SECONDS [STATEMENT...]")
    }
    var opened: OpaquePointer?
    guard sqlite3_open_v2(arguments[1], &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK,
          let database = opened else {
        fail("cannot open \(arguments[1]): \(String(cString: sqlite3_errmsg(opened)))")
    }
    sqlite3_busy_timeout(database, 30_000)
    func execute(_ sql: String) {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(database, sql, nil, nil, &message) == SQLITE_OK else {
            fail("\(sql): \(message.map { String(cString: $0) } ?? "failed")")
        }
    }
    execute("BEGIN EXCLUSIVE")
    for statement in arguments.dropFirst(3) { execute(statement) }
    say("locked", to: 1)
    var pause = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1_000_000_000))
    var left = timespec()
    while nanosleep(&pause, &left) != 0 && errno == EINTR { pause = left }
    execute("COMMIT")
    sqlite3_close(database)
}

hold(CommandLine.arguments)
