import Glibc
import Testing
@testable import WharfAccess
import WharfSystem
import WharfTestSupport

/// When the database opens (a server's store only when a statement needs it), and the
/// `running/` markers that tell the next Wharf a process ended without closing the store.
@Suite struct OpeningTests {
    let state = WorkDirectory()

    var markers: [String] {
        ((try? DirectoryEntries.names(in: state.file("running"))) ?? []).map { String(decoding: $0, as: UTF8.self) }.sorted()
    }

    @Test func aStoreOpenedWhenNeededTouchesNoDatabaseUntilAStatementNeedsIt() throws {
        let (store, warnings) = try AccessStore.open(stateDirectory: state.path, opening: .whenNeeded)
        #expect(warnings.isEmpty)
        #expect(!exists(state.file("state.sqlite3")) && markers.isEmpty)
        #expect(try store.rememberedDirectory(app: "editor", customizationId: "c") == nil)
        #expect(exists(state.file("state.sqlite3")))
        #expect(markers.count == 1, "the open store is marked in use: \(markers)")
        store.close()
    }

    @Test func closingAStoreThatNeverOpenedCreatesNothingAndRefusesLaterStatements() throws {
        let (store, _) = try AccessStore.open(stateDirectory: state.path, opening: .whenNeeded)
        store.close()
        #expect(!exists(state.file("state.sqlite3")) && markers.isEmpty)
        let error = accessError { () throws(AccessError) in try store.rememberedDirectory(app: "editor", customizationId: "c") }
        #expect(error == .store(.closed))
        #expect(!exists(state.file("state.sqlite3")))
    }

    @Test func anOpenStoresMarkerIsHeldSoOthersSeeNoCrashAndGoesWhenItCloses() throws {
        let (store, _) = try AccessStore.open(stateDirectory: state.path)
        #expect(markers == [store.instance])
        let (other, _) = try AccessStore.open(stateDirectory: state.path, opening: .whenNeeded)
        #expect(!other.crashLeftovers, "a running process's marker is locked")
        other.forgetCrashLeftovers()
        #expect(markers == [store.instance], "and is never taken for a dead one")
        store.close()
        #expect(markers.isEmpty, "closing the store removes its marker")
        #expect(!other.crashLeftovers)
    }

    @Test func aMarkerNobodyHoldsIsACrashAndIsForgottenOnceSwept() throws {
        let (live, _) = try AccessStore.open(stateDirectory: state.path)
        // A process that died with the store open leaves its marker unlocked (the kernel drops
        // the lock with the process); a dot name is a marker still being made, never judged.
        writeFile(state.file("running/dead-instance"), "")
        writeFile(state.file("running/.being-made"), "")
        let (next, _) = try AccessStore.open(stateDirectory: state.path, opening: .whenNeeded)
        #expect(next.crashLeftovers)
        next.forgetCrashLeftovers()
        #expect(!next.crashLeftovers)
        #expect(markers == [".being-made", live.instance].sorted())
        live.close()
        next.close()
    }
}
