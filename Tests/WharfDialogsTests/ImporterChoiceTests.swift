import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfDialogs

/// `choose` validates like a real dialog: what it refuses keeps the dialog open.
@Suite struct ImporterChoiceTests {
    /// The completed files of a dialog that must have completed.
    func completedFiles(_ h: Harness, _ id: DialogID) -> [ChosenFile] {
        guard case .completed(_, _, let files, _, _)? = h.events.events(id).last else {
            Issue.record("dialog \(id) did not complete: \(h.events.events(id))")
            return []
        }
        return files
    }

    func rejection(_ h: Harness, _ id: DialogID, _ paths: [FilePath]) -> (url: String, reason: String)? {
        let urls = paths.map(\.description)
        guard case .rejectedChoice(let url, let reason)? = dialogError({ try h.engine.choose(client: h.client, id: id, urls: urls) })
        else { return nil }
        return (url, reason)
    }

    @Test func singleSelectionTakesExactlyOneFile() throws {
        let h = Harness()
        let a = h.dir.makeFile("a.txt")
        let b = h.dir.makeFile("b.txt")
        let id = try h.importer()
        #expect(rejection(h, id, [a, b])?.url == b.url)
        #expect(dialogError { try h.engine.choose(client: h.client, id: id, urls: [] as [String]) }
            == .invalidArgument(field: "urls", reason: "must name at least one file"))
        try h.engine.choose(client: h.client, id: id, urls: [a])
        #expect(completedFiles(h, id).map(\.path) == [a])
    }

    @Test func multipleSelectionTakesSeveralInOrderWithoutDuplicates() throws {
        let h = Harness()
        let a = h.dir.makeFile("a.txt")
        let b = h.dir.makeFile("b.md")
        let id = try h.importer(multiple: true)
        try h.engine.choose(client: h.client, id: id, urls: [b.url, a.description, b.description])
        #expect(completedFiles(h, id).map(\.path) == [b, a])
        #expect(completedFiles(h, id).allSatisfy { !$0.forWriting })
    }

    @Test func oneBadFileRejectsTheWholeChoiceNamingIt() throws {
        let h = Harness()
        let a = h.dir.makeFile("a.txt")
        let bad = h.dir.makeFile("b.png")
        let id = try h.importer(multiple: true)
        #expect(rejection(h, id, [a, bad])?.url == bad.url)
        #expect(h.events.events(id).isEmpty)
    }

    @Test func missingFilesAndNonFileURLsAreRejected() throws {
        let h = Harness()
        let id = try h.importer()
        #expect(rejection(h, id, [h.dir.at("missing.txt")])?.reason == "it does not exist")
        #expect(dialogError { try h.engine.choose(client: h.client, id: id, urls: ["https://example.com/a.txt"]) }
            == .notAFileURL("https://example.com/a.txt"))
        #expect(dialogError { try h.engine.choose(client: h.client, id: id, urls: ["relative.txt"]) } == .notAFileURL("relative.txt"))
    }

    @Test func unreadableFilesAreRejectedWithTheCause() throws {
        // The tests run as root, which reads anything a mode would forbid: this thread becomes
        // `nobody` for the choice (choose validates on the caller's thread).
        let h = Harness()
        setMode(h.dir.path, 0o755)
        let secret = h.dir.write("secret.txt", "x", mode: 0o000)
        let id = try h.importer()
        let previous = setFileSystemUser(65534)
        let rejected = rejection(h, id, [secret])
        _ = setFileSystemUser(UInt32(previous))
        #expect(rejected?.url == secret.url)
        #expect(rejected?.reason.contains("cannot be opened for reading") == true)
    }

    /// FIFOs, sockets and devices are never documents, whatever their name says: opening a FIFO
    /// can block, a device can be endless. Refused by choose, disabled in the listing, even
    /// for an importer of `public.item`.
    @Test func specialFilesAreNeverPickable() throws {
        let h = Harness()
        let fifo = h.dir.fifo("pipe.txt")
        let socket = h.dir.socket("socket.txt")
        for types in [["public.plain-text"], ["public.item"]] {
            let id = try h.importer(types)
            for special in [fifo, socket, FilePath("/dev/null")] {
                #expect(rejection(h, id, [special])?.reason.contains("never a document") == true, "\(special) for \(types)")
            }
            let listed = try h.engine.list(client: h.client, id: id).entries
            #expect(listed.filter { $0.displayName == "pipe.txt" || $0.displayName == "socket.txt" }.map(\.enabled) == [false, false])
            _ = try h.engine.cancel(client: h.client, id: id)
        }
    }

    @Test func aHiddenFileMayBeChosenWithOrWithoutIncludeHiddenFilesButNotAgainstURLEnabled() throws {
        let h = Harness()
        let hidden = h.dir.makeFile(".secret.txt")
        let closed = try h.importer()
        try h.engine.choose(client: h.client, id: closed, urls: [hidden])
        #expect(completedFiles(h, closed).map(\.path) == [hidden], "the human showed hidden files and picked one")
        let open = try h.importer(options: DialogOptions(defaultDirectory: h.dir.path, browserOptions: .includeHiddenFiles))
        try h.engine.choose(client: h.client, id: open, urls: [hidden])
        #expect(completedFiles(h, open).map(\.path) == [hidden])
        let refusing = try h.importer(options: DialogOptions(defaultDirectory: h.dir.path, urlEnabled: .isHidden(false)))
        #expect(rejection(h, refusing, [hidden])?.reason.contains("urlEnabled") == true)
    }

    @Test func symlinksAreResolvedOnceAtChoiceTime() throws {
        let h = Harness()
        let target = h.dir.makeFile("real.txt")
        h.dir.directory("sub")
        let link = h.dir.symlink("sub/link.txt", to: target)
        let id = try h.importer()
        try h.engine.choose(client: h.client, id: id, urls: [link])
        let file = try #require(completedFiles(h, id).first)
        #expect(file.path == target)
        #expect(file.identity.sameFile(as: try FileIdentity.of(target)))
    }

    /// A followed link gives the app the file it leads to, which must pass the dialog's rules
    /// under its own name: judged by the link's name alone, a plain-text importer completed
    /// with a PNG reached through 'notes.txt', and a `*.txt` predicate let it through.
    @Test func aLinkIsRefusedWhenTheFileItLeadsToIsNotAllowed() throws {
        let h = Harness()
        let photo = h.dir.makeFile("photo.png")
        let link = h.dir.symlink("notes.txt", to: photo)
        let byType = try h.importer()
        let refused = rejection(h, byType, [link])
        #expect(refused?.reason.contains("leads to \(photo)") == true, "\(String(describing: refused))")
        #expect(refused?.reason.contains("public.png") == true)
        #expect(h.events.events(byType).isEmpty, "the dialog stays open")

        let byName = try h.importer(["public.item"], options: DialogOptions(defaultDirectory: h.dir.path, urlEnabled: .nameMatches("*.txt")))
        #expect(rejection(h, byName, [link])?.reason.contains("urlEnabled") == true)

        // A link to an allowed file is still resolved to it.
        let text = h.dir.makeFile("real.txt")
        let good = h.dir.symlink("other.txt", to: text)
        try h.engine.choose(client: h.client, id: byType, urls: [good.description])
        #expect(try #require(completedFiles(h, byType).first).path == text)
    }

    @Test func importsUnresolvedAliasesReturnsTheLinkItself() throws {
        let h = Harness()
        let target = h.dir.makeFile("real.txt")
        let link = h.dir.symlink("link.txt", to: target)
        let id = try h.importer(options: DialogOptions(defaultDirectory: h.dir.path, importsUnresolvedAliases: true))
        try h.engine.choose(client: h.client, id: id, urls: [link])
        let file = try #require(completedFiles(h, id).first)
        #expect(file.path == link)
        #expect(file.identity.sameFile(as: try FileIdentity.of(link, followSymlinks: false)))
        #expect(!file.identity.sameFile(as: try FileIdentity.of(target)))
    }

    @Test func brokenSymlinksAreRejected() throws {
        let h = Harness()
        let broken = h.dir.symlink("gone.txt", to: h.dir.at("nowhere.txt"))
        for unresolved in [false, true] {
            let id = try h.importer(options: DialogOptions(defaultDirectory: h.dir.path, importsUnresolvedAliases: unresolved))
            #expect(rejection(h, id, [broken])?.reason.contains("does not exist") == true)
        }
    }

    @Test func theRecordedIdentityIsTheFileThatWasChosen() throws {
        let h = Harness()
        let file = h.dir.makeFile("a.txt")
        let id = try h.importer()
        try h.engine.choose(client: h.client, id: id, urls: [file])
        let identity = try #require(completedFiles(h, id).first).identity
        let status = try FileStatus.of(file)
        #expect(identity.inode == status.inode)
        #expect(identity.device == status.device)
        #expect(identity.fileSystem != 0)
    }

    @Test func directoryPickersTakeDirectoriesAndNotFiles() throws {
        let h = Harness()
        let folder = h.dir.directory("templates")
        let file = h.dir.makeFile("a.txt")
        for type in ["public.folder", "public.directory"] {
            let id = try h.importer([type])
            #expect(rejection(h, id, [file])?.reason.contains("public.plain-text") == true)
            try h.engine.choose(client: h.client, id: id, urls: [folder])
            #expect(completedFiles(h, id).map(\.path) == [folder])
        }
        let filePicker = try h.importer(["public.plain-text"])
        #expect(rejection(h, filePicker, [folder])?.reason.contains("a directory") == true)
    }

    @Test func packagesCountAsFilesOfTheirPackageType() throws {
        let h = Harness()
        let package = h.dir.directory("Thing.bundle")
        h.dir.makeFile("Thing.bundle/inside.txt")
        let packagePicker = try h.importer(["com.example.bundle"])
        try h.engine.choose(client: h.client, id: packagePicker, urls: [package])
        #expect(completedFiles(h, packagePicker).map(\.path) == [package])
        // A plain directory is not a package.
        let plain = h.dir.directory("Plain")
        let again = try h.importer(["com.example.bundle"])
        #expect(rejection(h, again, [plain]) != nil)
        // A folder picker does not take a package: it is a file to the user.
        let folderPicker = try h.importer(["public.folder"])
        #expect(rejection(h, folderPicker, [package]) != nil)
    }

    @Test func urlEnabledDecidesWhatMayBeChosen() throws {
        let h = Harness()
        let small = h.dir.makeFile("small.txt", "hi")
        let big = h.dir.makeFile("big.txt", String(repeating: "x", count: 100))
        let id = try h.importer(options: DialogOptions(
            defaultDirectory: h.dir.path, urlEnabled: .all([.sizeAtMost(10), .nameMatches("*.txt")])))
        #expect(rejection(h, id, [big])?.reason.contains("urlEnabled") == true)
        try h.engine.choose(client: h.client, id: id, urls: [small])
    }

    @Test func pathsAreNormalised() throws {
        let h = Harness()
        let file = h.dir.makeFile("a.txt")
        h.dir.directory("sub")
        let id = try h.importer()
        try h.engine.choose(client: h.client, id: id, urls: [h.dir.path.description + "/sub/.././/a.txt"])
        #expect(completedFiles(h, id).map(\.path) == [file])
    }

    /// An importer of `types` whose files are identified by `meddling`.
    func importer(_ h: Harness, _ types: [String], meddling: MeddlingTypes) throws(DialogError) -> DialogID {
        try h.engine.present(
            client: h.client, app: "test-app",
            request: ImporterRequest(allowedContentTypes: types, options: DialogOptions(defaultDirectory: h.dir.path)),
            presenter: h.presenter, types: meddling)
    }

    /// What is judged is what is granted. A plain-text file is chosen; while it is looked at,
    /// its name is swapped for a symbolic link to a private folder (a client that can write
    /// in the folder races the human's pick). The folder must not be granted in its place,
    /// let alone as a folder (all it holds) by a dialog that takes only plain text.
    @Test func aFileSwappedForALinkToAFolderWhileItIsJudgedDoesNotGrantTheFolder() throws {
        let h = Harness()
        let notes = h.dir.makeFile("notes.txt", "hello")
        let chosen = identity(notes)
        h.dir.directory("private")
        h.dir.makeFile("private/key.txt", "secret")
        let decoy = h.dir.symlink("decoy", to: h.dir.at("private"))
        let swapped = Locked(false)
        let id = try importer(h, ["public.plain-text"], meddling: MeddlingTypes(before: { name in
            guard name == Array("notes.txt".utf8), !swapped.withValue({ let was = $0; $0 = true; return was }) else { return }
            move(decoy, to: notes)
        }))
        do {
            try h.engine.choose(client: h.client, id: id, urls: [notes])
        } catch {
            #expect(h.events.events(id).isEmpty, "a refused choice keeps the dialog open")
            return
        }
        let files = completedFiles(h, id)
        #expect(files.allSatisfy { !$0.isDirectory && $0.path != h.dir.at("private") }, "granted \(files)")
        #expect(files.allSatisfy { $0.identity.sameFile(as: chosen) }, "granted \(files)")
    }

    /// The first bytes that decide a file's type are read from the file granted, not from
    /// whatever its path leads to at that instant: a link to a binary file, pointed at a text
    /// file just while the choice reads the head and back again, is not granted as plain text.
    @Test func theBytesThatDecideTheTypeAreThoseOfTheFileGranted() throws {
        let h = Harness()
        let binary = h.dir.write("blob", [0x00, 0x01, 0x02, 0x03, 0x04, 0x05])
        let text = h.dir.makeFile("prose", "text: words")
        let pick = h.dir.symlink("pick", to: binary)
        let meddling = MeddlingTypes(
            before: { name in
                guard name == Array("pick".utf8) else { return }
                _ = removeFile(pick)
                makeSymlink(text, at: pick)
            },
            afterHead: { name in
                guard name == Array("pick".utf8) else { return }
                _ = removeFile(pick)
                makeSymlink(binary, at: pick)
            })
        let id = try importer(h, ["public.plain-text"], meddling: meddling)
        #expect(dialogError { try h.engine.choose(client: h.client, id: id, urls: [pick]) } != nil,
                "granted \(h.events.events(id))")
    }
}

/// Where dialogs open, and what they remember (`fileDialogCustomizationID`).
@Suite struct DirectoryMemoryTests {
    @Test func dialogsOpenInTheDefaultDirectoryOrHome() throws {
        let h = Harness()
        let docs = h.dir.directory("docs")
        let withDefault = try h.importer(options: DialogOptions(defaultDirectory: docs))
        #expect(h.presenter.dialog(withDefault)?.directory == docs)
        let withMissing = try h.importer(options: DialogOptions(defaultDirectory: h.dir.at("missing")))
        #expect(h.presenter.dialog(withMissing)?.directory == h.dir.path, "falls back to home")
        let without = try h.importer(options: DialogOptions())
        #expect(h.presenter.dialog(without)?.directory == h.dir.path)
    }

    @Test func theChosenFilesDirectoryIsRememberedAndWinsOverTheDefault() throws {
        let h = Harness()
        let docs = h.dir.directory("docs")
        let other = h.dir.directory("other")
        let file = h.dir.makeFile("other/a.txt")
        let options = DialogOptions(defaultDirectory: docs, customizationId: "notes")
        let first = try h.importer(options: options)
        try h.engine.choose(client: h.client, id: first, urls: [file])
        let second = try h.importer(options: options)
        #expect(h.presenter.dialog(second)?.directory == other)
        // Per app: another app with the same id is not affected.
        let otherApp = try h.importer(options: options, app: "other-app")
        #expect(h.presenter.dialog(otherApp)?.directory == docs)
        // Without an id nothing is remembered or recalled.
        let plain = try h.importer(options: DialogOptions(defaultDirectory: docs))
        #expect(h.presenter.dialog(plain)?.directory == docs)
    }

    @Test func theLastListedDirectoryIsWhereTheUserEndedIn() throws {
        let h = Harness()
        let templates = h.dir.directory("templates")
        let options = DialogOptions(defaultDirectory: h.dir.path, customizationId: "templates")
        let first = try h.importer(["public.folder"], options: options)
        _ = try h.engine.list(client: h.client, id: first, directory: templates)
        // The user opened "templates" and confirmed it as the chosen folder.
        try h.engine.choose(client: h.client, id: first, urls: [templates])
        let second = try h.importer(["public.folder"], options: options)
        #expect(h.presenter.dialog(second)?.directory == templates)
    }

    @Test func aRememberedDirectoryThatIsGoneIsIgnored() throws {
        let h = Harness()
        h.memory.remember(app: "test-app", customizationId: "x", directory: h.dir.at("vanished"))
        let id = try h.importer(options: DialogOptions(defaultDirectory: h.dir.path, customizationId: "x"))
        #expect(h.presenter.dialog(id)?.directory == h.dir.path)
    }

    @Test func cancelledDialogsRememberNothing() throws {
        let h = Harness()
        let sub = h.dir.directory("sub")
        let options = DialogOptions(defaultDirectory: h.dir.path, customizationId: "x")
        let id = try h.importer(options: options)
        _ = try h.engine.list(client: h.client, id: id, directory: sub)
        try h.engine.dismiss(client: h.client, id: id)
        #expect(h.memory.rememberedDirectory(app: "test-app", customizationId: "x") == nil)
    }

    @Test func exportsRememberTheDestinationDirectory() throws {
        let h = Harness()
        let out = h.dir.directory("out")
        var request = ExporterRequest(
            documents: [ExportDocument(writableContentTypes: ["public.plain-text"], contents: .bytes([1]))])
        request.options = DialogOptions(defaultDirectory: h.dir.path, customizationId: "export")
        let id = try h.exporter(request)
        try h.engine.save(client: h.client, id: id, url: out.appending("a.txt"), contentType: nil, overwrite: false)
        h.events.waitForEnding(id)
        #expect(h.memory.rememberedDirectory(app: "test-app", customizationId: "export") == out)
    }
}
