import Glibc
import Testing
@testable import WharfAccess
import WharfSystem
import WharfTestSupport

/// Grants and leases are written behind, in batches: what goes while a batch is being written
/// leaves no row behind it.
struct WriteBehindTests {
    /// Closing (the process exiting) waits for another process's lock on the database about
    /// a second, not the 30 s busy timeout for each write still to make (`exit` took a minute),
    /// and leaves what it could not write to the next process's sweep, as a crash would: its
    /// in-use marker stays. Without the lock, closing removes the marker.
    @Test func closingWaitsBrieflyForALockedDatabaseAndLeavesTheRestToTheNextSweep() throws {
        let written = try GrantWritten("notes.txt")
        let (state, store, notes) = (written.state, written.store, written.file)
        let lock = try DatabaseLock(store.databasePath, seconds: 20)
        store.endSession(client: "c1")  // a deletion to write, behind the lock
        let start = monotonicNanoseconds()
        store.close()
        let seconds = Double(monotonicNanoseconds() - start) / 1e9
        #expect(seconds < 8, "closing waited \(seconds) s for the lock")
        #expect(InUseMarker.crashLeftovers(in: state.path), "what could not be written is left for the next sweep")
        withExtendedLifetime(lock) {}

        let clean = ScratchDirectory("wharf-access-state")
        let (other, _) = try AccessStore.open(stateDirectory: clean.path)
        try grant(other, notes)
        other.flush()
        other.close()
        #expect(!InUseMarker.crashLeftovers(in: clean.path))
    }

    @Test func aSessionThatEndsWhileItsGrantIsBeingWrittenLeavesNoRow() throws {
        // The database exists and this process's instance row is in it.
        let written = try GrantWritten("opener.txt", client: "opener")
        let (files, store, opener) = (written.files, written.store, written.file)

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
        let written = try GrantWritten("notes.txt")
        let (store, notes) = (written.store, written.file)
        let problems = Locked<[String]>([])
        store.reportProblems { message in problems.withValue { $0.append(message) } }

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

/// A store in a state directory of its own, with one file granted and written to the database.
private struct GrantWritten {
    let state = ScratchDirectory("wharf-access-state")
    let files = WorkDirectory()
    let store: AccessStore
    let file: FilePath

    init(_ name: String, client: ClientID = "c1") throws {
        store = try AccessStore.open(stateDirectory: state.path).0
        file = files.file(name)
        writeFile(file, name)
        try grant(store, file, client: client)
        store.flush()
    }
}
