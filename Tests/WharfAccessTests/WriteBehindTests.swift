import Glibc
import Testing
@testable import WharfAccess
import WharfSystem
import WharfTestSupport

/// Grants and leases are written behind, in batches: what goes while a batch is being written
/// leaves no row behind it.
struct WriteBehindTests {
    @Test func aSessionThatEndsWhileItsGrantIsBeingWrittenLeavesNoRow() throws {
        let state = ScratchDirectory("wharf-access-state")
        let files = TemporaryDirectory()
        let (store, _) = try AccessStore.open(stateDirectory: state.path)
        // The database exists and this process's instance row is in it.
        let opener = files.file("opener.txt")
        writeFile(opener, "opener")
        try grant(store, opener, client: "opener")
        store.flush()

        // Another process takes the write lock, so the next batch waits for it.
        let lock = try DatabaseLock(store.databasePath, seconds: 1)
        let notes = files.file("notes.txt")
        writeFile(notes, "notes")
        try grant(store, notes, client: "c1")
        usleep(300_000)  // The batch has taken the grant and waits for the lock.
        store.endSession(client: "c1")

        store.flush()  // The waiting batch, then what came after it.
        let paths = try store.allEntries().map(\.path)
        #expect(paths.contains(opener))
        #expect(!paths.contains(notes), "the ended session's grant was written after it ended and left: \(paths)")
        withExtendedLifetime(lock) {}
    }

    @Test func aLeaseWhoseGrantRowAnotherProcessDeletedIsStillWritten() throws {
        let state = ScratchDirectory("wharf-access-state")
        let files = TemporaryDirectory()
        let (store, _) = try AccessStore.open(stateDirectory: state.path)
        let problems = Locked<[String]>([])
        store.reportProblems { message in problems.withValue { $0.append(message) } }
        let notes = files.file("notes.txt")
        writeFile(notes, "notes")
        try grant(store, notes)
        store.flush()

        // Another process deletes the grant's row and holds the change uncommitted for a while:
        // the lease below is started against the grant this process still sees, and written
        // after the row is gone.
        let lock = try DatabaseLock(store.databasePath, seconds: 1, running: ["DELETE FROM grants"])
        let lease = try store.resolve(app: "editor", client: "c1", url: url(notes))

        store.flush()
        #expect(problems.withValue { $0 } == [], "the batch with the lease was refused (its grant's row is gone)")
        try store.release(client: "c1", accessId: lease.accessId)
        store.flush()
        #expect(problems.withValue { $0 } == [])
        withExtendedLifetime(lock) {}
    }
}
