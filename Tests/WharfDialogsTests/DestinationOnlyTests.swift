import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfDialogs

/// A destination-only exporter (`ExporterRequest.destinationOnly`, xdg-desktop-portal's
/// `SaveFile`): the destination is checked as for a write, and nothing is written.
@Suite struct DestinationOnlyTests {
    func completed(_ events: [DialogEvent]) -> [ChosenFile]? {
        guard case .completed(_, .exporter, let files, _, _)? = events.last else { return nil }
        return files
    }

    @Test func theChosenDestinationIsTheAnswerAndNothingIsWritten() throws {
        let h = Harness()
        let id = try h.exporter(ExporterRequest(
            documents: [ExportDocument(filename: "report.txt", writableContentTypes: ["public.data"])], destinationOnly: true))
        try h.engine.save(client: h.client, id: id, url: nil, contentType: nil, overwrite: false)
        let files = try #require(completed(h.events.waitForEnding(id)))
        #expect(files.map(\.path) == [h.dir.at("report.txt")])
        #expect(files.allSatisfy { $0.isDestinationOnly })
        #expect((try? FileStatus.ofLink(h.dir.at("report.txt"))) == nil, "a destination-only save wrote the file")
        #expect(!h.events.events(id).contains { if case .snapshotNeeded = $0 { true } else { false } })
    }

    @Test func anExistingFileIsCheckedAsForAWriteAndLeftAsItIs() throws {
        let h = Harness()
        let existing = h.dir.makeFile("notes.txt", "old")
        let id = try h.exporter(ExporterRequest(
            documents: [ExportDocument(filename: "notes.txt", writableContentTypes: ["public.data"])], destinationOnly: true))
        #expect(dialogError { try h.engine.save(client: h.client, id: id, url: existing, contentType: nil, overwrite: false) }
            == .fileExists(url: FileURL.from(path: existing)))
        #expect(dialogError { try h.engine.save(client: h.client, id: id, url: FileURL.from(path: h.dir.path), contentType: nil, overwrite: true) }
            != nil, "a folder was accepted as the file to save")
        try h.engine.save(client: h.client, id: id, url: FileURL.from(path: existing), contentType: nil, overwrite: true)
        #expect(completed(h.events.waitForEnding(id))?.map(\.path) == [existing])
        #expect(readText(existing) == "old")
    }

    @Test func severalDocumentsNameTheirPlacesInTheChosenFolder() throws {
        let h = Harness()
        let out = h.dir.directory("out")
        let id = try h.exporter(ExporterRequest(
            documents: ["x.txt", "y.txt"].map { ExportDocument(filename: $0, writableContentTypes: ["public.data"]) },
            destinationOnly: true))
        try h.engine.save(client: h.client, id: id, url: FileURL.from(path: out), contentType: nil, overwrite: false)
        #expect(completed(h.events.waitForEnding(id))?.map(\.path) == [out.appending("x.txt"), out.appending("y.txt")])
        #expect((try? FileStatus.ofLink(out.appending("x.txt"))) == nil)
    }

    /// `savesIntoFolder` (a portal's `SaveFiles` of one file): the presenter is told to ask for
    /// a folder, and a folder answered keeps the document's name; a file's path answered (a
    /// presenter with a name field) is taken as the destination.
    @Test func oneDocumentSavedIntoAFolderKeepsItsNameThere() throws {
        let h = Harness()
        let out = h.dir.directory("out")
        let request = ExporterRequest(
            documents: [ExportDocument(filename: "only.txt", writableContentTypes: ["public.data"])],
            destinationOnly: true, savesIntoFolder: true)
        let id = try h.exporter(request)
        #expect(h.presenter.shown.last?.exporter?.savesIntoFolder == true)
        try h.engine.save(client: h.client, id: id, url: FileURL.from(path: out), contentType: nil, overwrite: false)
        #expect(completed(h.events.waitForEnding(id))?.map(\.path) == [out.appending("only.txt")])

        let named = try h.exporter(request)
        try h.engine.save(client: h.client, id: named, url: FileURL.from(path: out.appending("renamed.txt")), contentType: nil, overwrite: false)
        #expect(completed(h.events.waitForEnding(named))?.map(\.path) == [out.appending("renamed.txt")])
        #expect((try? FileStatus.ofLink(out.appending("only.txt"))) == nil)
    }

    @Test func documentsWithContentsAreRefused() {
        let h = Harness()
        #expect(dialogError {
            _ = try h.exporter(ExporterRequest(
                documents: [ExportDocument(filename: "a", writableContentTypes: ["public.data"], contents: .bytes([1]))],
                destinationOnly: true))
        } == .invalidArgument(field: "documents[0].contents",
                              reason: "a destinationOnly exporter writes nothing, so its documents carry no contents"))
    }

    /// `urlEnabled` holds the name the person gives (a portal `SaveFile`'s filter): globs on the
    /// name's bytes, case-sensitively, types by the name; a refusal leaves the dialog open.
    @Test func urlEnabledJudgesTheDestinationByItsName() throws {
        let h = Harness()
        let existing = h.dir.makeFile("old.md", "keep")
        let rule = URLPredicate.any([.isDirectory(true), .nameMatches("*.txt"), .conformsTo("public.image")])
        let id = try h.exporter(ExporterRequest(
            documents: [ExportDocument(filename: "report.md", writableContentTypes: ["public.data"])],
            options: DialogOptions(urlEnabled: rule), destinationOnly: true))
        let reason = "the dialog's urlEnabled predicate does not enable a file of this name"
        #expect(dialogError { try h.engine.save(client: h.client, id: id, url: nil, contentType: nil, overwrite: false) }
            == .rejectedChoice(url: FileURL.from(path: h.dir.at("report.md")), reason: reason))
        #expect(dialogError { try h.engine.save(client: h.client, id: id, url: FileURL.from(path: h.dir.at("REPORT.TXT")), contentType: nil, overwrite: false) }
            == .rejectedChoice(url: FileURL.from(path: h.dir.at("REPORT.TXT")), reason: reason))
        // Refused before any question of replacing it.
        #expect(dialogError { try h.engine.save(client: h.client, id: id, url: FileURL.from(path: existing), contentType: nil, overwrite: false) }
            == .rejectedChoice(url: FileURL.from(path: existing), reason: reason))
        #expect(h.events.events(id).isEmpty, "a refused name ended the dialog")
        // A type by the name, then a glob.
        let other = try h.exporter(ExporterRequest(
            documents: [ExportDocument(filename: "pic.png", writableContentTypes: ["public.data"])],
            options: DialogOptions(urlEnabled: rule), destinationOnly: true))
        try h.engine.save(client: h.client, id: other, url: nil, contentType: nil, overwrite: false)
        #expect(completed(h.events.waitForEnding(other))?.map(\.path) == [h.dir.at("pic.png")])
        try h.engine.save(client: h.client, id: id, url: FileURL.from(path: h.dir.at("report.txt")), contentType: nil, overwrite: false)
        #expect(completed(h.events.waitForEnding(id))?.map(\.path) == [h.dir.at("report.txt")])
        #expect(readText(existing) == "keep")
    }

    /// An exporter that writes names the file after the type the person picked: its
    /// `urlEnabled` judges what the listing offers, not the name it writes.
    @Test func anExporterThatWritesIsNotHeldToUrlEnabledByName() throws {
        let h = Harness()
        let id = try h.exporter(ExporterRequest(
            documents: [ExportDocument(filename: "notes.txt", writableContentTypes: ["public.plain-text"], contents: .bytes([0x61]))],
            options: DialogOptions(urlEnabled: .nameMatches("*.md"))))
        try h.engine.save(client: h.client, id: id, url: nil, contentType: nil, overwrite: false)
        #expect(h.events.waitForEnding(id).last.map { if case .completed = $0 { true } else { false } } == true)
        #expect(readText(h.dir.at("notes.txt")) == "a")
    }
}
