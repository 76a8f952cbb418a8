import Glibc
import Testing
import WharfJSON
import WharfSystem
import WharfServerTestSupport
import WharfTestSupport

/// Security-scoped access over the wire: what a dialog returned is granted, nothing else is.
@Suite struct AccessOverTheWire {
    let scratch = ScratchDirectory()

    init() {
        scratch.write("picked.txt", "picked")
        scratch.write("other.txt", "not picked")
    }

    /// Imports `name` through a frontend dialog and returns its URL.
    func importFile(_ client: WireClient, _ name: String) throws -> String {
        let id = try #require(client.present(["allowedContentTypes": ["public.item"]]))
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url(name))]]) == [:])
        return try #require(client.ending(of: id)?["params"]?["urls"]?.arrayValue?.first?.stringValue)
    }

    @Test func aPickedFileCanBeResolvedReadAndReleasedOnce() throws {
        let client = try frontend()
        let url = try importFile(client, "picked.txt")
        let lease = try #require(client.call("resolveAccess", ["url": .string(url)]))
        #expect(lease["path"] == .string(scratch.file("picked.txt")))
        #expect(lease["readOnly"] == true)
        #expect(lease["isStale"] == false)
        let accessId = try #require(lease["accessId"])
        let read = client.call("readFile", ["accessId": accessId])
        #expect(read?["base64"] == .string(Base64.encode(Array("picked".utf8))))
        #expect(read?["eof"] == true)
        #expect(client.request("writeFile", ["accessId": accessId, "base64": "eA=="])?["error"]?["code"] == -32020, "an importer's pick is read-only")
        #expect(client.call("listAccess")?["activeLeases"] == 1)
        #expect(client.call("releaseAccess", ["accessId": accessId]) == [:])
        #expect(client.request("releaseAccess", ["accessId": accessId])?["error"]?["code"] == -32022)
        #expect(client.call("listAccess")?["activeLeases"] == 0)
    }

    @Test func leasesNestAndEachIsReleasedOnce() throws {
        let client = try frontend()
        let url = try importFile(client, "picked.txt")
        let first = try #require(client.call("resolveAccess", ["url": .string(url)])?["accessId"])
        let second = try #require(client.call("resolveAccess", ["url": .string(url)])?["accessId"])
        #expect(first != second)
        #expect(client.call("listAccess")?["activeLeases"] == 2)
        #expect(client.call("releaseAccess", ["accessId": first]) == [:])
        let read = client.request("readFile", ["accessId": second])
        #expect(read?["result"]?["eof"] == true, "the other lease still works: \(String(describing: read))")
        #expect(client.call("releaseAccess", ["accessId": second]) == [:])
    }

    @Test func whatWasNotPickedIsDenied() throws {
        let client = try frontend()
        _ = try importFile(client, "picked.txt")
        #expect(client.request("resolveAccess", ["url": .string(scratch.url("other.txt"))])?["error"]?["code"] == -32020)
        let traversal = scratch.url("picked.txt") + "/../other.txt"
        let denied = client.request("resolveAccess", ["url": .string(traversal)])
        #expect(denied?["error"]?["code"] == -32020)
        #expect(denied?["error"]?["message"]?.stringValue?.contains(scratch.directory) != true, "a denial never names a path")
        #expect(client.request("releaseAccess", ["accessId": "made-up"])?["error"]?["code"] == -32022)
    }

    @Test func anotherClientCannotUseTheGrant() throws {
        let owner = try frontend(name: "editor")
        let url = try importFile(owner, "picked.txt")
        let stranger = try frontend(name: "editor")
        #expect(stranger.request("resolveAccess", ["url": .string(url)])?["error"]?["code"] == -32020)
        let resolved = owner.request("resolveAccess", ["url": .string(url)])
        let lease = try #require(resolved?["result"]?["accessId"], "\(String(describing: resolved))")
        #expect(stranger.request("releaseAccess", ["accessId": lease])?["error"]?["code"] == -32022)
        #expect(stranger.request("readFile", ["accessId": lease])?["error"] != nil)
    }

    @Test func aSymlinkSwappedInAfterTheGrantIsDetected() throws {
        let client = try frontend()
        let url = try importFile(client, "picked.txt")
        unlink(scratch.file("picked.txt"))
        symlink(scratch.file("other.txt"), scratch.file("picked.txt"))
        #expect(client.request("resolveAccess", ["url": .string(url)])?["error"]?["code"] == -32020)
    }

    @Test func bookmarksSurviveARestartAndGoStaleAfterAnAtomicSave() throws {
        let state = ScratchDirectory("wharf-state")
        let first = try frontend(["--state-dir", state.directory], name: "notes-app")
        let url = try importFile(first, "picked.txt")
        let bookmark = try #require(first.call("createBookmark", ["url": .string(url)])?["bookmark"]?.stringValue)
        #expect(bookmark.utf8.count >= 22)
        #expect(first.shutdownAndExit() == 0)

        let second = try frontend(["--state-dir", state.directory], name: "notes-app")
        let fresh = try #require(second.call("resolveAccess", ["bookmark": .string(bookmark)]))
        #expect(fresh["isStale"] == false)
        #expect(fresh["path"] == .string(scratch.file("picked.txt")))
        // An editor's save: write a new file, rename it over the old one.
        scratch.write("picked.txt.tmp", "saved again")
        rename(scratch.file("picked.txt.tmp"), scratch.file("picked.txt"))
        let stale = try #require(second.call("resolveAccess", ["bookmark": .string(bookmark)]))
        #expect(stale["isStale"] == true)
        #expect(stale["bookmark"]?.stringValue != nil)

        let otherApp = try frontend(["--state-dir", state.directory], name: "someone-else")
        #expect(otherApp.request("resolveAccess", ["bookmark": .string(bookmark)])?["error"]?["code"] == -32021)
        var edited = Array(bookmark)
        edited[edited.count / 2] = edited[edited.count / 2] == "a" ? "b" : "a"
        #expect(second.request("resolveAccess", ["bookmark": .string(String(edited))])?["error"]?["code"] == -32021)
    }

    /// A batch whose answers already fill the output budget refuses the requests whose work
    /// has not started, unrun: after a readFile's answer filled it, a writeFile behind it in
    /// the batch wrote its bytes and was answered as if nothing had happened, and a thousand
    /// 16 MiB readFiles in one batch would each read their file for an answer thrown away.
    @Test func aFullBatchRefusesWhatItHasNotRunYet() throws {
        let client = try frontend(["--max-output-bytes-per-client", "1000000"])
        let big = String(repeating: "x", count: 1 << 20)
        let id = try #require(client.present(["documents": [["writableContentTypes": ["public.plain-text"], "contents": ["text": .string(big)]]],
                                              "contentType": "public.plain-text"], method: "presentExporter"))
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("big.txt"))]) == [:])
        let url = try #require(client.ending(of: id)?["params"]?["urls"]?.arrayValue?.first)
        let lease = try #require(client.call("resolveAccess", ["url": url])?["accessId"])
        client.send([
            ["jsonrpc": "2.0", "id": "read", "method": "readFile", "params": ["accessId": lease]],
            ["jsonrpc": "2.0", "id": "write", "method": "writeFile", "params": ["accessId": lease, "base64": "eQ=="]],
        ])
        let answers = try #require(client.waitFor { $0.arrayValue != nil }?.arrayValue)
        let byID = Dictionary(uniqueKeysWithValues: answers.map { ($0["id"]?.stringValue ?? "", $0) })
        #expect(byID["read"]?["result"]?["eof"] == true, "the first answer always fits")
        #expect(byID["write"]?["error"]?["code"] == -32600, "\(answers.map { $0.jsonText.prefix(200) })")
        #expect(scratch.text("big.txt")?.first == "x", "the refused writeFile wrote nothing")
    }

    @Test func anExportersFilesAreGrantedForWriting() throws {
        let client = try frontend()
        let id = try #require(client.present(["documents": [["writableContentTypes": ["public.plain-text"], "contents": ["text": "draft"]]], "contentType": "public.plain-text"], method: "presentExporter"))
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("draft.txt"))]) == [:])
        let url = try #require(client.ending(of: id)?["params"]?["urls"]?.arrayValue?.first)
        let lease = try #require(client.call("resolveAccess", ["url": url]))
        #expect(lease["readOnly"] == false)
        #expect(client.call("writeFile", ["accessId": lease["accessId"] ?? .null, "base64": .string(Base64.encode(Array("final".utf8))), "truncate": true])?["bytesWritten"] == 5)
        #expect(scratch.text("draft.txt") == "final")
    }

    /// The write access a bookmark gave a file that the session had also picked read-only goes
    /// with the bookmark: the grant rests on it, so revoking it takes the grant (the pick too)
    /// and the lease the bookmark started writes nothing more. (Merged into the pick, the rights
    /// stayed untied and outlived the revocation: the lease wrote, and the pick became writable.)
    @Test func writeAccessFromARevokedBookmarkDoesNotStayWithAReadOnlyPick() throws {
        let state = ScratchDirectory("wharf-state")
        /// Writes draft.txt through an exporter and bookmarks it, in a session of its own.
        func exportAndBookmark() throws -> (url: String, bookmark: JSON) {
            let exporter = try frontend(["--state-dir", state.directory], name: "notes-app")
            let id = try #require(exporter.present(["documents": [["writableContentTypes": ["public.plain-text"], "contents": ["text": "draft"]]],
                                                    "contentType": "public.plain-text"], method: "presentExporter"))
            #expect(exporter.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("draft.txt")), "overwrite": true]) == [:])
            let url = try #require(exporter.ending(of: id)?["params"]?["urls"]?.arrayValue?.first?.stringValue)
            let bookmark = try #require(exporter.call("createBookmark", ["url": .string(url)])?["bookmark"])
            #expect(exporter.shutdownAndExit() == 0)
            return (url, bookmark)
        }
        // Both orders: the pick before the bookmark is resolved, and after.
        for pickFirst in [true, false] {
            let (url, bookmark) = try exportAndBookmark()
            let client = try frontend(["--state-dir", state.directory], name: "notes-app")
            if pickFirst { _ = try importFile(client, "draft.txt") }
            let throughBookmark = try #require(client.call("resolveAccess", ["bookmark": bookmark]))
            #expect(throughBookmark["readOnly"] == false)
            if !pickFirst { _ = try importFile(client, "draft.txt") }
            #expect(client.call("revokeAccess", ["bookmark": bookmark])?["revoked"] == 1)

            let write = client.request("writeFile", ["accessId": throughBookmark["accessId"] ?? .null,
                                                     "base64": .string(Base64.encode(Array("x".utf8)))])
            #expect(write?["error"]?["code"] == -32020, "the bookmark's lease writes after its revocation (pick first: \(pickFirst))")
            let again = client.request("resolveAccess", ["url": .string(url)])
            #expect(again?["error"]?["code"] == -32020, "the grant outlived the bookmark it rests on (pick first: \(pickFirst)): \(String(describing: again))")
            #expect(scratch.text("draft.txt") == "draft")
            _ = client.shutdownAndExit()
        }
    }

    /// A bookmark follows a file replaced at its path, not a path that now leads elsewhere: a
    /// folder on the way swapped for a symbolic link to another folder holding a file of the same
    /// name (the app may write where the pick was, not where the link leads) leaves the bookmark
    /// with nothing at its path. (It used to resolve, stale, to the other folder's file, and
    /// `readFile` read it; a folder's bookmark led into the other folder the same way.)
    @Test func aBookmarkIsNotLedElsewhereByAFolderOnItsPathSwappedForALink() throws {
        let state = ScratchDirectory("wharf-state")
        _ = scratch.makeDirectory("shared")
        scratch.write("shared/doc.txt", "picked")
        _ = scratch.makeDirectory("shared/folder")
        _ = scratch.makeDirectory("private")
        scratch.write("private/doc.txt", "secret")
        _ = scratch.makeDirectory("private/folder")
        scratch.write("private/folder/inside.txt", "secret too")
        let first = try frontend(["--state-dir", state.directory], name: "notes-app")
        let file = try importFile(first, "shared/doc.txt")
        let fileBookmark = try #require(first.call("createBookmark", ["url": .string(file)])?["bookmark"])
        let id = try #require(first.present(["allowedContentTypes": ["public.folder"]]))
        #expect(first.call("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url("shared/folder"))]]) == [:])
        let folder = try #require(first.ending(of: id)?["params"]?["urls"]?.arrayValue?.first?.stringValue)
        let folderBookmark = try #require(first.call("createBookmark", ["url": .string(folder)])?["bookmark"])
        #expect(first.shutdownAndExit() == 0)

        removeTree(scratch.path("shared"))
        _ = scratch.symlink("shared", to: "private")
        let second = try frontend(["--state-dir", state.directory], name: "notes-app")
        let throughFile = second.request("resolveAccess", ["bookmark": fileBookmark])
        #expect(throughFile?["error"]?["code"] == -32021, "\(String(describing: throughFile))")
        if let lease = throughFile?["result"]?["accessId"] {
            #expect(second.request("readFile", ["accessId": lease])?["result"] == nil, "the other folder's file was read")
        }
        let throughFolder = second.request("resolveAccess", ["bookmark": folderBookmark])
        #expect(throughFolder?["error"]?["code"] == -32021, "\(String(describing: throughFolder))")
        let inside = scratch.url("shared/folder") + "/inside.txt"
        #expect(second.request("resolveAccess", ["url": .string(inside)])?["error"]?["code"] == -32020)
    }

    @Test func revokedAccessIsGoneAndTheCommandLineSeesIt() throws {
        let state = ScratchDirectory("wharf-state")
        let client = try frontend(["--state-dir", state.directory], name: "revoker")
        let url = try importFile(client, "picked.txt")
        let bookmark = try #require(client.call("createBookmark", ["url": .string(url)])?["bookmark"])

        // A person sees it with `wharf access list` and takes the bookmark away by its id.
        let listed = try ChildProcess(path: wharfExecutablePath(), arguments: ["access", "list", "--state-dir", state.directory])
        #expect(listed.waitForExit(seconds: 10) == 0)
        let rows = readAll(listed.stdout).split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        let bookmarkRow = try #require(rows.first { $0.count > 6 && $0[1] == "bookmark" && $0[2] == "revoker" })
        #expect(bookmarkRow[6] == scratch.file("picked.txt"))
        let revoke = try ChildProcess(path: wharfExecutablePath(), arguments: ["access", "revoke", bookmarkRow[0], "--state-dir", state.directory])
        #expect(revoke.waitForExit(seconds: 10) == 0)
        #expect(client.request("resolveAccess", ["bookmark": bookmark])?["error"]?["code"] == -32021)

        // The app revokes its own grant through the protocol.
        #expect(client.call("revokeAccess", ["url": .string(url)])?["revoked"] == 1)
        #expect(client.request("resolveAccess", ["url": .string(url)])?["error"]?["code"] == -32020)
    }
}

/// The content-type methods over the wire.
@Suite struct ContentTypesOverTheWire {
    let scratch = ScratchDirectory()

    @Test func identifyAnswersPerPathWithoutFailingTheBatch() throws {
        scratch.write("page.html", "<html><body>hi</body></html>")
        scratch.write("lies.txt", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
        let client = try WireClient.spawn()
        client.initialize()
        let results = try #require(client.call("contentTypes/identify", ["paths": [.string(scratch.file("page.html")), .string(scratch.file("missing")), .string(scratch.url("lies.txt"))]])?["results"]?.arrayValue)
        #expect(results.count == 3)
        #expect(results[0]["identifier"] == "public.html")
        #expect(results[0]["mimeType"] == "text/html")
        #expect(results[0]["source"] == "extension" || results[0]["source"] == "magic")
        #expect(results[1]["error"]?["message"]?.stringValue?.contains("missing") == true)
        #expect(results[2]["identifier"] != nil)
    }

    /// One `contentTypes/describe` answers about 4 MiB of descriptions at most; the rest of its
    /// identifiers get an error entry each, so a short request naming one large type many times
    /// cannot make a huge answer (it had: 261 MB for 1,000 names of a deep declared type).
    @Test func oneDescribeAnswersAtMostItsBoundOfDescriptions() throws {
        let client = try WireClient.spawn()
        client.initialize()
        let description = String(repeating: "é", count: 4096)
        _ = try #require(client.call("contentTypes/declare", ["types": [["identifier": "com.example.wordy", "conformsTo": ["public.data"],
                                                                        "description": .string(description)]]]))
        let types = try #require(client.call("contentTypes/describe", ["identifiers": .array(Array(repeating: "com.example.wordy", count: 1000))],
                                             timeout: 30)?["types"]?.arrayValue)
        #expect(types.count == 1000)
        let described = types.filter { $0["description"]?.stringValue == description }.count
        #expect(described > 400 && described < 520, "\(described) described (8 KiB each, 4 MiB in all)")
        #expect(types.prefix(described).allSatisfy { $0["error"] == nil }, "those described come first")
        #expect(types[999]["error"]?["message"]?.stringValue?.contains("describe it in another request") == true)
        #expect(types[999]["identifier"] == "com.example.wordy")
    }

    @Test func describeConformsAndLookups() throws {
        let client = try WireClient.spawn()
        client.initialize()
        let png = try #require(client.call("contentTypes/describe", ["identifiers": ["public.png", "com.example.unknown"]])?["types"]?.arrayValue)
        #expect(png[0]["preferredFilenameExtension"] == "png")
        #expect(png[0]["supertypes"]?.arrayValue?.contains("public.image") == true)
        #expect(png[1]["error"] != nil)
        #expect(client.call("contentTypes/conforms", ["identifier": "public.folder", "to": "public.item"])?["conforms"] == true)
        #expect(client.call("contentTypes/conforms", ["identifier": "public.png", "to": "public.text"])?["conforms"] == false)
        #expect(client.request("contentTypes/conforms", ["identifier": "nope.nope", "to": "public.item"])?["error"]?["code"] == -32602)
        #expect(client.call("contentTypes/fromFilenameExtension", ["filenameExtension": "pdf"])?["identifier"] == "com.adobe.pdf")
        #expect(client.call("contentTypes/fromMIMEType", ["mimeType": "image/jpeg"])?["identifier"] == "public.jpeg")
        let filters = client.call("contentTypes/filters", ["identifiers": ["public.item"]])
        #expect(filters?["allowsAllFiles"] == true)
    }

    @Test func declarationsAreValidatedAndBelongToTheClient() throws {
        let client = try WireClient.spawn()
        client.initialize()
        let cycle = client.request("contentTypes/declare", ["types": [
            ["identifier": "com.example.a", "conformsTo": ["com.example.b"]],
            ["identifier": "com.example.b", "conformsTo": ["com.example.a"]],
        ]])
        #expect(cycle?["error"]?["code"] == -32602)
        #expect(client.request("contentTypes/declare", ["types": [["identifier": "", "conformsTo": ["public.data"]]]])?["error"]?["code"] == -32602)
        #expect(client.request("contentTypes/declare", ["types": [["identifier": "com.example.x", "conformsTo": ["com.example.missing"]]]])?["error"]?["message"]?.stringValue?.contains("com.example.missing") == true)
        #expect(client.call("contentTypes/declare", ["types": [["identifier": "com.example.sketch", "conformsTo": ["public.data"], "filenameExtensions": ["sketch"]]]])?["declared"] == ["com.example.sketch"])
        #expect(client.call("contentTypes/fromFilenameExtension", ["filenameExtension": "sketch"])?["identifier"] == "com.example.sketch")
        let other = try WireClient.spawn()
        other.initialize()
        #expect(other.call("contentTypes/fromFilenameExtension", ["filenameExtension": "sketch"])?["identifier"] != "com.example.sketch")
    }

    @Test func theTypesCommandIdentifiesDescribesAndConforms() throws {
        scratch.write("a.json", "{}")
        let identify = try ChildProcess(path: wharfExecutablePath(), arguments: ["types", "identify", scratch.file("a.json")])
        #expect(identify.waitForExit(seconds: 10) == 0)
        #expect(readAll(identify.stdout) == "\(scratch.file("a.json"))\tpublic.json\tapplication/json\textension\n")
        let conforms = try ChildProcess(path: wharfExecutablePath(), arguments: ["types", "conforms", "public.json", "public.text"])
        #expect(conforms.waitForExit(seconds: 10) == 0)
        let not = try ChildProcess(path: wharfExecutablePath(), arguments: ["types", "conforms", "public.png", "public.text"])
        #expect(not.waitForExit(seconds: 10) == 1)
        let describe = try ChildProcess(path: wharfExecutablePath(), arguments: ["types", "describe", "public.png"])
        #expect(describe.waitForExit(seconds: 10) == 0)
        #expect(readAll(describe.stdout).contains("image/png"))
    }
}
