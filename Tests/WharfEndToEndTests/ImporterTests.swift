import Glibc
import Testing
import WharfJSON
import WharfSystem
import WharfServerTestSupport
import WharfTestSupport

/// `presentImporter` and the ways a dialog ends, over real pipes to the built binary.
@Suite struct ImporterOverTheWire {
    let scratch = ScratchDirectory()

    init() {
        scratch.write("photos/a.png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        scratch.write("photos/b.jpg", [0xFF, 0xD8, 0xFF, 0xE0])
        scratch.write("notes.txt", "hello")
        scratch.write(".hidden.txt", "secret")
    }

    @Test func aChosenFileCompletesAfterPresentationChangedAndExactlyOnce() throws {
        let client = try scripted([["choose": [.string(scratch.file("photos/a.png"))]]], in: scratch)
        let id = try #require(client.present(["allowedContentTypes": ["public.image"]]))
        let ending = client.ending(of: id)
        #expect(ending?["params"]?["urls"] == [.string(scratch.url("photos/a.png"))])
        #expect(ending?["params"]?["kind"] == "importer")
        client.settle()
        #expect(methods(client.events(of: id)) == ["dialog/presentationChanged", "dialog/completed"])
        #expect(client.events(of: id).first?["params"]?["isPresented"] == false)
    }

    @Test func theResponseComesBeforeAnyNotificationOfTheDialog() throws {
        let client = try scripted([["choose": [.string(scratch.file("notes.txt"))]]], in: scratch)
        let requestID = client.sendRequest("presentImporter", ["allowedContentTypes": ["public.text"]])
        let response = try #require(client.response(to: requestID))
        let id = try #require(response["result"]?["dialogId"]?.stringValue)
        _ = client.ending(of: id)
        let all = client.messages
        let responseIndex = try #require(all.firstIndex { $0["id"] == requestID })
        let firstEvent = try #require(all.firstIndex { $0["params"]?["dialogId"] == .string(id) })
        #expect(responseIndex < firstEvent)
    }

    @Test func aDismissIsACancellationWithReasonUser() throws {
        let client = try scripted([["dismiss": true]], in: scratch)
        let id = try #require(client.present(["allowedContentTypes": ["public.item"]]))
        let ending = client.ending(of: id)
        #expect(ending?["method"] == "dialog/cancelled")
        #expect(ending?["params"]?["reason"] == "user")
        client.settle()
        #expect(methods(client.events(of: id)) == ["dialog/presentationChanged", "dialog/cancelled"])
    }

    @Test func withoutAPresenterPresentingFailsWithNoPresenter() throws {
        let client = try WireClient.spawn()
        client.initialize()
        let response = client.request("presentImporter", ["allowedContentTypes": ["public.item"]])
        #expect(response?["error"]?["code"] == -32010)
        // Why each presenter cannot serve, in the order `auto` tries them, the client's own last.
        let message = try #require(response?["error"]?["message"]?.stringValue)
        #expect(message.hasPrefix("no presenter can show this dialog (portal: "))
        #expect(message.contains("; zenity: ") && message.contains("; kdialog: "))
        #expect(message.contains("; frontend: the client did not say capabilities.presentsDialogs in initialize). "))
        #expect(message.contains("--presenter script:FILE"))
    }

    /// Bad params are bad params whether or not anyone could present: the engine's checks
    /// (empty or unknown types, an exporter's empty documents or missing file) answer first.
    @Test func withoutAPresenterBadParamsAreStillInvalidParams() throws {
        let client = try WireClient.spawn()
        client.initialize()
        let requests: [(String, JSON, String)] = [
            ("presentImporter", ["allowedContentTypes": []], "allowedContentTypes"),
            ("presentImporter", ["allowedContentTypes": ["com.example.nope"]], "com.example.nope"),
            ("presentExporter", ["documents": []], "documents"),
            ("presentExporter", ["documents": [["writableContentTypes": ["public.data"], "contents": ["path": "/nonexistent/wharf"]]]], "contents.path"),
        ]
        for (method, params, names) in requests {
            let error = client.request(method, params)?["error"]
            #expect(error?["code"] == -32602, "\(method) \(params): \(String(describing: error))")
            #expect(error?["message"]?.stringValue?.contains(names) == true, "\(String(describing: error))")
        }
        #expect(client.request("presentImporter", ["allowedContentTypes": ["public.item"]])?["error"]?["code"] == -32010)
    }

    @Test func aChoiceWithBothUrlsAndUrlIsInvalidParamsAndTheDialogStaysOpen() throws {
        let client = try frontend()
        let id = try #require(client.present(["allowedContentTypes": ["public.image"]]))
        let both = client.request("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url("photos/a.png"))],
                                                    "url": .string(scratch.url("photos/b.jpg"))])
        #expect(both?["error"]?["code"] == -32602)
        #expect(both?["error"]?["message"]?.stringValue?.contains("not both") == true, "\(String(describing: both))")
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url("photos/a.png"))]]) == [:])
        #expect(client.ending(of: id)?["params"]?["urls"] == [.string(scratch.url("photos/a.png"))])
    }

    @Test func unknownAndMissingContentTypesAreInvalidParams() throws {
        let client = try frontend()
        let unknown = client.request("presentImporter", ["allowedContentTypes": ["public.image", "com.example.nope"]])
        #expect(unknown?["error"]?["code"] == -32602)
        #expect(unknown?["error"]?["message"]?.stringValue?.contains("com.example.nope") == true)
        #expect(client.request("presentImporter", ["allowedContentTypes": []])?["error"]?["code"] == -32602)
        let missing = client.request("presentImporter", [:])
        #expect(missing?["error"]?["message"]?.stringValue?.contains("allowedContentTypes") == true)
        let badOption = client.request("presentImporter", ["allowedContentTypes": ["public.item"], "options": ["timeoutMs": "soon"]])
        #expect(badOption?["error"]?["message"]?.stringValue?.contains("options.timeoutMs") == true)
        let longTitle = client.request("presentImporter", ["allowedContentTypes": ["public.item"],
                                                           "options": ["title": .string(String(repeating: "t", count: 8 << 20))]])
        #expect(longTitle?["error"]?["code"] == -32602)
        #expect(longTitle?["error"]?["message"]?.stringValue?.contains("options.title is longer than 4096 characters") == true)
    }

    @Test func aPresentationIdIsBusyWhileItsDialogIsOpenAndFreeAfter() throws {
        let client = try frontend()
        let first = try #require(client.present(["allowedContentTypes": ["public.item"], "presentationId": "picker"]))
        let second = client.request("presentImporter", ["allowedContentTypes": ["public.item"], "presentationId": "picker"])
        #expect(second?["error"]?["code"] == -32011)
        #expect(second?["error"]?["data"]?["dialogId"] == .string(first))
        let exporter = client.request("presentExporter", ["documents": [["writableContentTypes": ["public.plain-text"], "contents": ["text": "x"]]], "presentationId": "picker"])
        #expect(exporter?["error"]?["code"] == -32011)
        #expect(client.call("cancel", ["dialogId": .string(first)])?["cancelled"] == true)
        #expect(client.present(["allowedContentTypes": ["public.item"], "presentationId": "picker"]) != nil)
    }

    @Test func cancelEndsTheDialogOnceAndLaterCancelsAnswerFalse() throws {
        let client = try frontend()
        let id = try #require(client.present(["allowedContentTypes": ["public.item"]]))
        #expect(client.notification("presenter/show")?["params"]?["dialogId"] == .string(id))
        #expect(client.call("cancel", ["dialogId": .string(id)])?["cancelled"] == true)
        #expect(client.ending(of: id)?["params"]?["reason"] == "client")
        #expect(client.notification("presenter/hide")?["params"]?["dialogId"] == .string(id))
        #expect(client.call("cancel", ["dialogId": .string(id)])?["cancelled"] == false)
        #expect(client.request("cancel", ["dialogId": "no-such-dialog"])?["error"]?["code"] == -32013)
        client.settle()
        #expect(methods(client.events(of: id)) == ["presenter/show", "dialog/presentationChanged", "dialog/cancelled", "presenter/hide"]
                || methods(client.events(of: id)) == ["presenter/show", "presenter/hide", "dialog/presentationChanged", "dialog/cancelled"])
    }

    @Test func aTimeoutEndsTheDialogWithReasonTimeout() throws {
        let client = try frontend()
        let id = try #require(client.present(["allowedContentTypes": ["public.item"], "options": ["timeoutMs": 100]]))
        #expect(client.ending(of: id)?["params"]?["reason"] == "timeout")
    }

    @Test func theFrontendIsShownTheDialogAndBrowsesWithList() throws {
        let client = try frontend()
        let id = try #require(client.present([
            "allowedContentTypes": ["public.image"],
            "options": ["defaultDirectory": .string(scratch.directory), "title": "Pick a photo", "message": "For the cover",
                        "confirmationLabel": "Use", "browserOptions": ["displayFileExtensions"]],
        ]))
        let show = try #require(client.notification("presenter/show")?["params"])
        #expect(show["dialogId"] == .string(id))
        #expect(show["kind"] == "importer")
        #expect(show["title"] == "Pick a photo")
        #expect(show["message"] == "For the cover")
        #expect(show["confirmationLabel"] == "Use")
        #expect(show["directory"] == .string(scratch.path.url))
        #expect(show["filters"]?["mimeTypes"]?.arrayValue?.contains("image/*") == true)
        #expect(show["browserOptions"] == ["displayFileExtensions"])

        let listing = try #require(client.call("dialog/list", ["dialogId": .string(id)]))
        let names = listing["entries"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
        #expect(names == ["photos", "notes.txt", "script.json"].filter { scratch.exists($0) }, "directories first, hidden files left out")
        let photos = try #require(client.call("dialog/list", ["dialogId": .string(id), "directory": .string(scratch.url("photos"))]))
        let entries = try #require(photos["entries"]?.arrayValue)
        #expect(entries.map { $0["name"] } == ["a.png", "b.jpg"])
        #expect(entries.allSatisfy { $0["enabled"] == true && $0["contentType"]?.stringValue?.hasPrefix("public.") == true })
        let notes = try #require(listing["entries"]?.arrayValue?.first { $0["name"] == "notes.txt" })
        #expect(notes["enabled"] == false, "a text file is not an image")
    }

    /// A folder picker's filter and an importer of any file both had empty `globs` and
    /// `mimeTypes`, which a frontend had to read as "all files": `allowsAllFiles` tells them apart.
    @Test func presenterShowSaysWhetherEveryFileOrNoFilePassesTheFilter() throws {
        let client = try frontend()
        for (types, allowsAll, directories): (JSON, Bool, Bool) in [
            (["public.folder"], false, true), (["public.item"], true, true), (["public.data"], true, false),
            (["public.plain-text"], false, false),
        ] {
            let id = try #require(client.present(["allowedContentTypes": types]))
            let filters = try #require(client.notification("presenter/show", where: { $0["params"]?["dialogId"] == .string(id) })?["params"]?["filters"])
            #expect(filters["allowsAllFiles"] == .bool(allowsAll), "\(types.jsonText): \(filters.jsonText)")
            #expect(filters["directories"] == .bool(directories), "\(types.jsonText)")
            if allowsAll || types == ["public.folder"] {
                #expect(filters["globs"] == [] && filters["mimeTypes"] == [], "\(types.jsonText): \(filters.jsonText)")
            } else {
                #expect(filters["globs"] != [], "\(types.jsonText)")
            }
            let described = try #require(client.call("contentTypes/filters", ["identifiers": types]))
            // The same filters, member for member: with allowsAllFiles, contentTypes/filters
            // answered globs ["*"] where presenter/show had [] (protocol/README says
            // presenter/show's filters are contentTypes/filters, and their lists then empty).
            #expect(described == filters, "as contentTypes/filters says: \(described.jsonText) against \(filters.jsonText)")
            #expect(client.call("cancel", ["dialogId": .string(id)]) == ["cancelled": true])
        }
    }

    /// `data.url` is the file as Wharf names it (normalised, every byte but unreserved ASCII and
    /// `/` percent-encoded), however the choice spelt it: it echoed the client's text.
    @Test func aRejectedChoiceNamesTheFileByItsCanonicalURL() throws {
        _ = scratch.write("caf\u{E9}.txt", "x")
        let canonical = scratch.url("caf\u{E9}.txt")
        #expect(canonical.hasSuffix("/caf%C3%A9.txt"))
        let client = try frontend()
        let id = try #require(client.present(["allowedContentTypes": ["public.image"]]))
        let folder: String = scratch.path.description
        for spelling in [folder + "/caf\u{E9}.txt", "file://localhost" + folder + "//./caf%C3%A9.txt/", folder + "/sub/../caf\u{E9}.txt"] {
            let refused = client.request("dialog/choose", ["dialogId": .string(id), "urls": [.string(spelling)]])
            #expect(refused?["error"]?["code"] == -32015, "\(spelling)")
            #expect(refused?["error"]?["data"]?["url"] == .string(canonical), "\(spelling)")
        }
        // Text that names no file has no URL to give.
        let notAFile = client.request("dialog/choose", ["dialogId": .string(id), "urls": ["relative.png"]])
        #expect(notAFile?["error"]?["code"] == -32015)
        #expect(notAFile?["error"]?["data"]?["url"] == nil)

        let exporter = try #require(client.present([
            "documents": [["filename": "n", "writableContentTypes": ["public.plain-text"], "contents": ["text": "x"]]],
        ], method: "presentExporter"))
        let missing = client.request("dialog/choose", ["dialogId": .string(exporter), "url": .string(folder + "//gone/./n.txt")])
        #expect(missing?["error"]?["code"] == -32015)
        #expect(missing?["error"]?["data"]?["url"] == .string(scratch.url("gone/n.txt")))
    }

    @Test func aRejectedChoiceIsAnErrorAndTheDialogStaysOpen() throws {
        let client = try frontend()
        let id = try #require(client.present(["allowedContentTypes": ["public.image"]]))
        let wrongType = client.request("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url("notes.txt"))]])
        #expect(wrongType?["error"]?["code"] == -32015)
        #expect(wrongType?["error"]?["data"]?["url"] == .string(scratch.url("notes.txt")))
        let missing = client.request("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url("photos/none.png"))]])
        #expect(missing?["error"]?["code"] == -32015)
        let two = client.request("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url("photos/a.png")), .string(scratch.url("photos/b.jpg"))]])
        #expect(two?["error"]?["code"] == -32015, "one file unless allowsMultipleSelection")
        client.settle()
        #expect(client.events(of: id).allSatisfy { $0["method"] == "presenter/show" }, "still open")
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url("photos/a.png"))]]) == [:])
        #expect(client.ending(of: id)?["params"]?["urls"] == [.string(scratch.url("photos/a.png"))])
    }

    @Test func multipleSelectionReturnsEveryPick() throws {
        let client = try frontend()
        let id = try #require(client.present(["allowedContentTypes": ["public.image"], "allowsMultipleSelection": true]))
        let picks: JSON = [.string(scratch.url("photos/a.png")), .string(scratch.url("photos/b.jpg"))]
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "urls": picks]) == [:])
        #expect(client.ending(of: id)?["params"]?["urls"] == picks)
    }

    @Test func aDirectoryPickerTakesDirectoriesOnly() throws {
        let client = try frontend()
        let id = try #require(client.present(["allowedContentTypes": ["public.folder"]]))
        #expect(client.request("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url("notes.txt"))]])?["error"]?["code"] == -32015)
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url("photos"))]]) == [:])
        #expect(client.ending(of: id)?["params"]?["urls"] == [.string(scratch.url("photos"))])
    }

    @Test func aRegularFileNamedLikeAPackageIsNoPackage() throws {
        // Packages are directories: a script named Tool.app is neither a directory nor an app.
        let script = scratch.write("Tool.app", "#!/bin/sh\necho hi\n")
        let client = try frontend()
        for allowed: JSON in ["public.directory", "com.apple.application-bundle", "com.apple.package"] {
            let id = try #require(client.present(["allowedContentTypes": [allowed]]))
            let refused = client.request("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url("Tool.app"))]])
            #expect(refused?["error"]?["code"] == -32015, "\(allowed) took a regular file: \(String(describing: refused))")
            _ = client.call("cancel", ["dialogId": .string(id)])
        }
        let id = try #require(client.present(["allowedContentTypes": ["public.data"]]))
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url("Tool.app"))]]) == [:])
        let identified = client.call("contentTypes/identify", ["paths": [.string(script.description)]])?["results"]?.arrayValue?.first
        #expect(identified?["identifier"] == "public.shell-script")
    }

    @Test func hiddenFilesAreShownAtFirstWithIncludeHiddenFilesAndOnRequestWithout() throws {
        let client = try frontend()
        func listsHidden(_ id: String, showHidden: Bool?) -> Bool? {
            var params: JSONObject = ["dialogId": .string(id), "directory": .string(scratch.directory)]
            if let showHidden { params["showHidden"] = .bool(showHidden) }
            let names = client.call("dialog/list", .object(params))?["entries"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
            return names.map { $0.contains(".hidden.txt") }
        }
        let shown = try #require(client.present(["allowedContentTypes": ["public.text"], "options": ["browserOptions": ["includeHiddenFiles"]]]))
        #expect(listsHidden(shown, showHidden: nil) == true)
        #expect(listsHidden(shown, showHidden: false) == false)
        let listing = client.call("dialog/list", ["dialogId": .string(shown), "directory": .string(scratch.directory)])
        #expect(listing?["entries"]?.arrayValue?.contains { $0["name"] == ".hidden.txt" && $0["isHidden"] == true && $0["enabled"] == true } == true)
        #expect(client.call("dialog/choose", ["dialogId": .string(shown), "urls": [.string(scratch.url(".hidden.txt"))]]) == [:])

        // Without includeHiddenFiles they are not listed at first, but the human may show them
        // and choose one, as in every desktop's dialog.
        let hidden = try #require(client.present(["allowedContentTypes": ["public.text"]]))
        #expect(listsHidden(hidden, showHidden: nil) == false)
        #expect(listsHidden(hidden, showHidden: true) == true)
        #expect(client.call("dialog/choose", ["dialogId": .string(hidden), "urls": [.string(scratch.url(".hidden.txt"))]]) == [:])
        #expect(client.ending(of: hidden)?["params"]?["urls"] == [.string(scratch.url(".hidden.txt"))])

        // An app that must refuse them says so with urlEnabled.
        let refused = try #require(client.present(["allowedContentTypes": ["public.text"], "options": ["urlEnabled": ["isHidden": false]]]))
        #expect(client.request("dialog/choose", ["dialogId": .string(refused), "urls": [.string(scratch.url(".hidden.txt"))]])?["error"]?["code"] == -32015)
    }

    /// A type made for an extension no type claims (`fromFilenameExtension` of `zzqq`) takes
    /// the files with that extension, whatever their contents say (a text file here), and its
    /// filter names them: the type was good for nothing, every file refused, `e.zzqq` included.
    @Test func aTypeMadeForAnUnknownExtensionTakesItsFiles() throws {
        scratch.write("e.zzqq", "text inside")
        scratch.write("E2.ZZQQ", "text inside")
        scratch.write("other.txt", "text inside")
        let client = try frontend()
        let type = try #require(client.call("contentTypes/fromFilenameExtension", ["filenameExtension": "zzqq"])?["identifier"]?.stringValue)
        #expect(type.hasPrefix("dyn."))
        let id = try #require(client.present(["allowedContentTypes": [.string(type)]]))
        let filters = try #require(client.notification("presenter/show", where: { $0["params"]?["dialogId"] == .string(id) })?["params"]?["filters"])
        #expect(filters["globs"] == ["*.zzqq"] && filters["allowsAllFiles"] == false)
        let listing = client.call("dialog/list", ["dialogId": .string(id), "directory": .string(scratch.directory)])
        let enabled = listing?["entries"]?.arrayValue?.filter { $0["enabled"] == true }.compactMap { $0["name"]?.stringValue }
        #expect(enabled?.sorted() == ["E2.ZZQQ", "e.zzqq"])
        #expect(client.request("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url("other.txt"))]])?["error"]?["code"] == -32015)
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url("e.zzqq"))]]) == [:])
        #expect(client.ending(of: id)?["params"]?["urls"] == [.string(scratch.url("e.zzqq"))])
    }

    @Test func urlEnabledDecidesWhatCanBePicked() throws {
        let client = try frontend()
        let id = try #require(client.present([
            "allowedContentTypes": ["public.image"],
            "options": ["urlEnabled": ["all": [["nameMatches": "*.png"], ["not": ["sizeAtLeast": 1_000_000]]]]],
        ]))
        let listing = client.call("dialog/list", ["dialogId": .string(id), "directory": .string(scratch.file("photos"))])
        let enabled = listing?["entries"]?.arrayValue?.filter { $0["enabled"] == true }.compactMap { $0["name"]?.stringValue }
        #expect(enabled == ["a.png"])
        #expect(client.request("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url("photos/b.jpg"))]])?["error"]?["code"] == -32015)
        let bad = client.request("presentImporter", ["allowedContentTypes": ["public.image"], "options": ["urlEnabled": ["frobnicate": 1]]])
        #expect(bad?["error"]?["code"] == -32602)
        #expect(bad?["error"]?["message"]?.stringValue?.contains("urlEnabled") == true)
    }

    @Test func symlinksResolveUnlessUnresolvedAliasesAreAsked() throws {
        symlink(scratch.file("photos/a.png"), scratch.file("link.png"))
        symlink(scratch.file("photos/gone.png"), scratch.file("broken.png"))
        let client = try frontend()
        let resolved = try #require(client.present(["allowedContentTypes": ["public.image"]]))
        #expect(client.request("dialog/choose", ["dialogId": .string(resolved), "urls": [.string(scratch.url("broken.png"))]])?["error"]?["code"] == -32015)
        #expect(client.call("dialog/choose", ["dialogId": .string(resolved), "urls": [.string(scratch.url("link.png"))]]) == [:])
        #expect(client.ending(of: resolved)?["params"]?["urls"] == [.string(scratch.url("photos/a.png"))])
        // A link to a folder on the way is resolved as well.
        symlink(scratch.file("photos"), scratch.file("album"))
        let throughFolder = try #require(client.present(["allowedContentTypes": ["public.image"]]))
        #expect(client.call("dialog/choose", ["dialogId": .string(throughFolder), "urls": [.string(scratch.url("album/a.png"))]]) == [:])
        #expect(client.ending(of: throughFolder)?["params"]?["urls"] == [.string(scratch.url("photos/a.png"))])
        let unresolved = try #require(client.present(["allowedContentTypes": ["public.image"], "options": ["importsUnresolvedAliases": true]]))
        #expect(client.call("dialog/choose", ["dialogId": .string(unresolved), "urls": [.string(scratch.url("link.png"))]]) == [:])
        #expect(client.ending(of: unresolved)?["params"]?["urls"] == [.string(scratch.url("link.png"))])
    }

    @Test func theConfigurationIsASnapshot() throws {
        let client = try frontend()
        _ = client.call("contentTypes/declare", ["types": [["identifier": "com.example.sketch", "conformsTo": ["public.data"], "filenameExtensions": ["sketch"]]]])
        let id = try #require(client.present(["allowedContentTypes": ["com.example.sketch"]]))
        scratch.write("drawing.sketch", "lines")
        // Declaring more types later changes nothing for the open dialog.
        _ = client.call("contentTypes/declare", ["types": [["identifier": "com.example.doodle", "conformsTo": ["com.example.sketch"], "filenameExtensions": ["doodle"]]]])
        scratch.write("scribble.doodle", "lines")
        #expect(client.request("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url("scribble.doodle"))]])?["error"]?["code"] == -32015)
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url("drawing.sketch"))]]) == [:])
    }

    @Test func endOfInputCancelsOpenDialogsAsDisconnected() throws {
        let client = try frontend()
        let ids = (0..<3).compactMap { _ in client.present(["allowedContentTypes": ["public.item"]]) }
        #expect(ids.count == 3)
        client.closeInput()
        #expect(client.waitForExit() == 1)
        for id in ids { #expect(client.ending(of: id, timeout: 0)?["params"]?["reason"] == "disconnected") }
    }

    @Test func tooManyDialogsIsRefused() throws {
        let client = try frontend(["--max-dialogs-per-client", "3"])
        for _ in 0..<3 { #expect(client.present(["allowedContentTypes": ["public.item"]]) != nil) }
        #expect(client.request("presentImporter", ["allowedContentTypes": ["public.item"]])?["error"]?["code"] == -32012)
    }

    @Test func clientsNeverSeeEachOthersDialogs() throws {
        let alice = try frontend(name: "alice")
        let bob = try frontend(name: "bob")
        let id = try #require(alice.present(["allowedContentTypes": ["public.item"]]))
        #expect(bob.request("cancel", ["dialogId": .string(id)])?["error"]?["code"] == -32013)
        #expect(bob.request("dialog/list", ["dialogId": .string(id)])?["error"]?["code"] == -32013)
    }

    @Test func aCustomizationIdRemembersTheFolderAcrossRestarts() throws {
        let state = ScratchDirectory("wharf-state")
        for round in 0..<2 {
            let client = try frontend(["--state-dir", state.directory])
            let id = try #require(client.present(["allowedContentTypes": ["public.image"], "options": ["customizationId": "covers", "defaultDirectory": .string(scratch.directory)]]))
            let show = client.notification("presenter/show")
            if round == 0 {
                #expect(show?["params"]?["directory"] == .string(scratch.path.url))
                _ = client.call("dialog/list", ["dialogId": .string(id), "directory": .string(scratch.file("photos"))])
                #expect(client.call("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url("photos/a.png"))]]) == [:])
                _ = client.ending(of: id)
            } else {
                #expect(show?["params"]?["directory"] == .string(scratch.url("photos")))
            }
            #expect(client.shutdownAndExit() == 0)
        }
    }

    @Test func aFrontendThatFailsEndsTheDialogWithItsMessage() throws {
        let client = try frontend()
        let id = try #require(client.present(["allowedContentTypes": ["public.image"]]))
        #expect(client.call("dialog/fail", ["dialogId": .string(id), "message": "the picker crashed"]) == [:])
        let ending = try #require(client.ending(of: id))
        #expect(ending["method"] == "dialog/completed")
        #expect(ending["params"]?["error"]?["code"] == -32040)
        #expect(ending["params"]?["error"]?["message"]?.stringValue?.contains("the picker crashed") == true)
        let again = client.request("dialog/fail", ["dialogId": .string(id), "message": "twice"])
        #expect(again?["error"]?["code"] == -32014)
    }

    @Test func cancelRacingChooseEndsEachDialogExactlyOnce() throws {
        let client = try frontend()
        var ids: [String] = []
        for _ in 0..<40 {
            guard let id = client.present(["allowedContentTypes": ["public.image"]]) else { continue }
            ids.append(id)
            // Both go out back to back; whichever the engine sees first ends the dialog.
            client.sendRequest("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url("photos/a.png"))]])
            client.sendRequest("cancel", ["dialogId": .string(id)])
            client.sendRequest("dialog/dismiss", ["dialogId": .string(id)])
        }
        client.settle()
        for id in ids {
            _ = client.ending(of: id)
            let endings = client.events(of: id).filter { $0["method"] == "dialog/completed" || $0["method"] == "dialog/cancelled" }
            #expect(endings.count == 1, "\(id): \(endings)")
            #expect(client.events(of: id).filter { $0["method"] == "dialog/presentationChanged" }.count == 1)
        }
    }

    /// Three thousand entries in pages of a thousand: the pages join up over the wire. (It was a
    /// hundred thousand, a minute of the suite spent creating files and checking every entry
    /// against the schema; the engine's own test pages through thirty thousand.)
    @Test func listingPagesThroughAFolderPageByPage() throws {
        let big = ScratchDirectory("wharf-big")
        for index in 0..<3_000 {
            let descriptor = open(big.file("file\(index).txt"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
            close(descriptor)
        }
        let client = try frontend()
        let id = try #require(client.present(["allowedContentTypes": ["public.plain-text"], "options": ["defaultDirectory": .string(big.directory)]]))
        var cursor: JSON = .null
        var seen = 0, pages = 0
        var first: String?
        var last: String?
        repeat {
            pages += 1
            var params: JSONObject = ["dialogId": .string(id), "limit": 1_000]
            if cursor != .null { params["cursor"] = cursor }
            let page = try #require(client.call("dialog/list", .object(params), timeout: 60))
            let entries = page["entries"]?.arrayValue ?? []
            seen += entries.count
            if first == nil { first = entries.first?["name"]?.stringValue }
            last = entries.last?["name"]?.stringValue ?? last
            cursor = page["nextCursor"] ?? .null
        } while cursor != .null
        #expect(seen == 3_000)
        #expect(pages == 3)
        #expect(first == "file0.txt")
        #expect(last == "file2999.txt", "natural order: file2999 after file999")
    }
}
