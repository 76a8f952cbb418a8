import Testing
import WharfFileWriting
import WharfSystem
import WharfTestSupport
@testable import WharfDialogs

/// What `present` accepts and refuses, and what the presenter is shown.
@Suite struct PresentationTests {
    @Test func presentationIdRefusesASecondDialogWhileTheFirstIsPresented() throws {
        let h = Harness()
        let first = try h.importer(presentationId: "import-button")
        #expect(dialogError { _ = try h.importer(presentationId: "import-button") }
            == .alreadyPresented(presentationId: "import-button", dialog: first))
        #expect(dialogError { _ = try h.exporter(ExporterRequest(
            documents: [ExportDocument(writableContentTypes: ["public.plain-text"], contents: .bytes([]))],
            presentationId: "import-button")) } == .alreadyPresented(presentationId: "import-button", dialog: first))
        #expect(h.presenter.shown.count == 1, "a refused present shows nothing")
        // Another id, or another client, is not affected.
        _ = try h.importer(presentationId: "other")
        _ = try h.importer(presentationId: "import-button", client: 2)
        // Once the dialog ended, the id is free again.
        try h.engine.dismiss(client: h.client, id: first)
        let again = try h.importer(presentationId: "import-button")
        #expect(again != first)
    }

    @Test func presentationIdIsFreedByEveryKindOfEnding() throws {
        let h = Harness()
        let endings: [(DialogID) throws -> Void] = [
            { _ = try h.engine.cancel(client: h.client, id: $0) },
            { try h.engine.dismiss(client: h.client, id: $0) },
            { try h.engine.fail(client: h.client, id: $0, message: "x") },
            { try h.engine.choose(client: h.client, id: $0, urls: [h.dir.makeFile("a.txt")]) },
        ]
        for end in endings {
            let id = try h.importer(presentationId: "p")
            try end(id)
            #expect(throws: Never.self) { try h.engine.dismiss(client: h.client, id: h.importer(presentationId: "p")) }
        }
    }

    @Test func tooManyDialogsBeyondTheLimitPerClient() throws {
        let h = Harness(maxDialogsPerClient: 3)
        let ids = try (0..<3).map { _ in try h.importer() }
        #expect(dialogError { _ = try h.importer() } == .tooManyDialogs(limit: 3))
        _ = try h.importer(client: 2)  // the limit is per client
        try h.engine.dismiss(client: h.client, id: ids[0])
        _ = try h.importer()
    }

    @Test func emptyAllowedContentTypesIsRefusedNamingTheField() {
        let h = Harness()
        #expect(dialogError { _ = try h.importer([]) } == .invalidArgument(field: "allowedContentTypes", reason: "must not be empty"))
        #expect(h.presenter.shown.isEmpty)
    }

    @Test func unknownContentTypesAreAllNamed() {
        let h = Harness()
        let error = dialogError { _ = try h.importer(["public.plain-text", "com.nope.a", "com.nope.b", "com.nope.a"]) }
        #expect(error == .unknownContentTypes(field: "allowedContentTypes", identifiers: ["com.nope.a", "com.nope.b"]))
        #expect(error?.isInvalidParams == true)
        #expect(error?.description.contains("\"com.nope.a\", \"com.nope.b\"") == true)
    }

    @Test func invalidOptionsAreRefusedNamingTheField() {
        let h = Harness()
        func refused(_ options: DialogOptions) -> String? {
            if case .invalidArgument(let field, _) = dialogError({ _ = try h.importer(options: options) }) { return field }
            return nil
        }
        #expect(refused(DialogOptions(defaultDirectory: "relative/dir")) == "options.defaultDirectory")
        #expect(refused(DialogOptions(timeoutMs: 0)) == "options.timeoutMs")
        #expect(refused(DialogOptions(timeoutMs: -5)) == "options.timeoutMs")
        #expect(refused(DialogOptions(customizationId: "")) == "options.customizationId")
        #expect(dialogError { _ = try h.importer(presentationId: "") } == .invalidArgument(field: "presentationId", reason: "must not be empty"))

        // Texts and ids are at most 4,096 characters (code points: "é" is one, two bytes).
        let longest = String(repeating: "é", count: 4096), tooLong = longest + "x"
        #expect(refused(DialogOptions(title: longest, message: longest, confirmationLabel: longest, customizationId: longest)) == nil)
        #expect(refused(DialogOptions(title: tooLong)) == "options.title")
        #expect(refused(DialogOptions(message: tooLong)) == "options.message")
        #expect(refused(DialogOptions(confirmationLabel: tooLong)) == "options.confirmationLabel")
        #expect(refused(DialogOptions(customizationId: tooLong)) == "options.customizationId")
        #expect(dialogError { _ = try h.importer(presentationId: tooLong) }
                == .invalidArgument(field: "presentationId", reason: "is longer than 4096 characters"))
    }

    @Test func badPredicatesAreRefusedNamingTheNode() {
        let h = Harness()
        func error(_ predicate: URLPredicate) -> DialogError? {
            dialogError { _ = try h.importer(options: DialogOptions(urlEnabled: predicate)) }
        }
        #expect(error(.all([.isHidden(false), .conformsTo("com.nope")])) == .invalidPredicate(
            path: "options.urlEnabled.all[1].conformsTo", reason: "\"com.nope\" is not a known content type"))
        #expect(error(.not(.any([.nameMatches("")])))
            == .invalidPredicate(path: "options.urlEnabled.not.any[0].nameMatches", reason: "the glob is empty"))
        #expect(error(.sizeAtMost(-1)) == .invalidPredicate(
            path: "options.urlEnabled.sizeAtMost", reason: "a size cannot be negative (-1)"))
        #expect(error(.pathMatches(String(repeating: "*", count: 4097))) == .invalidPredicate(
            path: "options.urlEnabled.pathMatches", reason: "the glob is longer than 4096 bytes"))
        #expect(error(.nameMatches(String(repeating: "a", count: 4096))) == nil)
        var deep = URLPredicate.isHidden(false)
        for _ in 0..<40 { deep = .not(deep) }
        guard case .invalidPredicate(_, let reason)? = error(deep) else {
            Issue.record("a 41-level predicate should be refused")
            return
        }
        #expect(reason.contains("deeper"))
    }

    @Test func thePresenterIsShownTheWholeConfiguration() throws {
        let h = Harness()
        let options = DialogOptions(
            defaultDirectory: h.dir.path, title: "Open", message: "Pick notes",
            confirmationLabel: "Import", browserOptions: [.includeHiddenFiles, .displayFileExtensions])
        let id = try h.importer(["public.plain-text", "public.folder"], multiple: true, options: options)
        let shown = try #require(h.presenter.dialog(id))
        #expect(shown.kind == .importer)
        #expect(shown.title == "Open")
        #expect(shown.message == "Pick notes")
        #expect(shown.confirmationLabel == "Import")
        #expect(shown.importer?.allowedContentTypes == ["public.plain-text", "public.folder"])
        #expect(shown.importer?.allowsMultipleSelection == true)
        #expect(shown.directory == h.dir.path)
        #expect(shown.browserOptions == [.includeHiddenFiles, .displayFileExtensions])
        #expect(shown.filters == DialogFilters(globs: ["*.txt"], mimeTypes: [], directories: true))
        #expect(shown.responder.id == id)
    }

    @Test func theConfigurationIsASnapshotTakenAtPresentTime() throws {
        let h = Harness()
        var request = ImporterRequest(
            allowedContentTypes: ["public.plain-text"], options: DialogOptions(defaultDirectory: h.dir.path))
        let id = try h.engine.present(client: h.client, app: "a", request: request, presenter: h.presenter, types: h.types)
        // The app changes its configuration while the dialog is up, and presents another one.
        request.allowedContentTypes = ["com.adobe.pdf"]
        request.options.browserOptions = [.includeHiddenFiles]
        let second = try h.engine.present(client: h.client, app: "a", request: request, presenter: h.presenter, types: h.types)
        h.dir.makeFile("a.pdf")
        h.dir.makeFile(".hidden.txt")
        // The first dialog still takes text and hides dot files; the second takes PDFs.
        #expect(dialogError { try h.engine.choose(client: h.client, id: id, urls: [h.dir.at("a.pdf")]) } != nil)
        #expect(try h.engine.list(client: h.client, id: id).entries.map(\.displayName) == ["a.pdf"])
        #expect(try h.engine.list(client: h.client, id: id).entries.map(\.enabled) == [false])
        try h.engine.choose(client: h.client, id: second, urls: [h.dir.at("a.pdf")])
    }

    @Test func announceRunsBeforeTheDialogIsShown() throws {
        let h = Harness()
        let order = Locked<[String]>([])
        let id = try h.engine.present(
            client: h.client, app: "a", request: ImporterRequest(allowedContentTypes: ["public.item"]),
            presenter: OrderPresenter(order), types: h.types, announce: { dialog in
                order.withValue { $0.append("announce \(dialog.id)") }
                return true
            })
        #expect(order.withValue { $0 } == ["announce \(id)", "show \(id)"])
    }

    /// The client could not be told of the dialog (its request was cancelled): nothing shows
    /// it, nothing names it, and it takes no place among the client's open dialogs.
    @Test func aDialogTheClientCannotBeToldOfIsWithdrawnUnseen() throws {
        let h = Harness(maxDialogsPerClient: 1)
        let order = Locked<[String]>([])
        let id = try h.engine.present(
            client: h.client, app: "a", request: ImporterRequest(allowedContentTypes: ["public.item"]),
            presenter: OrderPresenter(order), types: h.types, announce: { _ in false })
        #expect(order.withValue { $0 }.isEmpty, "the presenter was never shown the withdrawn dialog")
        #expect(h.events.events(id).isEmpty)
        #expect(try h.engine.cancel(client: h.client, id: id) == false)
        let next = try h.importer()
        #expect(next != id)
        try h.engine.dismiss(client: h.client, id: next)
        #expect(order.withValue { $0 }.isEmpty)
    }

    /// The dialog ends (its timeout, the client going away) after it was registered but before
    /// the client could be told of it, and then the client cannot be told (its request was
    /// cancelled): its ending names a dialog the client never heard of, so it is not sent, and
    /// the presenter, never shown it, is not asked to hide it.
    @Test func aDialogEndedBeforeItIsWithdrawnIsNeverNamed() throws {
        let endings: [@Sendable (Harness, DialogID) -> Void] = [
            { h, _ in h.scheduler.advance(milliseconds: 10) },
            { h, _ in h.engine.disconnect(client: h.client) },
        ]
        for end in endings {
            let h = Harness()
            let order = Locked<[String]>([])
            let registered = Locked<DialogID?>(nil)
            let id = try h.engine.present(
                client: h.client, app: "a",
                request: ImporterRequest(allowedContentTypes: ["public.item"], options: DialogOptions(timeoutMs: 10)),
                presenter: OrderPresenter(order), types: h.types, announce: { dialog in
                    registered.withValue { $0 = dialog.id }
                    end(h, dialog.id)
                    return false
                })
            #expect(registered.withValue { $0 } == id)
            #expect(h.events.events(id).isEmpty, "events of a withdrawn dialog: \(h.events.events(id))")
            #expect(order.withValue { $0 }.isEmpty)
            #expect(h.engine.openDialogCount(client: h.client) == 0)
        }
    }

    @Test func dialogIdsAreNeverReused() throws {
        let h = Harness()
        var seen = Set<DialogID>()
        for _ in 0..<50 {
            let id = try h.importer()
            #expect(seen.insert(id).inserted)
            try h.engine.dismiss(client: h.client, id: id)
        }
    }
}

/// Records the order in which a dialog is announced and shown.
private final class OrderPresenter: DialogPresenter {
    var name: String { "order" }
    let order: Locked<[String]>
    init(_ order: Locked<[String]>) { self.order = order }
    func show(_ dialog: PresentedDialog) { order.withValue { $0.append("show \(dialog.id)") } }
    func hide(_ id: DialogID) { order.withValue { $0.append("hide \(id)") } }
}
