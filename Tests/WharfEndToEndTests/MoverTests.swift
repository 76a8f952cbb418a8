import Glibc
import Testing
import WharfJSON
import WharfSystem
import WharfServerTestSupport
import WharfTestSupport

/// `presentMover` over the real binary: only granted files, the files shown, the folder chosen,
/// the rights and bookmarks following the files, cancelling, names taken, one ending.
@Suite struct MoverOverTheWire {
    let scratch = ScratchDirectory()

    /// Has the frontend pick `names` in an importer: the client then holds read grants of them.
    func pick(_ client: WireClient, _ names: [String]) throws -> [String] {
        let id = try #require(client.present(["allowedContentTypes": ["public.item"], "allowsMultipleSelection": true]))
        _ = client.notification("presenter/show")
        let urls = names.map { JSON.string(scratch.url($0)) }
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "urls": .array(urls)]) == [:])
        let ending = client.ending(of: id)?["params"]?["urls"]?.arrayValue ?? []
        return ending.compactMap(\.stringValue)
    }

    func endings(_ client: WireClient, _ id: String) -> Int {
        client.events(of: id).filter { $0["method"] == "dialog/completed" || $0["method"] == "dialog/cancelled" }.count
    }

    @Test func aMoveCompletesAndTheRightsAndTheBookmarkFollowTheFiles() throws {
        scratch.write("src/a.txt", "ay")
        scratch.write("src/b.txt", "bee")
        scratch.makeDirectory("dst")
        let client = try frontend(["--state-dir", scratch.file("state")])
        let picked = try pick(client, ["src/a.txt", "src/b.txt"])
        let bookmark = try #require(client.call("createBookmark", ["url": .string(picked[0])])?["bookmark"]?.stringValue)
        let lease = try #require(client.call("resolveAccess", ["url": .string(picked[0])])?["accessId"]?.stringValue)

        let id = try #require(client.present(["urls": [.string(picked[1]), .string(picked[0])],
                                              "options": ["confirmationLabel": "Move", "defaultDirectory": .string(scratch.file("dst"))]],
                                             method: "presentMover"))
        let show = try #require(client.notification("presenter/show")?["params"])
        #expect(show["kind"] == "mover")
        #expect(show["mover"]?["urls"] == [.string(picked[1]), .string(picked[0])])
        #expect(show["confirmationLabel"] == "Move")
        #expect(show["filters"]?["directories"] == true)
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("dst"))]) == [:])
        let ending = try #require(client.ending(of: id)?["params"])
        #expect(ending["kind"] == "mover")
        #expect(ending["urls"] == [.string(scratch.url("dst/b.txt")), .string(scratch.url("dst/a.txt"))], "the new places, in the order given")
        #expect(scratch.text("dst/a.txt") == "ay" && scratch.text("dst/b.txt") == "bee")
        #expect(scratch.contents("src") == [])

        // The old URL's grant ended; the new one is granted with the same rights (a pick: read).
        #expect(client.request("resolveAccess", ["url": .string(picked[0])])?["error"]?["code"] == -32020)
        let moved = try #require(client.call("resolveAccess", ["url": .string(scratch.url("dst/a.txt"))]))
        #expect(moved["readOnly"] == true)
        // A lease open on the source stays to be released and refuses I/O.
        #expect(client.request("readFile", ["accessId": .string(lease)])?["error"]?["code"] == -32020)
        #expect(client.call("releaseAccess", ["accessId": .string(lease)]) == [:])
        // The bookmark follows the file.
        let resolved = try #require(client.call("resolveAccess", ["bookmark": .string(bookmark)]))
        #expect(resolved["url"] == .string(scratch.url("dst/a.txt")))
        #expect(resolved["isStale"] == false)
        let listed = client.call("listAccess", [:])?["entries"]?.arrayValue ?? []
        #expect(!listed.contains { $0["url"] == .string(picked[0]) || $0["url"] == .string(picked[1]) }, "no grant of the old places")
        client.settle()
        #expect(methods(client.events(of: id)) == ["presenter/show", "dialog/presentationChanged", "dialog/completed"])
    }

    @Test func aFileNeverGrantedIsDeniedAndNothingIsPresented() throws {
        scratch.write("src/a.txt", "a")
        scratch.write("src/secret.txt", "s")
        let client = try frontend()
        let picked = try pick(client, ["src/a.txt"])
        let response = client.request("presentMover", ["urls": [.string(picked[0]), .string(scratch.url("src/secret.txt"))]])
        #expect(response?["error"]?["code"] == -32020)
        #expect(response?["error"]?["message"]?.stringValue?.contains("urls[1]") == true)
        client.settle()
        #expect(client.messages.filter { $0["method"] == "presenter/show" }.count == 1, "only the importer was shown")
        #expect(scratch.text("src/secret.txt") == "s" && scratch.text("src/a.txt") == "a")
    }

    @Test func aFrontendIsAskedAboutATakenNameAndKeepsBoth() throws {
        scratch.write("src/a.txt", "new")
        scratch.write("dst/a.txt", "old")
        let client = try frontend()
        let picked = try pick(client, ["src/a.txt"])
        let id = try #require(client.present(["urls": [.string(picked[0])]], method: "presentMover"))
        let refused = client.request("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("dst"))])
        #expect(refused?["error"]?["code"] == -32031)
        #expect(refused?["error"]?["data"]?["urls"] == [.string(scratch.url("dst/a.txt"))])
        #expect(refused?["error"]?["data"]?["names"] == ["a.txt"])
        client.settle()
        #expect(endings(client, id) == 0, "the dialog stays open for the human to answer")
        #expect(scratch.text("src/a.txt") == "new")
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("dst")),
                                              "conflictResolution": "keepBoth"]) == [:])
        #expect(client.ending(of: id)?["params"]?["urls"] == [.string(scratch.url("dst/a 2.txt"))])
        #expect(scratch.text("dst/a.txt") == "old" && scratch.text("dst/a 2.txt") == "new")
        client.settle()
        #expect(endings(client, id) == 1)
    }

    @Test func aFrontendReplacesATakenName() throws {
        scratch.write("src/a.txt", "new")
        scratch.write("dst/a.txt", "old")
        let client = try frontend()
        let picked = try pick(client, ["src/a.txt"])
        let id = try #require(client.present(["urls": [.string(picked[0])]], method: "presentMover"))
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url("dst"))],
                                              "conflictResolution": "replace"]) == [:])
        #expect(client.ending(of: id)?["params"]?["urls"] == [.string(scratch.url("dst/a.txt"))])
        #expect(scratch.text("dst/a.txt") == "new")
        #expect(scratch.contents("dst") == ["a.txt"] && scratch.contents("src") == [])
    }

    @Test func theScriptCannotBeAskedSoATakenNameFailsTheDialogAndMovesNothing() throws {
        scratch.write("src/a.txt", "new")
        scratch.write("dst/a.txt", "old")
        let client = try scripted([["choose": [.string(scratch.file("src/a.txt"))]], ["choose": [.string(scratch.file("dst"))]]],
                                  in: scratch)
        let importer = try #require(client.present(["allowedContentTypes": ["public.plain-text"]]))
        let picked = try #require(client.ending(of: importer)?["params"]?["urls"])
        let id = try #require(client.present(["urls": picked], method: "presentMover"))
        let ending = try #require(client.ending(of: id)?["params"])
        #expect(ending["kind"] == "mover")
        #expect(ending["error"]?["code"] == -32031)
        #expect(ending["error"]?["url"] == .string(scratch.url("dst/a.txt")))
        #expect(ending["error"]?["message"]?.stringValue?.contains("nothing was moved") == true)
        #expect(scratch.text("src/a.txt") == "new" && scratch.text("dst/a.txt") == "old")
        client.settle()
        #expect(endings(client, id) == 1)
    }

    @Test func cancellingBeforeTheChoiceMovesNothing() throws {
        scratch.write("src/a.txt", "a")
        scratch.makeDirectory("dst")
        let client = try frontend()
        let picked = try pick(client, ["src/a.txt"])
        let id = try #require(client.present(["urls": [.string(picked[0])]], method: "presentMover"))
        #expect(client.call("cancel", ["dialogId": .string(id)]) == ["cancelled": true])
        #expect(methods(client.events(of: id)) == ["presenter/show", "presenter/hide", "dialog/presentationChanged", "dialog/cancelled"])
        #expect(client.request("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("dst"))])?["error"]?["code"] == -32014)
        #expect(scratch.text("src/a.txt") == "a" && scratch.contents("dst") == [])
        #expect(client.call("resolveAccess", ["url": .string(picked[0])])?["readOnly"] == true, "the grant is untouched")
    }

    /// A name that is not UTF-8, and its look-alike with U+FFFD beside it: the mover moves the
    /// one granted, by its bytes, and answers its new place with the byte percent-encoded.
    @Test func aNameThatIsNotUTF8MovesByItsBytes() throws {
        let invalid: [UInt8] = Array("name".utf8) + [0xFF] + Array(".txt".utf8)
        let lookalike: [UInt8] = Array("name\u{FFFD}.txt".utf8)
        scratch.makeDirectory("bytes")
        scratch.makeDirectory("dst")
        writeFile(scratch.path("bytes").appending(invalid), Array("0xFF".utf8))
        writeFile(scratch.path("bytes").appending(lookalike), Array("U+FFFD".utf8))
        let client = try frontend()
        let id0 = try #require(client.present(["allowedContentTypes": ["public.item"]]))
        #expect(client.call("dialog/choose", ["dialogId": .string(id0), "urls": [.string(scratch.path("bytes").appending(invalid).url)]]) == [:])
        let picked = try #require(client.ending(of: id0)?["params"]?["urls"]?.arrayValue?.first?.stringValue)
        #expect(picked.hasSuffix("/bytes/name%FF.txt"))
        let id = try #require(client.present(["urls": [.string(picked)]], method: "presentMover"))
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("dst"))]) == [:])
        let moved = try #require(client.ending(of: id)?["params"]?["urls"]?.arrayValue?.first?.stringValue)
        #expect(moved == scratch.path("dst").appending(invalid).url && moved.hasSuffix("/dst/name%FF.txt"))
        #expect(readFile(scratch.path("dst").appending(invalid)) == Array("0xFF".utf8))
        #expect(readFile(scratch.path("bytes").appending(lookalike)) == Array("U+FFFD".utf8), "the look-alike stays")
        #expect(readFile(scratch.path("bytes").appending(invalid)) == nil)
    }

    /// A link picked as itself (importsUnresolvedAliases) is moved as a link: what it leads to
    /// stays where it is, and the client's grant is of the link at its new place.
    @Test func aLinkIsMovedAsALinkNeverFollowed() throws {
        scratch.write("target.txt", "the target")
        scratch.makeDirectory("src")
        scratch.makeDirectory("dst")
        makeSymlink(scratch.file("target.txt"), at: scratch.path("src/link.txt"))
        let client = try frontend()
        let id0 = try #require(client.present(["allowedContentTypes": ["public.item"], "options": ["importsUnresolvedAliases": true]]))
        #expect(client.call("dialog/choose", ["dialogId": .string(id0), "urls": [.string(scratch.url("src/link.txt"))]]) == [:])
        let picked = try #require(client.ending(of: id0)?["params"]?["urls"]?.arrayValue?.first)
        #expect(picked == .string(scratch.url("src/link.txt")))
        let id = try #require(client.present(["urls": [picked]], method: "presentMover"))
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("dst"))]) == [:])
        #expect(client.ending(of: id)?["params"]?["urls"] == [.string(scratch.url("dst/link.txt"))])
        #expect(symlinkTarget(scratch.path("dst/link.txt")) == scratch.file("target.txt"), "still a link, to the same place")
        #expect(scratch.text("target.txt") == "the target" && scratch.contents("src") == [])
        let lease = try #require(client.call("resolveAccess", ["url": .string(scratch.url("dst/link.txt"))]))
        #expect(lease["url"] == .string(scratch.url("dst/link.txt")), "the link itself is granted")
    }

    /// A FIFO is never a file a client was given, even inside a granted folder; and a granted
    /// folder holding one cannot be copied to another file system: it is not moved, and the
    /// failure names the file that stopped it. (Within one file system the folder is renamed
    /// whole, its FIFO with it: nothing is copied.)
    @Test func aFIFOIsNeitherMovableNorCopiedAcrossFileSystemsInsideAFolder() throws {
        let memory = ScratchDirectory("wharf-mover-fifo", in: "/dev/shm")
        memory.makeDirectory("box")
        memory.write("box/a.txt", "a")
        makeFIFO(memory.path("box/pipe"))
        scratch.makeDirectory("dst")
        let client = try frontend()
        let id0 = try #require(client.present(["allowedContentTypes": ["public.folder"]]))
        #expect(client.call("dialog/choose", ["dialogId": .string(id0), "urls": [.string(memory.url("box"))]]) == [:])
        let folder = try #require(client.ending(of: id0)?["params"]?["urls"]?.arrayValue?.first)
        #expect(client.request("presentMover", ["urls": [.string(memory.url("box/pipe"))]])?["error"]?["code"] == -32020)
        let id = try #require(client.present(["urls": [folder]], method: "presentMover"))
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("dst"))]) == [:])
        let failure = try #require(client.ending(of: id)?["params"]?["error"])
        #expect(failure["code"] == -32030)
        #expect(failure["message"]?.stringValue?.contains("pipe") == true, "\(failure)")
        #expect(memory.contents("box") == ["a.txt", "pipe"] && scratch.contents("dst") == [], "nothing moved")
    }

    /// An exported file is the client's to write: moved, it stays writable at its new place.
    @Test func anExportedFileMovedStaysWritable() throws {
        scratch.makeDirectory("out")
        scratch.makeDirectory("dst")
        let client = try frontend()
        let export = try #require(client.present([
            "documents": [["filename": "report.txt", "writableContentTypes": ["public.plain-text"], "contents": ["text": "draft"]]],
            "contentType": "public.plain-text",
        ], method: "presentExporter"))
        #expect(client.call("dialog/choose", ["dialogId": .string(export), "url": .string(scratch.url("out/report.txt"))]) == [:])
        let written = try #require(client.ending(of: export)?["params"]?["urls"]?.arrayValue?.first)
        let id = try #require(client.present(["urls": [written]], method: "presentMover"))
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("dst"))]) == [:])
        #expect(client.ending(of: id)?["params"]?["urls"] == [.string(scratch.url("dst/report.txt"))])
        let lease = try #require(client.call("resolveAccess", ["url": .string(scratch.url("dst/report.txt"))]))
        #expect(lease["readOnly"] == false, "an export's write right followed the file")
        #expect(client.call("writeFile", ["accessId": lease["accessId"] ?? .null, "base64": "ZmluYWw=", "truncate": true])?["bytesWritten"] == 5)
        #expect(scratch.text("dst/report.txt") == "final")
    }
}
