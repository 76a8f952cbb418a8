import Glibc
import Testing
@testable import WharfAccess
import WharfSystem
import WharfTestSupport

/// The store on disk: where it lives, its permissions, its schema history, damage, and what
/// dead processes leave behind.
@Suite struct StateStoreTests {
    let state = WorkDirectory()
    let directory = WorkDirectory()

    @Test func theDirectoryIsCreated0700AndTheDatabase0600() throws {
        let nested = state.file("xdg/state/wharf")
        let (store, warnings) = try AccessStore.open(stateDirectory: nested)
        #expect(warnings.isEmpty)
        #expect(store.databasePath == nested + "/state.sqlite3")
        #expect(try FileStatus.of(nested).mode & 0o777 == 0o700)
        #expect(try FileStatus.of(state.file("xdg")).mode & 0o777 == 0o700)
        #expect(try FileStatus.of(store.databasePath).mode & 0o777 == 0o600)
        // Writes happen in WAL mode; the companion files take the database's mode.
        store.rememberDirectory(app: "a", customizationId: "c", directory: "/tmp")
        #expect(try FileStatus.of(store.databasePath + "-wal").mode & 0o777 == 0o600)
    }

    @Test func aStateDirectoryOpenToOthersIsReported() throws {
        setMode(state.path, 0o755)
        let (_, warnings) = try AccessStore.open(stateDirectory: state.path)
        #expect(warnings.count == 1 && warnings[0].contains("accessible to other users"))
    }

    @Test func theDefaultLocationFollowsXDGStateHome() {
        // Only this test touches the environment; nothing else opens the default location.
        let saved = getenv("XDG_STATE_HOME").map { String(cString: $0) }
        defer { if let saved { setenv("XDG_STATE_HOME", saved, 1) } else { unsetenv("XDG_STATE_HOME") } }
        setenv("XDG_STATE_HOME", "/somewhere/state", 1)
        #expect(StateLocation.directory(explicit: nil) == "/somewhere/state/wharf")
        setenv("XDG_STATE_HOME", "relative/is/ignored", 1)
        #expect(StateLocation.directory(explicit: nil) == FilePath.home().appending(".local/state/wharf"))
        #expect(StateLocation.directory(explicit: "/explicit/dir/") == "/explicit/dir")
        #expect(StateLocation.directory(explicit: ":memory:") == nil)
    }

    @Test func anInMemoryStoreLeavesNothingBehind() throws {
        let (store, _) = try AccessStore.open(stateDirectory: ":memory:")
        store.rememberDirectory(app: "a", customizationId: "c", directory: "/tmp")
        #expect(try store.rememberedDirectory(app: "a", customizationId: "c") == "/tmp")
        let (other, _) = try AccessStore.open(stateDirectory: ":memory:")
        #expect(try other.rememberedDirectory(app: "a", customizationId: "c") == nil)
    }

    /// App names compare as bytes while a remembered folder waits to be written, as they do in
    /// the store: `café` precomposed and with a combining accent are two apps, each with its own
    /// folder. (The waiting folders were keyed by Swift strings, whose `==` and hashing follow
    /// canonical equivalence: the second app's folder replaced the first's, was answered to the
    /// first, and written under its name.)
    @Test func appNamesThatReadAlikeKeepTheirOwnRememberedFolders() throws {
        let (store, _) = try AccessStore.open(stateDirectory: state.path)
        let (composed, decomposed) = ("caf\u{E9}", "cafe\u{301}")
        store.rememberDirectory(app: composed, customizationId: "open", directory: "/first")
        store.rememberDirectory(app: decomposed, customizationId: "open", directory: "/second")
        #expect(try store.rememberedDirectory(app: composed, customizationId: "open") == "/first")
        #expect(try store.rememberedDirectory(app: decomposed, customizationId: "open") == "/second")
        store.flush()
        #expect(try store.rememberedDirectory(app: composed, customizationId: "open") == "/first")
        #expect(try store.rememberedDirectory(app: decomposed, customizationId: "open") == "/second")
    }

    @Test func aCorruptedDatabaseIsMovedAsideAndAFreshStoreWorks() throws {
        let path = state.file("state.sqlite3")
        writeFile(path, String(repeating: "this is not a database, just garbage bytes. ", count: 200))
        writeFile(path + "-wal", "stale write-ahead log")

        let (store, warnings) = try AccessStore.open(stateDirectory: state.path)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("moved aside") == true)
        let names = try DirectoryEntries.names(in: state.path).map { String(decoding: $0, as: UTF8.self) }
        let moved = names.filter { $0.hasPrefix("state.sqlite3.corrupt-") }
        #expect(moved.count == 1, "\(names)")
        let aside = state.file(moved[0])
        // The stale log was not replayed into the fresh store (SQLite drops it when the damaged
        // file is closed; Wharf moves it aside if it is still there).
        #expect(readText(path + "-wal")?.hasPrefix("stale") != true)
        #expect(readText(aside)?.hasPrefix("this is not a database") == true)
        #expect(warnings.first?.contains(aside.description) == true)

        let file = directory.file("a.txt")
        writeFile(file, "a")
        try grant(store, file)
        let bookmark = try store.createBookmark(app: "editor", client: "c1", url: url(file))
        store.close()
        let (reopened, again) = try AccessStore.open(stateDirectory: state.path)
        #expect(again.isEmpty)
        _ = try reopened.resolve(app: "editor", client: "c1", bookmark: bookmark)
    }

    @Test func aDatabaseDamagedInsideIsMovedAsideToo() throws {
        let (store, _) = try AccessStore.open(stateDirectory: state.path)
        for index in 0..<200 {
            store.rememberDirectory(app: "a", customizationId: "c\(index)",
                                        directory: FilePath("/" + String(repeating: "d", count: 200))!)
        }
        store.close()
        // Keep the header, scribble over the pages after it.
        let path = state.file("state.sqlite3")
        let garbage = [UInt8](repeating: 0xA5, count: 16 * 1024)
        try FileDescriptor.open(path, O_WRONLY).write(garbage, at: 4096)

        let (fresh, warnings) = try AccessStore.open(stateDirectory: state.path)
        #expect(warnings.count == 1 && warnings[0].contains("moved aside"))
        #expect(try fresh.rememberedDirectory(app: "a", customizationId: "c1") == nil)
    }

    @Test func aVersion1StoreIsMigratedAndItsBookmarksStillResolve() throws {
        let file = directory.file("old.txt")
        writeFile(file, "from an older Wharf")
        let old = identity(file)
        let token = try RandomTokens.bookmark()
        do {
            let db = try SQLiteConnection(path: state.file("state.sqlite3"))
            try db.execute(Schema.version1)
            try db.run("INSERT INTO bookmarks (token, app, path, device, inode, created) VALUES (?, ?, ?, ?, ?, ?)",
                       [.text(token), .text("editor"), .text(file.description), .unsigned(old.device), .unsigned(old.inode), .real(1)])
            try db.run("INSERT INTO remembered_directories VALUES (?, ?, ?)",
                       [.text("editor"), .text("templates"), .text("/srv/templates")])
            try db.execute("PRAGMA user_version = 1")
            db.close()
        }

        let (store, warnings) = try AccessStore.open(stateDirectory: state.path)
        #expect(warnings.isEmpty)
        let version = try store.read { db in try db.first("PRAGMA user_version") { $0.int(0) } }
        #expect(version == Int64(Schema.currentVersion))
        #expect(try store.rememberedDirectory(app: "editor", customizationId: "templates") == "/srv/templates")
        // A version-1 row has no file system id: identity falls back to the device number.
        let lease = try store.resolve(app: "editor", client: "c1", bookmark: token)
        #expect(!lease.isStale && lease.readOnly)
        #expect(try store.read(client: "c1", accessId: lease.accessId).bytes == Array("from an older Wharf".utf8))
    }

    @Test func aStoreFromANewerWharfIsRefusedAndLeftAlone() throws {
        do {
            let db = try SQLiteConnection(path: state.file("state.sqlite3"))
            try db.execute("CREATE TABLE future (x); PRAGMA user_version = 99")
            db.close()
        }
        let error = accessError { () throws(AccessError) in try AccessStore.open(stateDirectory: state.path) }
        guard case .store(let failure)? = error else {
            Issue.record("expected a store error, got \(String(describing: error))")
            return
        }
        #expect(failure.message.contains("newer Wharf"))
        let db = try SQLiteConnection(path: state.file("state.sqlite3"))
        #expect(try db.first("PRAGMA user_version") { $0.int(0) } == 99)
    }

    @Test func grantsOfAProcessThatDiedAreClearedByTheNextOne() throws {
        let file = directory.file("a.txt")
        writeFile(file, "a")
        let (store, _) = try AccessStore.open(stateDirectory: state.path)
        try grant(store, file)
        _ = try store.resolve(app: "editor", client: "c1", url: url(file))
        store.flush()
        // Pretend the process that holds this instance died: a pid that is not running.
        try store.write { db in
            try db.run("UPDATE instances SET pid = ?, process_start = 1 WHERE id = ?", [.integer(999_999_999), .text(store.instance)])
        }

        let (next, _) = try AccessStore.open(stateDirectory: state.path)
        #expect(try next.allEntries().filter { $0.kind == .grant }.isEmpty)
        let leases = try next.read { db in try db.first("SELECT count(*) FROM leases") { $0.int(0) } }
        #expect(leases == 0)
    }

    @Test func grantsMadeBeforeTheDatabaseOpensAreWrittenAndKept() throws {
        let file = directory.file("a.txt")
        writeFile(file, "a")
        // A server's store: the database opens when first needed (here, by the batch the grant
        // is written in); grants come at once.
        let (store, _) = try AccessStore.open(stateDirectory: state.path, opening: .whenNeeded)
        try grant(store, file)
        store.flush()
        _ = try store.resolve(app: "editor", client: "c1", url: url(file))
        let (watcher, _) = try AccessStore.open(stateDirectory: state.path)
        #expect(try watcher.allEntries().map(\.kind) == [.grant], "the grant reached the store, under this process's instance")
        store.close()
    }

    @Test func aDatabaseThatCannotOpenWhenNeededFailsItsStatementsAndIsReported() throws {
        let (first, _) = try AccessStore.open(stateDirectory: state.path)
        try first.write { db in try db.run("PRAGMA user_version = 999") }
        first.close()
        let (store, warnings) = try AccessStore.open(stateDirectory: state.path, opening: .whenNeeded)
        #expect(warnings.isEmpty)
        let reported = Locked<[String]>([])
        store.reportProblems { message in reported.withValue { $0.append(message) } }
        let error = accessError { () throws(AccessError) in try store.list(app: "editor", client: "c1") }
        guard case .store(let failure)? = error else {
            Issue.record("expected a store failure, got \(String(describing: error))")
            return
        }
        #expect(failure.message.contains("newer Wharf"))
        let deadline = Deadline(secondsFromNow: 5)
        while reported.withValue({ $0.isEmpty }) && !deadline.hasPassed { ProcessControl.sleep(milliseconds: 5) }
        #expect(reported.withValue { $0.first?.contains("newer Wharf") } == true, "the failure is logged")
    }

    @Test func closingTheStoreEndsItsSessionsGrantsButKeepsBookmarks() throws {
        let file = directory.file("a.txt")
        writeFile(file, "a")
        let (store, _) = try AccessStore.open(stateDirectory: state.path)
        let (watcher, _) = try AccessStore.open(stateDirectory: state.path)
        try grant(store, file)
        _ = try store.createBookmark(app: "editor", client: "c1", url: url(file))
        // Grants reach the store within milliseconds (written behind); flush says when.
        store.flush()
        #expect(try watcher.allEntries().map(\.kind) == [.grant, .bookmark])
        store.close()
        #expect(try watcher.allEntries().map(\.kind) == [.bookmark])
        let error = accessError { () throws(AccessError) in try store.list(app: "editor", client: "c1") }
        #expect(error == .store(StoreFailure(kind: .closed, message: "the state store is closed")))
    }
}

/// `wharf access list` and `wharf access revoke ID`.
@Suite struct AdministrationTests {
    let state = WorkDirectory()
    let directory = WorkDirectory()

    @Test func everyAppsGrantsAndBookmarksAreListedAndRevocableById() throws {
        let file = directory.file("a.txt")
        writeFile(file, "a")
        let (editor, _) = try AccessStore.open(stateDirectory: state.path)
        let (admin, _) = try AccessStore.open(stateDirectory: state.path)
        try grant(editor, file, app: "editor", client: "c1")
        try grant(editor, file, app: "viewer", client: "c2")
        let bookmark = try editor.createBookmark(app: "editor", client: "c1", url: url(file))
        let lease = try editor.resolve(app: "editor", client: "c1", url: url(file))
        // Another process sees the editor's grants once they are written behind (milliseconds).
        editor.flush()

        let entries = try admin.allEntries()
        #expect(entries.map(\.app) == ["editor", "viewer", "editor"])
        #expect(entries.map(\.kind) == [.grant, .grant, .bookmark])
        #expect(entries[0].activeLeases == 1 && entries[0].holder == "pid \(getpid()), client c1")
        #expect(entries.allSatisfy { $0.bookmark == nil }, "a listing for people must not hand out bookmark keys")

        // Revoked from another process: the editor's next read is refused.
        try admin.revoke(id: entries[0].id)
        let error = accessError { () throws(AccessError) in try editor.read(client: "c1", accessId: lease.accessId) }
        #expect(error == .accessDenied("this access was revoked"))
        try admin.revoke(id: entries[2].id)
        let bookmarkError = accessError { () throws(AccessError) in try editor.resolve(app: "editor", client: "c1", bookmark: bookmark) }
        #expect(bookmarkError.map { if case .bookmarkInvalid = $0 { true } else { false } } == true)
        #expect(try admin.allEntries().map(\.app) == ["viewer"])

        for bad in [entries[0].id, "x1", "g", "b-3"] {
            let error = accessError { () throws(AccessError) in try admin.revoke(id: bad) }
            guard case .invalidArgument? = error else {
                Issue.record("\(bad): expected invalidArgument, got \(String(describing: error))")
                continue
            }
        }
    }
}

/// The dialog engine's memory: remembered folders per customization, and written folders.
@Suite struct DialogMemoryTests {
    let state = WorkDirectory()

    @Test func rememberedFoldersAreKeptPerAppAndCustomizationAcrossRestarts() throws {
        let (store, _) = try AccessStore.open(stateDirectory: state.path)
        let memory: any DialogMemory = store
        memory.rememberDirectory(app: "editor", customizationId: "templates", directory: "/srv/t1")
        memory.rememberDirectory(app: "editor", customizationId: "templates", directory: "/srv/t2")
        memory.rememberDirectory(app: "viewer", customizationId: "templates", directory: "/srv/v")
        store.close()

        let (reopened, _) = try AccessStore.open(stateDirectory: state.path)
        #expect(try reopened.rememberedDirectory(app: "editor", customizationId: "templates") == "/srv/t2")
        #expect(try reopened.rememberedDirectory(app: "viewer", customizationId: "templates") == "/srv/v")
        #expect(try reopened.rememberedDirectory(app: "editor", customizationId: "exports") == nil)
    }

    @Test func writtenFoldersAreRecordedOnceAndForgottenWhenCleaned() throws {
        let (store, _) = try AccessStore.open(stateDirectory: state.path)
        try store.recordWrittenDirectory("/home/u/out")
        try store.recordWrittenDirectory("/home/u/docs")
        try store.recordWrittenDirectory("/home/u/out")
        store.close()

        let (reopened, _) = try AccessStore.open(stateDirectory: state.path)
        #expect(Set(try reopened.writtenDirectories()) == ["/home/u/out", "/home/u/docs"])
        try reopened.forgetWrittenDirectory("/home/u/out")
        #expect(try reopened.writtenDirectories() == ["/home/u/docs"])
    }
}
