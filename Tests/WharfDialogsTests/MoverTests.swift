import Glibc
import Testing
import WharfFileWriting
import WharfSystem
import WharfTestSupport
@testable import WharfDialogs

/// The mover (`fileMover`): what the presenter is shown, the folder the human chooses, the move
/// on the client's queue of writes, cancelling it, names already taken, and its one ending.
@Suite struct MoverTests {
    /// A file as the server hands it to the engine: found granted, with its identity.
    func granted(_ path: FilePath, readOnly: Bool = true) throws -> MoverFile {
        let status = try FileStatus.ofLink(path)
        return MoverFile(path: path, identity: try FileIdentity.of(path, followSymlinks: false), birth: nil,
                         isDirectory: status.kind == .directory, isSymlink: status.kind == .symlink, readOnly: readOnly)
    }

    func mover(_ h: Harness, _ files: [MoverFile], presenter: (any DialogPresenter)? = nil,
               options: DialogOptions? = nil) throws(DialogError) -> DialogID {
        try h.engine.present(client: h.client, app: "test-app",
                             request: MoverRequest(files: files, options: options ?? DialogOptions(defaultDirectory: h.dir.path)),
                             presenter: presenter ?? h.presenter, types: h.types)
    }

    func endings(_ events: [DialogEvent]) -> Int { events.filter(\.isEnding).count }

    @Test func thePresenterIsShownTheFilesInOrderAndAFolderPicker() throws {
        let h = Harness()
        let b = h.dir.makeFile("src/b.txt", "b")
        let a = h.dir.makeFile("src/a.txt", "a")
        let id = try mover(h, [try granted(b), try granted(a)], options: DialogOptions(defaultDirectory: h.dir.path, confirmationLabel: "Move"))
        let shown = try #require(h.presenter.dialog(id))
        #expect(shown.kind == .mover)
        #expect(shown.mover?.files == [b, a])
        #expect(shown.confirmationLabel == "Move")
        #expect(shown.filters.directories, "a mover's human chooses a folder")
        #expect(h.events.events(id).isEmpty, "nothing has ended")
    }

    /// The human chooses a folder: named filters (which judge files) and choices (which no
    /// presenter shows a mover) are refused, and nothing is presented.
    @Test func namedFiltersAndChoicesAreRefused() throws {
        let h = Harness()
        let a = try granted(h.dir.makeFile("src/a.txt", "a"))
        for (options, field) in [
            (DialogOptions(filters: [DialogFilter(name: "Text", predicate: .nameMatches("*.txt"))]), "options.filters"),
            (DialogOptions(choices: [DialogChoice(id: "keep", label: "Keep a copy")]), "options.choices"),
        ] {
            do {
                let id = try mover(h, [a], options: options)
                Issue.record("\(field): presented as \(id)")
            } catch {
                guard case .invalidArgument(let refused, _) = error else { Issue.record("\(field): \(error)"); continue }
                #expect(refused == field)
            }
        }
        #expect(h.presenter.shown.isEmpty, "nothing is presented")
    }

    @Test func movingCompletesWithTheNewPlacesInTheOrderGiven() throws {
        let h = Harness()
        let b = h.dir.makeFile("src/b.txt", "bee")
        let a = h.dir.makeFile("src/a.txt", "ay")
        let folder = h.dir.directory("dst")
        let id = try mover(h, [try granted(b, readOnly: false), try granted(a)])
        try h.engine.move(client: h.client, id: id, folder: folder.url, resolution: nil, canAsk: true)
        let events = h.events.waitForEnding(id)
        guard case .completed(_, .mover, let files, nil, _)? = events.last else {
            Issue.record("expected a mover's completion, got \(events)")
            return
        }
        #expect(events.first == .presentationChanged(id, isPresented: false))
        #expect(files.map(\.path) == [folder.appending("b.txt"), folder.appending("a.txt")])
        #expect(files.map { $0.movedFrom?.path } == [b, a])
        #expect(files.map(\.forWriting) == [true, false], "the rights each file had go with it")
        #expect(readText(folder.appending("b.txt")) == "bee")
        #expect(readText(folder.appending("a.txt")) == "ay")
        #expect((try? FileStatus.ofLink(b)) == nil && (try? FileStatus.ofLink(a)) == nil, "nothing is left at the old places")
        #expect(endings(h.events.events(id)) == 1)
    }

    @Test func cancellingBeforeTheChoiceMovesNothing() throws {
        let h = Harness()
        let a = h.dir.makeFile("src/a.txt", "a")
        let id = try mover(h, [try granted(a)])
        #expect(try h.engine.cancel(client: h.client, id: id))
        #expect(h.events.events(id) == ending(id, .cancelled(id, .mover, reason: .client)))
        #expect(h.presenter.hidden == [id])
        #expect(readText(a) == "a")
        #expect(throws: DialogError.alreadyEnded(id)) {
            try h.engine.move(client: h.client, id: id, folder: h.dir.directory("dst").url, resolution: nil, canAsk: true)
        }
        #expect(readText(a) == "a", "a choice after the ending moves nothing")
    }

    /// `cancel` during a long move stops it: the mover is told through its cancellation, and
    /// the real mover, told before it is done, puts everything back.
    @Test func cancellingDuringTheMoveRollsItBack() throws {
        let gate = Gate()
        let h = Harness(mover: GatedMover(gate: gate))
        let a = h.dir.makeFile("src/a.txt", "a")
        let folder = h.dir.directory("dst")
        let id = try mover(h, [try granted(a)])
        try h.engine.move(client: h.client, id: id, folder: folder.url, resolution: nil, canAsk: true)
        gate.waitForArrival()
        #expect(try h.engine.cancel(client: h.client, id: id), "the move is under way: cancel stops it")
        #expect(h.events.events(id).isEmpty, "the ending waits for the rollback")
        gate.open()
        #expect(h.events.waitForEnding(id) == ending(id, .cancelled(id, .mover, reason: .client)))
        #expect(readText(a) == "a", "the file is where it was")
        #expect(h.dir.contents("dst") == [], "and nothing is in the folder")
        #expect(try h.engine.cancel(client: h.client, id: id) == false)
    }

    /// The client going away mid-move: the move is stopped and rolled back, the dialog ends
    /// `disconnected` once, and waiting for the client's writes waits for the rollback.
    @Test func aDisconnectDuringTheMoveRollsItBackAndEndsOnce() throws {
        let gate = Gate()
        let h = Harness(mover: GatedMover(gate: gate))
        let a = h.dir.makeFile("src/a.txt", "a")
        let id = try mover(h, [try granted(a)])
        try h.engine.move(client: h.client, id: id, folder: h.dir.directory("dst").url, resolution: nil, canAsk: true)
        gate.waitForArrival()
        h.engine.disconnect(client: h.client)
        gate.open()
        h.engine.waitForWrites(client: h.client)
        #expect(h.events.events(id) == ending(id, .cancelled(id, .mover, reason: .disconnected)))
        #expect(readText(a) == "a" && h.dir.contents("dst") == [])
    }

    @Test func aFolderInsideAFolderBeingMovedIsRefusedAndTheDialogStaysOpen() throws {
        let h = Harness()
        let source = h.dir.directory("src")
        let inner = h.dir.directory("src/inner")
        let id = try mover(h, [try granted(source)])
        #expect(throws: DialogError.self) {
            try h.engine.move(client: h.client, id: id, folder: inner.url, resolution: nil, canAsk: true)
        }
        #expect(h.events.events(id).isEmpty, "the dialog stays open")
        #expect(h.dir.contents("src") == ["inner"])
        // The listing says so beforehand, in the same words; a folder elsewhere may be chosen.
        let listing = try h.engine.list(client: h.client, id: id, directory: inner)
        #expect(listing.folderChoice == .disabled(reason: "it is inside \(source), which is being moved: nothing can be moved into itself"))
        #expect(try h.engine.list(client: h.client, id: id, directory: h.dir.directory("elsewhere")).folderChoice == .enabled)
    }

    // MARK: Names already taken

    @Test func aPresenterThatCanAskIsRefusedAndTheDialogStaysOpen() throws {
        let h = Harness()
        let a = h.dir.makeFile("src/a.txt", "new")
        let folder = h.dir.directory("dst")
        h.dir.makeFile("dst/a.txt", "old")
        let id = try mover(h, [try granted(a)])
        #expect(throws: DialogError.nameConflict(folder: folder, names: [Array("a.txt".utf8)])) {
            try h.engine.move(client: h.client, id: id, folder: folder.url, resolution: nil, canAsk: true)
        }
        #expect(h.events.events(id).isEmpty)
        #expect(readText(a) == "new" && readText(folder.appending("a.txt")) == "old")
        try h.engine.move(client: h.client, id: id, folder: folder.url, resolution: .replace, canAsk: true)
        guard case .completed(_, .mover, let files, _, _)? = h.events.waitForEnding(id).last else {
            Issue.record("expected a completion")
            return
        }
        #expect(files.map(\.path) == [folder.appending("a.txt")])
        #expect(readText(folder.appending("a.txt")) == "new", "replaced")
        #expect(h.dir.contents("dst") == ["a.txt"])
        #expect(endings(h.events.events(id)) == 1)
    }

    @Test func keepBothMovesTheFileUnderAFreeName() throws {
        let h = Harness()
        let a = h.dir.makeFile("src/a.txt", "new")
        let folder = h.dir.directory("dst")
        h.dir.makeFile("dst/a.txt", "old")
        let id = try mover(h, [try granted(a)])
        try h.engine.move(client: h.client, id: id, folder: folder.url, resolution: .keepBoth, canAsk: true)
        guard case .completed(_, .mover, let files, _, _)? = h.events.waitForEnding(id).last else {
            Issue.record("expected a completion")
            return
        }
        #expect(files.map(\.path) == [folder.appending("a 2.txt")])
        #expect(readText(folder.appending("a 2.txt")) == "new")
        #expect(readText(folder.appending("a.txt")) == "old", "both kept")
    }

    @Test func aPresenterThatCannotAskFailsTheDialogNamingTheFileAndMovesNothing() throws {
        let h = Harness()
        let a = h.dir.makeFile("src/a.txt", "new")
        let b = h.dir.makeFile("src/b.txt", "b")
        let folder = h.dir.directory("dst")
        h.dir.makeFile("dst/a.txt", "old")
        let id = try mover(h, [try granted(b), try granted(a)])
        try h.engine.move(client: h.client, id: id, folder: folder.url, resolution: nil, canAsk: false)
        let events = h.events.waitForEnding(id)
        guard case .failed(_, .mover, let failure)? = events.last else {
            Issue.record("expected a failure, got \(events)")
            return
        }
        #expect(failure.code == .nameConflict)
        #expect(failure.url == folder.appending("a.txt").url)
        #expect(failure.message.contains("a.txt") && failure.message.contains("nothing was moved"))
        #expect(readText(a) == "new" && readText(b) == "b", "nothing moved, not even the file without a conflict")
        #expect(readText(folder.appending("a.txt")) == "old")
        #expect(endings(h.events.events(id)) == 1)
    }

    // MARK: The script presenter

    @Test func theScriptChoosesTheFolderAndMayAnswerTheConflictQuestion() throws {
        let h = Harness()
        let a = h.dir.makeFile("src/a.txt", "new")
        let folder = h.dir.directory("dst")
        h.dir.makeFile("dst/a.txt", "old")
        let script = ScriptPresenter(steps: [
            .expect(ScriptExpectation(kind: .mover, confirmationLabel: "Move")),
            .choose([folder.url]),
            .choose([folder.url], conflictResolution: .keepBoth),
        ], scheduler: h.scheduler)
        let options = DialogOptions(defaultDirectory: h.dir.path, confirmationLabel: "Move")
        let first = try mover(h, [try granted(a)], presenter: script, options: options)
        guard case .failed(_, .mover, let failure)? = h.events.waitForEnding(first).last else {
            Issue.record("the script cannot be asked: expected a failure")
            return
        }
        #expect(failure.code == .nameConflict)
        #expect(readText(a) == "new")
        let second = try mover(h, [try granted(a)], presenter: script, options: options)
        guard case .completed(_, .mover, let files, _, _)? = h.events.waitForEnding(second).last else {
            Issue.record("expected a completion")
            return
        }
        #expect(files.map(\.path) == [folder.appending("a 2.txt")])
        #expect(script.remainingSteps == 0)
    }

    // MARK: Bad requests

    @Test func twoFilesOfOneNameAreRefusedAndNothingIsPresented() throws {
        let h = Harness()
        let one = h.dir.makeFile("x/a.txt")
        let two = h.dir.makeFile("y/a.txt")
        #expect(throws: DialogError.self) { try mover(h, [try granted(one), try granted(two)]) }
        #expect(throws: DialogError.self) { try mover(h, [try granted(one), try granted(one)]) }
        #expect(h.presenter.shown.isEmpty)
        #expect(h.engine.openDialogCount(client: h.client) == 0)
    }
}

/// The real mover, after a gate a test opens: a move that takes as long as the test says, and
/// sees a `cancel` made meanwhile exactly as a long move across file systems would.
struct GatedMover: FileMoving {
    let gate: Gate

    func conflicts(_ items: [MoveItem], in folder: FilePath) throws(MoveError) -> [[UInt8]] {
        try FileMover.conflicts(items, in: folder)
    }

    func move(
        _ items: [MoveItem], into folder: FilePath, resolution: MoveConflictResolution,
        progress: (@Sendable (ExportProgress) -> Void)?, cancellation: ExportCancellation?
    ) throws(MoveError) -> [FilePath] {
        gate.pass()
        return try FileMover.move(items, into: folder, resolution: resolution, progress: progress, cancellation: cancellation)
    }
}
