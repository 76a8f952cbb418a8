import Glibc
import Dispatch
import Testing
import WharfFileWriting
import WharfSystem
import WharfTestSupport
@testable import WharfDialogs

/// The exporter: SwiftUI's content-type rules, names, destinations, lazy snapshots, writing.
@Suite struct ExporterTests {
    func text(_ value: String) -> ExportSource { .bytes(Array(value.utf8)) }

    func completed(_ events: [DialogEvent]) -> (files: [ChosenFile], types: [String])? {
        guard case .completed(_, .exporter, let files, let types?, _)? = events.last else { return nil }
        return (files, types)
    }

    // MARK: Content types

    @Test func fileDocumentFormUsesTheContentTypeWhenTheDocumentCanWriteIt() throws {
        let h = Harness()
        let id = try h.exporter(ExporterRequest(
            documents: [ExportDocument(filename: "a", writableContentTypes: ["public.plain-text", "public.json"], contents: text("{}"))],
            contentTypes: .contentType("public.json")))
        #expect(h.presenter.dialog(id)?.exporter?.contentTypes == ["public.json"])
        #expect(h.presenter.dialog(id)?.exporter?.filename == "a.json")
        try h.engine.save(client: h.client, id: id, url: nil, contentType: nil, overwrite: false)
        let result = completed(h.events.waitForEnding(id))
        #expect(result?.types == ["public.json"])
        #expect(result?.files.map(\.path) == [h.dir.at("a.json")])
        #expect(readText(h.dir.at("a.json")) == "{}")
    }

    @Test func fileDocumentFormFallsBackToTheFirstWritableTypeOtherwise() throws {
        let h = Harness()
        let id = try h.exporter(ExporterRequest(
            documents: [ExportDocument(filename: "a", writableContentTypes: ["net.daringfireball.markdown", "public.plain-text"], contents: text("#"))],
            contentTypes: .contentType("com.adobe.pdf")))
        #expect(h.presenter.dialog(id)?.exporter?.contentTypes == ["net.daringfireball.markdown"])
        #expect(h.presenter.dialog(id)?.exporter?.filename == "a.md")
        try h.engine.save(client: h.client, id: id, url: nil, contentType: nil, overwrite: false)
        #expect(completed(h.events.waitForEnding(id))?.types == ["net.daringfireball.markdown"])
    }

    @Test func fileDocumentFormResolvesEachDocumentOnItsOwn() throws {
        let h = Harness()
        let out = h.dir.directory("out")
        let id = try h.exporter(ExporterRequest(
            documents: [
                ExportDocument(filename: "one", writableContentTypes: ["public.plain-text"], contents: text("1")),
                ExportDocument(filename: "two", writableContentTypes: ["public.json", "public.plain-text"], contents: text("2")),
            ],
            contentTypes: .contentType("public.json")))
        #expect(h.presenter.dialog(id)?.exporter?.contentTypes == ["public.plain-text", "public.json"])
        #expect(h.presenter.dialog(id)?.exporter?.filenames == ["one.txt", "two.json"])
        #expect(h.presenter.dialog(id)?.exporter?.filename == nil, "several documents have no single suggested name")
        try h.engine.save(client: h.client, id: id, url: out, contentType: nil, overwrite: false)
        let result = completed(h.events.waitForEnding(id))
        #expect(result?.types == ["public.plain-text", "public.json"])
        #expect(result?.files.map(\.path) == [out.appending("one.txt"), out.appending("two.json")])
        #expect(result?.files.allSatisfy(\.forWriting) == true)
    }

    @Test func writableDocumentFormOffersTheDocumentsTypesWhenContentTypesIsEmpty() throws {
        let h = Harness()
        let id = try h.exporter(ExporterRequest(
            documents: [
                ExportDocument(writableContentTypes: ["public.plain-text", "public.json"]),
                ExportDocument(writableContentTypes: ["public.json", "com.adobe.pdf"]),
            ],
            contentTypes: .contentTypes([])))
        #expect(h.presenter.dialog(id)?.exporter?.contentTypes == ["public.plain-text", "public.json", "com.adobe.pdf"])
    }

    @Test func writableDocumentFormOffersTheGivenTypesAndTheUserMayPickOne() throws {
        let h = Harness()
        let id = try h.exporter(ExporterRequest(
            documents: [ExportDocument(filename: "data", writableContentTypes: ["public.plain-text", "public.json"], contents: text("x"))],
            contentTypes: .contentTypes(["public.plain-text", "public.json"])))
        #expect(h.presenter.dialog(id)?.exporter?.filename == "data.txt")
        #expect(dialogError { try h.engine.save(client: h.client, id: id, url: nil, contentType: "com.adobe.pdf", overwrite: false) }
            == .contentTypeNotOffered("com.adobe.pdf", offered: ["public.plain-text", "public.json"]))
        #expect(h.events.events(id).isEmpty, "a type outside the offer is rejected and the dialog stays open")
        try h.engine.save(client: h.client, id: id, url: nil, contentType: "public.json", overwrite: false)
        let result = completed(h.events.waitForEnding(id))
        #expect(result?.types == ["public.json"])
        #expect(result?.files.map(\.path) == [h.dir.at("data.json")], "the default name follows the picked type")
    }

    // MARK: Validation

    @Test func emptyDocumentsAreRefusedAndNothingIsPresented() {
        let h = Harness()
        let error = dialogError { _ = try h.exporter(ExporterRequest(documents: [])) }
        #expect(error == .emptyDocuments)
        #expect(error?.description == "documents must not be empty")
        #expect(h.presenter.shown.isEmpty)
    }

    @Test func documentFieldsAreValidatedNamingTheField() {
        let h = Harness()
        func field(_ request: ExporterRequest) -> String? {
            switch dialogError({ _ = try h.exporter(request) }) {
            case .invalidArgument(let field, _)?, .unknownContentTypes(let field, _)?: return field
            default: return nil
            }
        }
        let good = ExportDocument(writableContentTypes: ["public.plain-text"], contents: .bytes([]))
        #expect(field(ExporterRequest(documents: [good, ExportDocument(writableContentTypes: [])])) == "documents[1].writableContentTypes")
        #expect(field(ExporterRequest(documents: [ExportDocument(writableContentTypes: ["com.nope"])])) == "documents[0].writableContentTypes")
        #expect(field(ExporterRequest(documents: [ExportDocument(filename: "a/b", writableContentTypes: ["public.plain-text"])])) == "documents[0].filename")
        #expect(field(ExporterRequest(documents: [ExportDocument(filename: "..", writableContentTypes: ["public.plain-text"])])) == "documents[0].filename")
        #expect(field(ExporterRequest(documents: [good], defaultFilename: "")) == "defaultFilename")
        // A NUL is named as what is wrong: it was refused as "a plain file name without "/"".
        let nul = dialogError { _ = try h.exporter(ExporterRequest(documents: [good], defaultFilename: "a\u{0}b")) }
        #expect(nul?.description == "defaultFilename must not contain a NUL character (\\u0000): no file name can", "\(String(describing: nul))")
        #expect(field(ExporterRequest(documents: [good], contentTypes: .contentType("com.nope"))) == "contentType")
        #expect(field(ExporterRequest(documents: [good], contentTypes: .contentTypes(["public.json", "com.nope"]))) == "contentTypes")
        #expect(field(ExporterRequest(documents: [ExportDocument(
            writableContentTypes: ["public.plain-text"], contents: .file(path: h.dir.at("missing")))])) == "documents[0].contents.path")
    }

    // MARK: Names

    @Test func suggestedNamesGetThePreferredExtensionOnce() {
        let types = FakeTypes()
        #expect(ExporterPlan.filename("notes", type: "public.plain-text", types: types) == "notes.txt")
        #expect(ExporterPlan.filename("notes.txt", type: "public.plain-text", types: types) == "notes.txt")
        #expect(ExporterPlan.filename("NOTES.TXT", type: "public.plain-text", types: types) == "NOTES.TXT")
        #expect(ExporterPlan.filename("readme.md", type: "public.plain-text", types: types) == "readme.md",
                "Markdown is plain text: its own extension is kept")
        #expect(ExporterPlan.filename("data.txt", type: "public.json", types: types) == "data.txt.json")
        #expect(ExporterPlan.filename(".profile", type: "public.plain-text", types: types) == ".profile.txt")
        #expect(ExporterPlan.filename("blob", type: "public.data", types: types) == "blob", "no preferred extension")
    }

    @Test func namesComeFromTheDocumentThenTheDefaultThenUntitledAndNeverCollide() throws {
        let h = Harness()
        let plain = ["public.plain-text"]
        let id = try h.exporter(ExporterRequest(
            documents: [
                ExportDocument(filename: "mine", writableContentTypes: plain),
                ExportDocument(writableContentTypes: plain),
                ExportDocument(writableContentTypes: plain),
            ],
            defaultFilename: "Export"))
        #expect(h.presenter.dialog(id)?.exporter?.filenames == ["mine.txt", "Export.txt", "Export 2.txt"])
        let untitled = try h.exporter(ExporterRequest(documents: [ExportDocument(writableContentTypes: plain)]))
        #expect(h.presenter.dialog(untitled)?.exporter?.filename == "Untitled.txt")
    }

    @Test func namesThatDifferInBytesDoNotCollideEvenWhenSwiftCallsThemEqual() throws {
        let h = Harness()
        let plain = ["public.plain-text"]
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        try #require(composed == decomposed, "String's == is Unicode-aware: the case this test is about")
        let id = try h.exporter(ExporterRequest(documents: [
            ExportDocument(filename: composed, writableContentTypes: plain),
            ExportDocument(filename: decomposed, writableContentTypes: plain),
            ExportDocument(filename: composed, writableContentTypes: plain),
        ]))
        let names = try #require(h.presenter.dialog(id)?.exporter?.filenames)
        #expect(names.map { Array($0.utf8) } == [composed + ".txt", decomposed + ".txt", composed + " 2.txt"].map { Array($0.utf8) })
    }

    // MARK: Destinations

    @Test func anExistingDestinationNeedsOverwrite() throws {
        let h = Harness()
        let existing = h.dir.makeFile("notes.txt", "old")
        let id = try h.textExporter("new")
        #expect(dialogError { try h.engine.save(client: h.client, id: id, url: existing, contentType: nil, overwrite: false) }
            == .fileExists(url: FileURL.from(path: existing)))
        #expect(h.events.events(id).isEmpty)
        #expect(readText(existing) == "old")
        try h.engine.save(client: h.client, id: id, url: FileURL.from(path: existing), contentType: nil, overwrite: true)
        #expect(completed(h.events.waitForEnding(id)) != nil)
        #expect(readText(existing) == "new")
    }

    @Test func aSymlinkAtTheDestinationCountsAsExisting() throws {
        let h = Harness()
        let target = h.dir.makeFile("target.txt", "keep")
        let link = h.dir.symlink("notes.txt", to: target)
        let id = try h.textExporter()
        #expect(dialogError { try h.engine.save(client: h.client, id: id, url: link, contentType: nil, overwrite: false) }
            == .fileExists(url: FileURL.from(path: link)))
        h.dir.symlink("dangling.txt", to: h.dir.at("nowhere"))
        #expect(dialogError { try h.engine.save(client: h.client, id: id, url: h.dir.at("dangling.txt"), contentType: nil, overwrite: false) }
            == .fileExists(url: FileURL.from(path: h.dir.at("dangling.txt"))))
    }

    @Test func severalDocumentsGoIntoAnExistingDirectoryAndAnyExistingFileNeedsOverwrite() throws {
        let h = Harness()
        let out = h.dir.directory("out")
        h.dir.makeFile("out/b.txt", "old")
        let id = try h.exporter(ExporterRequest(documents: [
            ExportDocument(filename: "a", writableContentTypes: ["public.plain-text"], contents: text("A")),
            ExportDocument(filename: "b", writableContentTypes: ["public.plain-text"], contents: text("B")),
        ]))
        guard case .rejectedChoice? = dialogError({
            try h.engine.save(client: h.client, id: id, url: h.dir.makeFile("plain.txt"), contentType: nil, overwrite: false)
        }) else {
            Issue.record("several documents need a directory")
            return
        }
        #expect(dialogError { try h.engine.save(client: h.client, id: id, url: out, contentType: nil, overwrite: false) }
            == .fileExists(url: FileURL.from(path: out.appending("b.txt"))))
        #expect(!exists(out.appending("a.txt")))
        try h.engine.save(client: h.client, id: id, url: out, contentType: nil, overwrite: true)
        #expect(completed(h.events.waitForEnding(id))?.files.count == 2)
        #expect(readText(out.appending("a.txt")) == "A")
        #expect(readText(out.appending("b.txt")) == "B")
    }

    @Test func destinationsInMissingDirectoriesOrOnDirectoriesAreRejected() throws {
        let h = Harness()
        h.dir.directory("taken.txt")
        let id = try h.textExporter()
        guard case .rejectedChoice(_, let reason)? = dialogError({
            try h.engine.save(client: h.client, id: id, url: h.dir.at("missing/notes.txt"), contentType: nil, overwrite: false)
        }) else {
            Issue.record("a missing directory must be rejected")
            return
        }
        #expect(reason.contains("No such file or directory"))
        guard case .rejectedChoice(_, let why)? = dialogError({
            try h.engine.save(client: h.client, id: id, url: h.dir.at("taken.txt"), contentType: nil, overwrite: true)
        }) else {
            Issue.record("a directory cannot be overwritten by a file")
            return
        }
        #expect(why == "it is a directory")
        #expect(h.events.events(id).isEmpty)
    }

    @Test func aSymlinkedDirectoryIsResolvedOnce() throws {
        let h = Harness()
        let real = h.dir.directory("real")
        let linked = h.dir.symlink("linked", to: real)
        let id = try h.textExporter()
        try h.engine.save(client: h.client, id: id, url: linked.appending("n.txt"), contentType: nil, overwrite: false)
        #expect(completed(h.events.waitForEnding(id))?.files.map(\.path) == [real.appending("n.txt")])
    }

    /// What is granted is the file that was written. A folder swapped for a symbolic link
    /// between the write and the engine's look at its result (an app racing a folder it may
    /// write) must not make a file of the same name where the link leads the one granted,
    /// for writing, to the app.
    @Test func aFolderSwappedForASymlinkAfterTheWriteDoesNotGrantWhereItLeads() throws {
        let h = Harness(writer: FolderSwappingWriter())
        let out = h.dir.directory("out")
        let decoy = h.dir.makeFile("decoy/notes.txt", "the user's other file")
        let id = try h.textExporter()
        try h.engine.save(client: h.client, id: id, url: out.appending("notes.txt"), contentType: nil, overwrite: false)
        let events = h.events.waitForEnding(id)
        let granted = completed(events)?.files.map(\.identity) ?? []
        #expect(!granted.contains { $0.sameFile(as: identity(decoy)) }, "\(events)")
        #expect(readText(decoy) == "the user's other file")
    }

    @Test func aSecondChoiceAfterTheDestinationWasChosenIsRefused() throws {
        let h = Harness()
        let id = try h.textExporter(lazy: true)
        try h.engine.save(client: h.client, id: id, url: nil, contentType: nil, overwrite: false)
        #expect(dialogError { try h.engine.save(client: h.client, id: id, url: nil, contentType: nil, overwrite: false) }
            == .choiceAlreadyMade(id))
        #expect(dialogError { try h.engine.dismiss(client: h.client, id: id) } == .choiceAlreadyMade(id))
    }

    // MARK: Lazy documents

    @Test func lazyDocumentsAreAskedForAfterTheChoiceAndWrittenWhenAllArrive() throws {
        let h = Harness()
        let out = h.dir.directory("out")
        let id = try h.exporter(ExporterRequest(
            documents: [
                ExportDocument(filename: "eager", writableContentTypes: ["public.plain-text"], contents: text("E")),
                ExportDocument(filename: "lazy1", writableContentTypes: ["public.plain-text", "public.json"]),
                ExportDocument(filename: "lazy2", writableContentTypes: ["public.json"]),
            ],
            contentTypes: .contentTypes(["public.plain-text", "public.json"])))
        #expect(h.events.events(id).isEmpty, "nothing is asked before the user chose")
        try h.engine.save(client: h.client, id: id, url: out, contentType: "public.json", overwrite: false)
        #expect(h.events.events(id) == [
            .snapshotNeeded(id, documentIndex: 1, contentType: "public.json"),
            .snapshotNeeded(id, documentIndex: 2, contentType: "public.json"),
        ])
        #expect(dialogError { try h.engine.provideSnapshot(client: h.client, id: id, documentIndex: 0, source: text("no")) }
            == .notAwaitingSnapshot(id, documentIndex: 0))
        try h.engine.provideSnapshot(client: h.client, id: id, documentIndex: 2, source: text("L2"))
        #expect(dialogError { try h.engine.provideSnapshot(client: h.client, id: id, documentIndex: 2, source: text("again")) }
            == .notAwaitingSnapshot(id, documentIndex: 2))
        #expect(!exists(out.appending("lazy2.json")), "nothing is written before every document has bytes")
        try h.engine.provideSnapshot(client: h.client, id: id, documentIndex: 1, source: text("L1"))
        let result = completed(h.events.waitForEnding(id))
        #expect(result?.types == ["public.plain-text", "public.json", "public.json"])
        #expect(readText(out.appending("eager.txt")) == "E")
        #expect(readText(out.appending("lazy1.json")) == "L1")
        #expect(readText(out.appending("lazy2.json")) == "L2")
    }

    @Test func snapshotsMayBeFilesTheClientAlreadyHas() throws {
        let h = Harness()
        let source = h.dir.makeFile("source.bin", "from a file")
        let id = try h.textExporter(lazy: true)
        try h.engine.save(client: h.client, id: id, url: nil, contentType: nil, overwrite: false)
        try h.engine.provideSnapshot(client: h.client, id: id, documentIndex: 0, source: .file(path: source))
        #expect(completed(h.events.waitForEnding(id)) != nil)
        #expect(readText(h.dir.at("notes.txt")) == "from a file")
    }

    @Test func cancelWhileWaitingForSnapshotsWritesNothing() throws {
        let h = Harness()
        let id = try h.textExporter(lazy: true)
        try h.engine.save(client: h.client, id: id, url: nil, contentType: nil, overwrite: false)
        #expect(try h.engine.cancel(client: h.client, id: id))
        #expect(h.events.events(id).suffix(2) == ending(id, .cancelled(id, .exporter, reason: .client))[...])
        #expect(h.presenter.hidden.isEmpty, "the dialog was already answered; nothing to hide")
        #expect(dialogError { try h.engine.provideSnapshot(client: h.client, id: id, documentIndex: 0, source: text("late")) }
            == .alreadyEnded(id))
        h.engine.waitForWrites()
        #expect(!exists(h.dir.at("notes.txt")))
    }

    @Test func disconnectWhileWaitingForSnapshotsWritesNothing() throws {
        let h = Harness()
        let id = try h.textExporter(lazy: true)
        try h.engine.save(client: h.client, id: id, url: nil, contentType: nil, overwrite: false)
        h.engine.disconnect(client: h.client)
        #expect(h.events.events(id).suffix(2) == ending(id, .cancelled(id, .exporter, reason: .disconnected))[...])
        h.engine.waitForWrites()
        #expect(!exists(h.dir.at("notes.txt")))
    }

    @Test func aTimeoutCoversTheWaitForSnapshots() throws {
        let h = Harness()
        let id = try h.exporter(ExporterRequest(
            documents: [ExportDocument(filename: "n", writableContentTypes: ["public.plain-text"])],
            options: DialogOptions(defaultDirectory: h.dir.path, timeoutMs: 1000)))
        try h.engine.save(client: h.client, id: id, url: nil, contentType: nil, overwrite: false)
        h.scheduler.advance(milliseconds: 1000)
        #expect(h.events.events(id).last == .cancelled(id, .exporter, reason: .timeout))
    }

    // MARK: Writing

    @Test func writingNeverRunsOnTheCallersThread() throws {
        let callerThread = Locked<pthread_t?>(nil)
        let writerThread = Locked<pthread_t?>(nil)
        let h = Harness(writer: TestWriter { _, _, _ throws(ExportError) in writerThread.withValue { $0 = pthread_self() } })
        let id = try h.textExporter()
        callerThread.withValue { $0 = pthread_self() }
        try h.engine.save(client: h.client, id: id, url: nil, contentType: nil, overwrite: false)
        h.events.waitForEnding(id)
        let caller = try #require(callerThread.withValue { $0 })
        let writer = try #require(writerThread.withValue { $0 })
        #expect(pthread_equal(caller, writer) == 0)
    }

    @Test func cancelWhileWritingStopsTheWriterAndEndsCancelledOnceRolledBack() throws {
        let gate = Gate()
        let h = Harness(writer: TestWriter.waiting(at: gate))
        let id = try h.textExporter()
        try h.engine.save(client: h.client, id: id, url: nil, contentType: nil, overwrite: false)
        gate.waitForArrival()
        #expect(try h.engine.cancel(client: h.client, id: id))
        #expect(try h.engine.cancel(client: h.client, id: id), "still being cancelled, not ended")
        #expect(h.events.events(id).isEmpty, "the ending waits for the writer's rollback")
        gate.open()
        let events = h.events.waitForEnding(id)
        #expect(events == ending(id, .cancelled(id, .exporter, reason: .client)))
        #expect(!exists(h.dir.at("notes.txt")))
        #expect(try h.engine.cancel(client: h.client, id: id) == false)
    }

    /// A client's exports are written one at a time, in the order chosen, while another
    /// client's go on beside them: a write that waits (a document read from a pipe its client
    /// never fills) held a thread per dialog, so one app could hold thousands.
    @Test func aClientsWritesGoOneAtATimeAndOtherClientsAreNotHeldUp() throws {
        let gate = Gate()
        let writing = Locked<[ClientID: Int]>([:]), most = Locked(0)
        let writer = TestWriter { items, _, _ throws(ExportError) in
            let client: ClientID = items.first?.destination.lastComponent.starts(with: Array("other".utf8)) == true ? 2 : 1
            most.withValue { $0 = max($0, writing.withValue { $0[client, default: 0] += 1; return $0[client]! }) }
            if client == 1 { gate.pass() }
            writing.withValue { $0[client]! -= 1 }
        }
        let h = Harness(writer: writer)
        let ids = try (0..<3).map { index throws(DialogError) in
            try h.exporter(ExporterRequest(documents: [ExportDocument(filename: "mine\(index)", writableContentTypes: ["public.plain-text"],
                                                                      contents: text("\(index)"))],
                                           contentTypes: .contentType("public.plain-text")))
        }
        for id in ids { try h.engine.save(client: h.client, id: id, url: nil, contentType: nil, overwrite: false) }
        gate.waitForArrival()
        // The other client's export is written while the first client's waits.
        let otherClient: ClientID = 2
        let other = try h.exporter(ExporterRequest(documents: [ExportDocument(filename: "other", writableContentTypes: ["public.plain-text"],
                                                                              contents: text("o"))],
                                                   contentTypes: .contentType("public.plain-text")), client: otherClient)
        try h.engine.save(client: otherClient, id: other, url: nil, contentType: nil, overwrite: false)
        #expect(completed(h.events.waitForEnding(other)) != nil)
        #expect(ids.allSatisfy { h.events.events($0).isEmpty }, "the first client's exports wait for the one being written")
        gate.open()
        for id in ids { #expect(completed(h.events.waitForEnding(id)) != nil) }
        #expect(most.withValue { $0 } == 1, "two of one client's exports were written at once")
    }

    @Test func disconnectWhileWritingEndsDisconnectedAndWaitForWritesWaits() throws {
        let gate = Gate()
        let h = Harness(writer: TestWriter.waiting(at: gate))
        let id = try h.textExporter()
        try h.engine.save(client: h.client, id: id, url: nil, contentType: nil, overwrite: false)
        gate.waitForArrival()
        h.engine.disconnect(client: h.client)
        gate.open()
        h.engine.waitForWrites(client: h.client)
        #expect(h.events.events(id) == ending(id, .cancelled(id, .exporter, reason: .disconnected)))
    }

    @Test func aWriterThatFinishedBeforeNoticingTheStopReportsTheTruth() throws {
        let gate = Gate()
        // This writer ignores the stop: it had already put everything in place.
        let h = Harness(writer: TestWriter.waiting(at: gate, honoursCancellation: false))
        let id = try h.textExporter()
        try h.engine.save(client: h.client, id: id, url: nil, contentType: nil, overwrite: false)
        gate.waitForArrival()
        _ = try h.engine.cancel(client: h.client, id: id)
        let events = Locked<[DialogEvent]>([])
        DispatchQueue.global().async { gate.open() }
        events.withValue { $0 = h.events.waitForEnding(id) }
        #expect(completed(events.withValue { $0 }) != nil, "the files are there, so the dialog says so")
        #expect(readText(h.dir.at("notes.txt")) == "hello")
    }

    @Test func aDestinationThatAppearsBeforeTheWriteFailsWithFileExists() throws {
        let h = Harness(writer: TestWriter { items, _, _ throws(ExportError) in
            writeFile(items[0].destination, Array("someone else".utf8))
        })
        let id = try h.textExporter()
        try h.engine.save(client: h.client, id: id, url: nil, contentType: nil, overwrite: false)
        let events = h.events.waitForEnding(id)
        guard case .failed(_, _, let failure)? = events.last else {
            Issue.record("expected a failure, got \(events)")
            return
        }
        #expect(failure.code == .fileExists)
        #expect(readText(h.dir.at("notes.txt")) == "someone else")
    }

    @Test func progressIsForwardedForLargeExportsAtMostTenTimesASecond() throws {
        let scheduler = Locked<ManualScheduler?>(nil)
        let total: Int64 = 4 << 20
        let h = Harness(writer: TestWriter { _, progress, _ throws(ExportError) in
            guard let clock = scheduler.withValue({ $0 }) else { return }
            // 40 reports, 25 ms apart: one second of writing.
            for step in 1...40 {
                progress?(ExportProgress(bytesWritten: total * Int64(step) / 40, totalBytes: total))
                clock.advance(milliseconds: 25)
            }
        })
        scheduler.withValue { $0 = h.scheduler }
        let id = try h.textExporter()
        try h.engine.save(client: h.client, id: id, url: nil, contentType: nil, overwrite: false)
        let events = h.events.waitForEnding(id)
        let progress = events.filter { if case .progress = $0 { return true } else { return false } }
        #expect(progress.count == 10)
        #expect(progress.first == .progress(id, written: total / 40, total: total))
        #expect(events.suffix(2).first == .presentationChanged(id, isPresented: false), "progress comes before the ending")
    }

    @Test func smallExportsReportNoProgress() throws {
        let h = Harness(writer: TestWriter { _, progress, _ throws(ExportError) in
            progress?(ExportProgress(bytesWritten: 1 << 20, totalBytes: 1 << 20))
        })
        let id = try h.textExporter()
        try h.engine.save(client: h.client, id: id, url: nil, contentType: nil, overwrite: false)
        #expect(h.events.waitForEnding(id).count == 2)
    }

    @Test func aTimeoutDoesNotInterruptAnExportBeingWritten() throws {
        let gate = Gate()
        let h = Harness(writer: TestWriter.waiting(at: gate))
        let id = try h.exporter(ExporterRequest(
            documents: [ExportDocument(filename: "n", writableContentTypes: ["public.plain-text"], contents: .bytes([65]))],
            options: DialogOptions(defaultDirectory: h.dir.path, timeoutMs: 1000)))
        try h.engine.save(client: h.client, id: id, url: nil, contentType: nil, overwrite: false)
        gate.waitForArrival()
        h.scheduler.advance(milliseconds: 5000)
        gate.open()
        #expect(completed(h.events.waitForEnding(id)) != nil)
    }
}

/// Writes for real, then moves the destination's folder away and puts a symbolic link to its
/// sibling `decoy` in its place, as the engine is about to look at what was written.
private struct FolderSwappingWriter: ExportWriting {
    func write(
        _ items: [ExportItem], progress: (@Sendable (ExportProgress) -> Void)?, cancellation: ExportCancellation?
    ) throws(ExportError) {
        try AtomicExportWriter().write(items, progress: progress, cancellation: cancellation)
        let folder = items[0].destination.directory
        move(folder, to: folder.directory.appending("moved"))
        makeSymlink(folder.directory.appending("decoy"), at: folder)
    }
}
