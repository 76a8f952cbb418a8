import Testing
import WharfFileWriting
import WharfSystem
import WharfTestSupport
@testable import WharfDialogs

/// Every way a dialog can end: `presentationChanged(false)` first, then exactly one ending, and
/// nothing after it.
@Suite struct EndingTests {
    @Test func userDismissEndsWithPresentationChangedThenCancelledUser() throws {
        let h = Harness()
        let id = try h.importer()
        try h.engine.dismiss(client: h.client, id: id)
        #expect(h.events.events(id) == ending(id, .cancelled(id, .importer, reason: .user)))
        #expect(h.presenter.hidden.isEmpty, "the human closed it; the presenter is not asked to hide it")
    }

    @Test func clientCancelEndsWithCancelledClientAndHidesThePresenter() throws {
        let h = Harness()
        let id = try h.importer()
        #expect(try h.engine.cancel(client: h.client, id: id))
        #expect(h.events.events(id) == ending(id, .cancelled(id, .importer, reason: .client)))
        #expect(h.presenter.hidden == [id])
    }

    @Test func cancelAfterTheDialogEndedAnswersFalseAndEmitsNothing() throws {
        let h = Harness()
        let id = try h.importer()
        try h.engine.dismiss(client: h.client, id: id)
        #expect(try h.engine.cancel(client: h.client, id: id) == false)
        #expect(h.events.events(id).count == 2)
    }

    @Test func cancelOfAnIdThisClientNeverHadIsAnError() throws {
        let h = Harness()
        let other = try h.importer(client: 2)
        #expect(dialogError { _ = try h.engine.cancel(client: h.client, id: other) } == .unknownDialog(other))
        #expect(dialogError { _ = try h.engine.cancel(client: h.client, id: DialogID(rawValue: "nope")) }
            == .unknownDialog(DialogID(rawValue: "nope")))
        #expect(h.engine.openDialogCount(client: 2) == 1, "another client's dialog is untouched")
    }

    @Test func timeoutEndsWithCancelledTimeoutOnlyWhenItsTimeComes() throws {
        let h = Harness()
        let id = try h.importer(options: DialogOptions(defaultDirectory: h.dir.path, timeoutMs: 500))
        h.scheduler.advance(milliseconds: 499)
        #expect(h.events.events(id).isEmpty)
        h.scheduler.advance(milliseconds: 1)
        #expect(h.events.events(id) == ending(id, .cancelled(id, .importer, reason: .timeout)))
        #expect(h.presenter.hidden == [id])
    }

    @Test func timeoutAfterTheDialogEndedDoesNothing() throws {
        let h = Harness()
        let id = try h.importer(options: DialogOptions(defaultDirectory: h.dir.path, timeoutMs: 100))
        try h.engine.dismiss(client: h.client, id: id)
        h.scheduler.advance(milliseconds: 1000)
        #expect(h.events.events(id) == ending(id, .cancelled(id, .importer, reason: .user)))
    }

    /// A dialog's timeout is cancelled when the dialog ends however it ends, not left waiting
    /// with what it holds until it is due (a day's `timeoutMs` held each ended dialog's timer
    /// for that day).
    @Test func aDialogsTimeoutGoesWhenTheDialogEnds() throws {
        let h = Harness()
        let dismissed = try h.importer(options: DialogOptions(defaultDirectory: h.dir.path, timeoutMs: 86_400_000))
        let cancelled = try h.importer(options: DialogOptions(defaultDirectory: h.dir.path, timeoutMs: 86_400_000))
        let chosen = try h.importer(options: DialogOptions(defaultDirectory: h.dir.path, timeoutMs: 86_400_000))
        #expect(h.scheduler.pendingCount == 3)
        try h.engine.dismiss(client: h.client, id: dismissed)
        #expect(try h.engine.cancel(client: h.client, id: cancelled))
        try h.engine.choose(client: h.client, id: chosen, urls: [h.dir.makeFile("a.txt").description])
        _ = h.events.waitForEnding(chosen)
        #expect(h.scheduler.pendingCount == 0)
    }

    /// A `present…` still on its way when its session ended (the session says so before it
    /// disconnects, and the engine asks under its lock) is refused: nothing is shown, nothing is
    /// left open that no one would ever end. One registered just before is ended by the disconnect.
    @Test func aPresentArrivingAfterItsSessionEndedIsRefusedAndLeavesNothingOpen() throws {
        let h = Harness()
        let before = try h.importer()
        h.engine.disconnect(client: h.client)
        h.engine.forget(client: h.client)
        #expect(h.events.events(before) == ending(before, .cancelled(before, .importer, reason: .disconnected)))
        let error = dialogError {
            _ = try h.engine.present(
                client: h.client, app: "test-app",
                request: ImporterRequest(allowedContentTypes: ["public.plain-text"], allowsMultipleSelection: false,
                                         presentationId: nil, options: DialogOptions(defaultDirectory: h.dir.path)),
                presenter: h.presenter, types: h.types, isLive: { false })
        }
        #expect(error == .clientEnded)
        #expect(h.engine.openDialogCount(client: h.client) == 0)
        #expect(h.presenter.shown.map(\.id) == [before], "only the dialog presented before the end was shown")
        #expect(h.events.events(client: h.client).count == h.events.events(before).count, "no event about anything else")
    }

    @Test func disconnectEndsEveryOpenDialogOfThatClientOnly() throws {
        let h = Harness()
        let first = try h.importer()
        let second = try h.textExporter()
        let others = try h.importer(client: 2)
        h.engine.disconnect(client: h.client)
        #expect(h.events.events(first) == ending(first, .cancelled(first, .importer, reason: .disconnected)))
        #expect(h.events.events(second) == ending(second, .cancelled(second, .exporter, reason: .disconnected)))
        #expect(h.events.events(others).isEmpty)
        #expect(h.engine.openDialogCount(client: h.client) == 0)
        #expect(h.engine.openDialogCount(client: 2) == 1)
        // Disconnect order is presentation order.
        let endings = h.events.events(client: h.client).filter(\.isEnding).map(\.dialog)
        #expect(endings == [first, second])
    }

    @Test func chooseSuccessCompletesWithTheResolvedFile() throws {
        let h = Harness()
        let file = h.dir.makeFile("a.txt")
        let id = try h.importer()
        try h.engine.choose(client: h.client, id: id, urls: [FileURL.from(path: file)])
        let identity = try FileIdentity.of(file)
        #expect(h.events.events(id) == ending(id, .completed(
            id, .importer, files: [ChosenFile(path: file, identity: identity, birth: FileBirth.of(file, followSymlinks: true)?.birth,
                                               isDirectory: false, forWriting: false)], contentTypes: nil)))
    }

    @Test func rejectedChoiceKeepsTheDialogOpenAndEmitsNothing() throws {
        let h = Harness()
        h.dir.makeFile("a.pdf")
        let id = try h.importer()
        let error = dialogError { try h.engine.choose(client: h.client, id: id, urls: [h.dir.at("a.pdf")]) }
        guard case .rejectedChoice(let url, let reason) = error else {
            Issue.record("expected a rejected choice, got \(String(describing: error))")
            return
        }
        #expect(url == h.dir.at("a.pdf").url)
        #expect(reason.contains("com.adobe.pdf"))
        #expect(h.events.events(id).isEmpty)
        #expect(h.engine.openDialogCount(client: h.client) == 1)
        // The dialog still takes a good choice.
        try h.engine.choose(client: h.client, id: id, urls: [h.dir.makeFile("b.txt")])
        #expect(h.events.events(id).count == 2)
    }

    @Test func presenterFailureEndsWithAFailedPresenterError() throws {
        let h = Harness()
        let id = try h.importer()
        try h.engine.fail(client: h.client, id: id, message: "the frontend crashed")
        #expect(h.events.events(id) == ending(id, .failed(
            id, .importer, DialogFailure(code: .presenterFailed, message: "the frontend crashed"))))
        #expect(dialogError { try h.engine.fail(client: h.client, id: id, message: "again") } == .alreadyEnded(id))
    }

    @Test func writerFailureEndsWithAFailureNamingTheFileAndCause() throws {
        let h = Harness(writer: TestWriter { items, _, _ throws(ExportError) in
            throw .failed(path: items[0].destination, cause: SystemError(code: 28, operation: "write", path: items[0].destination))
        })
        let id = try h.textExporter()
        try h.engine.save(client: h.client, id: id, url: nil, contentType: nil, overwrite: false)
        let events = h.events.waitForEnding(id)
        let destination = h.dir.at("notes.txt")
        guard events.count == 2, case .failed(_, .exporter, let failure) = events[1] else {
            Issue.record("expected presentationChanged then failed, got \(events)")
            return
        }
        #expect(events[0] == .presentationChanged(id, isPresented: false))
        #expect(failure.code == .writeFailed)
        #expect(failure.url == FileURL.from(path: destination))
        #expect(failure.message.contains(destination.description))
        #expect(failure.message.contains("No space left on device"))
    }

    @Test func snapshotErrorEndsWithSnapshotFailedAndWritesNothing() throws {
        let h = Harness()
        let id = try h.textExporter(lazy: true)
        try h.engine.save(client: h.client, id: id, url: nil, contentType: nil, overwrite: false)
        try h.engine.snapshotFailed(client: h.client, id: id, documentIndex: 0, message: "disk image is busy")
        let events = h.events.events(id)
        #expect(events.count == 3)
        #expect(events[0] == .snapshotNeeded(id, documentIndex: 0, contentType: "public.plain-text"))
        #expect(events[1] == .presentationChanged(id, isPresented: false))
        guard case .failed(_, _, let failure) = events[2] else {
            Issue.record("expected failed, got \(events[2])")
            return
        }
        #expect(failure.code == .snapshotFailed)
        #expect(failure.message.contains("disk image is busy"))
        #expect(!exists(h.dir.at("notes.txt")))
    }

    @Test func lateInputAfterTheEndingIsAnsweredAlreadyEnded() throws {
        let h = Harness()
        let id = try h.importer()
        try h.engine.dismiss(client: h.client, id: id)
        let file = h.dir.makeFile("a.txt")
        #expect(dialogError { try h.engine.choose(client: h.client, id: id, urls: [file]) } == .alreadyEnded(id))
        #expect(dialogError { try h.engine.dismiss(client: h.client, id: id) } == .alreadyEnded(id))
        #expect(dialogError { _ = try h.engine.list(client: h.client, id: id) } == .alreadyEnded(id))
        #expect(h.events.events(id).count == 2)
    }

    @Test func requestsForTheOtherKindOfDialogAreRefused() throws {
        let h = Harness()
        let importer = try h.importer()
        let exporter = try h.textExporter()
        #expect(dialogError { try h.engine.save(client: h.client, id: importer, url: nil, contentType: nil, overwrite: false) }
            == .wrongKind(importer, expected: .exporter, actual: .importer))
        #expect(dialogError { try h.engine.choose(client: h.client, id: exporter, urls: ["/tmp"]) }
            == .wrongKind(exporter, expected: .importer, actual: .exporter))
    }
}
