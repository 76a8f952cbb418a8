import Glibc
import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfFileWriting

/// Moving within one file system: a rename (the same inode, no time for the size), names
/// chosen as the resolution says, and all or nothing.
struct MoverTests {
    /// A source folder and a destination folder on the same file system.
    struct Folders {
        let scratch = ScratchDirectory("wharf-mv")
        var from: FilePath { scratch.path("from") }
        var to: FilePath { scratch.path("to") }
        init() {
            scratch.makeDirectory("from")
            scratch.makeDirectory("to")
        }
        func items(_ names: String...) -> [MoveItem] { names.map { MoveItem(source: from.appending($0)) } }
    }

    @Test func movesAFileByRenamingItKeepingItsInode() throws {
        let folders = Folders()
        let source = folders.scratch.write("from/a.txt", "alpha")
        let inode = try FileStatus.ofLink(source).inode
        let granted = MoveItem(source: source, expected: try FileIdentity.of(source, followSymlinks: false))
        let moved = try FileMover.move([granted], into: folders.to, resolution: .fail, progress: nil, cancellation: nil)
        #expect(moved == [folders.to.appending("a.txt")])
        #expect(try FileStatus.ofLink(moved[0]).inode == inode)
        #expect(readText(moved[0]) == "alpha")
        #expect(!exists(source))
        #expect(folders.scratch.names(in: folders.from).isEmpty)
    }

    @Test func movesAFolderWithEverythingInIt() throws {
        let folders = Folders()
        folders.scratch.write("from/docs/one.txt", "one")
        folders.scratch.write("from/docs/deep/two.txt", "two")
        let moved = try FileMover.move(folders.items("docs"), into: folders.to, resolution: .fail, progress: nil, cancellation: nil)
        #expect(moved == [folders.to.appending("docs")])
        #expect(readText(folders.to.appending("docs/one.txt")) == "one")
        #expect(readText(folders.to.appending("docs/deep/two.txt")) == "two")
        #expect(!exists(folders.from.appending("docs")))
    }

    @Test func returnsTheNewPathsInTheOrderGivenWithTheNamesAskedFor() throws {
        let folders = Folders()
        folders.scratch.write("from/b.txt", "b")
        folders.scratch.write("from/a.txt", "a")
        let items = [MoveItem(source: folders.from.appending("b.txt"), name: Array("bee.txt".utf8)),
                     MoveItem(source: folders.from.appending("a.txt"))]
        let moved = try FileMover.move(items, into: folders.to, resolution: .fail, progress: nil, cancellation: nil)
        #expect(moved == [folders.to.appending("bee.txt"), folders.to.appending("a.txt")])
        #expect(readText(moved[0]) == "b")
    }

    @Test func aTakenNameFailsNamingTheFileAndMovesNothing() {
        let folders = Folders()
        folders.scratch.write("from/a.txt", "new a")
        folders.scratch.write("from/b.txt", "new b")
        folders.scratch.write("to/b.txt", "old b")
        #expect(throws: MoveError.nameConflict(folders.to.appending("b.txt"))) {
            try FileMover.move(folders.items("a.txt", "b.txt"), into: folders.to, resolution: .fail, progress: nil, cancellation: nil)
        }
        #expect(readText(folders.from.appending("a.txt")) == "new a")
        #expect(readText(folders.to.appending("b.txt")) == "old b")
        #expect(folders.scratch.names(in: folders.to) == ["b.txt"])
    }

    @Test func aNameTakenAfterTheCheckStillFailsWithoutReplacing() {
        // Another program takes the name between the examination and the rename: the rename
        // itself refuses (RENAME_NOREPLACE), and the first item goes back.
        let folders = Folders()
        folders.scratch.write("from/a.txt", "new a")
        folders.scratch.write("from/b.txt", "new b")
        let late = folders.to.appending("b.txt")
        #expect(throws: MoveError.nameConflict(late)) {
            try FileMover.move(folders.items("a.txt", "b.txt"), into: folders.to, resolution: .fail, progress: nil, cancellation: nil,
                               observer: { step in if step == .prepared { writeFile(late, "someone else's") } })
        }
        #expect(readText(late) == "someone else's")
        #expect(readText(folders.from.appending("a.txt")) == "new a")
        #expect(readText(folders.from.appending("b.txt")) == "new b")
        #expect(folders.scratch.names(in: folders.to) == ["b.txt"])
    }

    @Test func keepBothTakesFreeNames() throws {
        let folders = Folders()
        folders.scratch.write("from/a.txt", "new a")
        folders.scratch.write("from/.profile", "new profile")
        folders.scratch.write("to/a.txt", "old a")
        folders.scratch.write("to/a 2.txt", "old a 2")
        folders.scratch.write("to/.profile", "old profile")
        let moved = try FileMover.move(folders.items("a.txt", ".profile"), into: folders.to, resolution: .keepBoth, progress: nil, cancellation: nil)
        #expect(moved == [folders.to.appending("a 3.txt"), folders.to.appending(".profile 2")])
        #expect(readText(moved[0]) == "new a")
        #expect(readText(folders.to.appending("a.txt")) == "old a")
        #expect(readText(folders.to.appending("a 2.txt")) == "old a 2")
    }

    @Test func keepBothTakesAnotherFreeNameWhenTheNameIsTakenAfterTheCheck() throws {
        let folders = Folders()
        folders.scratch.write("from/a.txt", "new a")
        folders.scratch.write("to/a.txt", "taken before")
        folders.scratch.write("to/a 2.txt", "taken before")
        let late = folders.to.appending("a 3.txt")
        let moved = try FileMover.move(folders.items("a.txt"), into: folders.to, resolution: .keepBoth, progress: nil, cancellation: nil,
                                       observer: { step in if step == .prepared { writeFile(late, "someone else's") } })
        // The number counts on from the name asked for, not from the one taken.
        #expect(moved == [folders.to.appending("a 4.txt")])
        #expect(readText(moved[0]) == "new a")
        #expect(readText(late) == "someone else's")
    }

    @Test func anOrdinaryUserWithoutWriteAccessToTheFolderIsToldWhyAndNothingMoves() throws {
        // Run as nobody (root ignores permission bits): the source folder is nobody's, the
        // destination root's.
        let folders = Folders()
        setMode(folders.scratch.path, 0o755)
        setMode(folders.to, 0o755)
        let source = folders.scratch.write("from/a.txt", "a")
        #expect(folders.from.withCString { chown($0, 65534, 65534) } == 0)
        #expect(source.withCString { chown($0, 65534, 65534) } == 0)
        let result = run("/usr/bin/setpriv", [
            "--reuid=65534", "--regid=65534", "--clear-groups", MoverKillTests.probe, "--into", folders.to.description, source.description,
        ])
        #expect(result.status == 1)
        #expect(result.output == "could not move \(source): rename \(source): Permission denied\n")
        #expect(readText(source) == "a")
        #expect(folders.scratch.names(in: folders.to).isEmpty)
    }

    @Test func twoItemsAskingForOneNameConflictOrGetFreeNames() throws {
        let folders = Folders()
        folders.scratch.write("from/x/a.txt", "first")
        folders.scratch.write("from/y/a.txt", "second")
        let items = folders.items("x/a.txt", "y/a.txt")
        #expect(try FileMover.conflicts(items, in: folders.to) == [Array("a.txt".utf8)])
        #expect(throws: MoveError.nameConflict(folders.to.appending("a.txt"))) {
            try FileMover.move(items, into: folders.to, resolution: .replace, progress: nil, cancellation: nil)
        }
        #expect(folders.scratch.names(in: folders.to).isEmpty)
        let moved = try FileMover.move(items, into: folders.to, resolution: .keepBoth, progress: nil, cancellation: nil)
        #expect(moved == [folders.to.appending("a.txt"), folders.to.appending("a 2.txt")])
        #expect(readText(moved[1]) == "second")
    }

    @Test func replaceReplacesAndLeavesNothingBehind() throws {
        let folders = Folders()
        folders.scratch.write("from/a.txt", "new a")
        folders.scratch.write("from/docs/in.txt", "new folder")
        folders.scratch.write("to/a.txt", "old a")
        folders.scratch.write("to/docs/old.txt", "old folder")
        let moved = try FileMover.move(folders.items("a.txt", "docs"), into: folders.to, resolution: .replace, progress: nil, cancellation: nil)
        #expect(readText(moved[0]) == "new a")
        #expect(folders.scratch.names(in: moved[1]) == ["in.txt"])
        #expect(folders.scratch.names(in: folders.to) == ["a.txt", "docs"])
        #expect(folders.scratch.names(in: folders.from).isEmpty)
    }

    @Test func aFailingLaterItemPutsBackEarlierOnesAndWhatTheyReplaced() throws {
        // The second item's folder is read-only (EROFS even for root): its rename fails after
        // the first item was moved, replacing a file.
        let folders = Folders()
        folders.scratch.write("from/a.txt", "new a")
        folders.scratch.write("to/a.txt", "old a")
        let locked = folders.scratch.makeDirectory("locked")
        folders.scratch.write("locked/b.txt", "b")
        try folders.scratch.makeReadOnly(locked)
        let items = folders.items("a.txt") + [MoveItem(source: locked.appending("b.txt"))]
        let error = #expect(throws: MoveError.self) {
            try FileMover.move(items, into: folders.to, resolution: .replace, progress: nil, cancellation: nil)
        }
        #expect(error == .failed(locked.appending("b.txt"), "rename \(locked.appending("b.txt")): Read-only file system"))
        #expect(readText(folders.from.appending("a.txt")) == "new a")
        #expect(readText(folders.to.appending("a.txt")) == "old a")
        #expect(folders.scratch.names(in: folders.to) == ["a.txt"])
        #expect(readText(locked.appending("b.txt")) == "b")
    }

    @Test func aSourceThatIsNoLongerTheGrantedFileFailsAndNothingMoves() throws {
        let folders = Folders()
        let a = folders.scratch.write("from/a.txt", "a")
        let b = folders.scratch.write("from/b.txt", "b granted")
        let granted = try FileIdentity.of(b, followSymlinks: false)
        atomicSave(b, "another file now")
        let items = [MoveItem(source: a, expected: try FileIdentity.of(a, followSymlinks: false)), MoveItem(source: b, expected: granted)]
        #expect(throws: MoveError.sourceChanged(b)) {
            try FileMover.move(items, into: folders.to, resolution: .fail, progress: nil, cancellation: nil)
        }
        #expect(exists(a) && exists(b))
        #expect(folders.scratch.names(in: folders.to).isEmpty)
    }

    @Test func aSourceSwappedJustBeforeItsRenameGoesBackAndFailsTheMove() throws {
        let folders = Folders()
        let a = folders.scratch.write("from/a.txt", "a")
        let b = folders.scratch.write("from/b.txt", "b as examined")
        #expect(throws: MoveError.sourceChanged(b)) {
            try FileMover.move(folders.items("a.txt", "b.txt"), into: folders.to, resolution: .fail, progress: nil, cancellation: nil,
                               observer: { step in if step == .prepared { atomicSave(b, "swapped in") } })
        }
        #expect(readText(a) == "a")
        #expect(readText(b) == "swapped in")
        #expect(folders.scratch.names(in: folders.to).isEmpty)
    }

    @Test func aVanishedSourceFailsNamingIt() {
        let folders = Folders()
        let gone = folders.from.appending("gone.txt")
        #expect(throws: MoveError.failed(gone, "move \(gone): No such file or directory")) {
            try FileMover.move([MoveItem(source: gone)], into: folders.to, resolution: .fail, progress: nil, cancellation: nil)
        }
    }

    @Test func cancelledBeforeTheRenamesMovesNothing() {
        let folders = Folders()
        folders.scratch.write("from/a.txt", "a")
        let cancellation = ExportCancellation()
        cancellation.cancel()
        #expect(throws: MoveError.cancelled) {
            try FileMover.move(folders.items("a.txt"), into: folders.to, resolution: .fail, progress: nil, cancellation: cancellation)
        }
        #expect(exists(folders.from.appending("a.txt")))
    }

    @Test func cancelledMidwayPutsBackWhatWasMoved() {
        let folders = Folders()
        folders.scratch.write("from/a.txt", "a")
        folders.scratch.write("from/b.txt", "b")
        let cancellation = ExportCancellation()
        #expect(throws: MoveError.cancelled) {
            try FileMover.move(folders.items("a.txt", "b.txt"), into: folders.to, resolution: .fail, progress: nil, cancellation: cancellation,
                               observer: { step in if case .placed = step { cancellation.cancel() } })
        }
        #expect(folders.scratch.names(in: folders.from) == ["a.txt", "b.txt"])
        #expect(folders.scratch.names(in: folders.to).isEmpty)
    }

    @Test func aFolderCannotMoveIntoItself() {
        let folders = Folders()
        let inner = folders.scratch.makeDirectory("from/docs/inner")
        let docs = folders.from.appending("docs")
        #expect(throws: MoveError.self) {
            try FileMover.move([MoveItem(source: docs)], into: inner, resolution: .fail, progress: nil, cancellation: nil)
        }
        #expect(exists(inner))
    }

    @Test func anItemAlreadyInTheFolderUnderItsNameStaysAsItIs() throws {
        let folders = Folders()
        let a = folders.scratch.write("to/a.txt", "a")
        #expect(try FileMover.conflicts([MoveItem(source: a)], in: folders.to).isEmpty)
        #expect(try FileMover.move([MoveItem(source: a)], into: folders.to, resolution: .fail, progress: nil, cancellation: nil) == [a])
        #expect(readText(a) == "a")
    }

    @Test func badNamesAreRefused() {
        let folders = Folders()
        let a = folders.scratch.write("from/a.txt", "a")
        for name in ["", ".", "..", "x/y", ".wharf-tmp-1-0123456789abcdef"] {
            #expect(throws: MoveError.self) {
                try FileMover.move([MoveItem(source: a, name: Array(name.utf8))], into: folders.to, resolution: .fail, progress: nil, cancellation: nil)
            }
        }
        #expect(exists(a))
    }

    @Test func freeNamesCountUpBeforeTheExtension() throws {
        let folders = Folders()
        folders.scratch.write("to/notes.txt", "")
        folders.scratch.write("to/notes 2.txt", "")
        folders.scratch.write("to/archive.tar.gz", "")
        #expect(try FileMover.freeName(for: Array("notes.txt".utf8), in: folders.to) == Array("notes 3.txt".utf8))
        #expect(try FileMover.freeName(for: Array("archive.tar.gz".utf8), in: folders.to) == Array("archive.tar 2.gz".utf8))
        #expect(try FileMover.freeName(for: Array("README".utf8), in: folders.to) == Array("README 2".utf8))
        #expect(try FileMover.freeName(for: Array(".profile".utf8), in: folders.to) == Array(".profile 2".utf8))
    }
}
