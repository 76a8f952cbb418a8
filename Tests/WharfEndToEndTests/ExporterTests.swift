import Glibc
import Testing
import WharfJSON
import WharfSystem
import WharfServerTestSupport
import WharfTestSupport

/// `presentExporter`: both SwiftUI forms, destinations, lazy snapshots, atomic writes.
@Suite struct ExporterOverTheWire {
    let scratch = ScratchDirectory()

    func textDocument(_ text: String, filename: String? = nil, types: JSON = ["public.plain-text"]) -> JSON {
        var document: JSONObject = ["writableContentTypes": types, "contents": ["text": .string(text)]]
        if let filename { document["filename"] = .string(filename) }
        return .object(document)
    }

    /// Answers the next `exporter/snapshot` request with `answer` (a result, or an error object).
    func answerSnapshot(_ client: WireClient, result: JSON? = nil, error: JSON? = nil) -> JSON? {
        guard let request = client.waitFor(timeout: 10, { $0["method"] == "exporter/snapshot" }) else { return nil }
        var response: JSONObject = ["jsonrpc": "2.0", "id": request["id"] ?? .null]
        if let result { response["result"] = result }
        if let error { response["error"] = error }
        client.send(.object(response))
        return request
    }

    @Test func aValueDocumentIsSavedWhereTheScriptSays() throws {
        let client = try scripted([["save": ["path": .string(scratch.file("out/report.txt"))]]], in: scratch)
        scratch.makeDirectory("out")
        let id = try #require(client.present(["documents": [textDocument("quarterly")], "contentType": "public.plain-text"], method: "presentExporter"))
        let ending = try #require(client.ending(of: id))
        #expect(ending["params"]?["urls"] == [.string(scratch.url("out/report.txt"))])
        #expect(ending["params"]?["contentTypes"] == ["public.plain-text"])
        #expect(ending["params"]?["kind"] == "exporter")
        #expect(scratch.text("out/report.txt") == "quarterly")
        #expect(scratch.contents("out") == ["report.txt"], "no temporary file left behind")
        client.settle()
        #expect(methods(client.events(of: id)) == ["dialog/presentationChanged", "dialog/completed"])
    }

    @Test func moreDocumentsThanTheLimitAreRefusedAndNothingIsPresented() throws {
        let client = try frontend()
        let document: JSON = ["filename": "a", "writableContentTypes": ["public.plain-text"], "contents": ["text": "a"]]
        let response = client.request("presentExporter", ["documents": .array(Array(repeating: document, count: 257))])
        #expect(response?["error"]?["code"] == -32602)
        #expect(response?["error"]?["message"]?.stringValue?.contains("at most 256") == true)
        let accepted = client.request("presentExporter", ["documents": .array(Array(repeating: document, count: 256))])
        #expect(accepted?["result"]?["dialogId"] != nil)
        client.settle()
        #expect(client.messages.filter { $0["method"] == "presenter/show" }.count == 1)
    }

    @Test func emptyDocumentsAreRefusedAndNothingIsPresented() throws {
        let client = try frontend()
        let response = client.request("presentExporter", ["documents": [], "contentType": "public.plain-text"])
        #expect(response?["error"]?["code"] == -32602)
        #expect(response?["error"]?["message"]?.stringValue?.contains("documents must not be empty") == true)
        client.settle()
        #expect(client.messages.allSatisfy { $0["method"] != "presenter/show" })
    }

    @Test func aContentTypeOutsideTheWritableOnesFallsBackToTheFirstWritable() throws {
        let client = try frontend()
        let id = try #require(client.present([
            "documents": [["filename": "notes", "writableContentTypes": ["net.daringfireball.markdown", "public.plain-text"], "contents": ["text": "# hi"]]],
            "contentType": "com.adobe.pdf",
        ], method: "presentExporter"))
        let show = try #require(client.notification("presenter/show")?["params"])
        #expect(show["kind"] == "exporter")
        #expect(show["filename"] == "notes.md")
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("notes.md"))]) == [:])
        #expect(client.ending(of: id)?["params"]?["contentTypes"] == ["net.daringfireball.markdown"])
        #expect(scratch.text("notes.md") == "# hi")
    }

    /// The human's pick of a type names the file (`n.png`): a type no document can be written as
    /// was offered, and picking it wrote the plain text under the PNG's name. It is refused
    /// before anything is shown; a type one of several documents can be written as is offered,
    /// the others taking their first writable type as SwiftUI's rule says.
    @Test func aTypeNoDocumentCanBeWrittenAsIsNeverOffered() throws {
        let client = try frontend()
        let plain = textDocument("hi", filename: "n")
        let refused = client.request("presentExporter", ["documents": [plain], "contentTypes": ["public.png", "public.plain-text"]])
        #expect(refused?["error"]?["code"] == -32602)
        #expect(refused?["error"]?["message"]?.stringValue?.contains("contentTypes names public.png") == true, "\(String(describing: refused))")
        client.settle()
        #expect(client.messages.allSatisfy { $0["method"] != "presenter/show" })

        _ = try #require(client.present([
            "documents": [plain, textDocument("<p>", filename: "page", types: ["public.html"])],
            "contentTypes": ["Public.Plain-Text", "public.html"],
        ], method: "presentExporter"))
        let show = try #require(client.notification("presenter/show")?["params"])
        #expect(show["contentTypes"] == ["Public.Plain-Text", "public.html"])
        #expect(show["contentTypeChoices"]?.arrayValue?.first?["filenames"] == ["n.txt", "page.html"])
    }

    @Test func theWritableDocumentFormOffersTypesAndHonoursTheChoice() throws {
        let client = try frontend()
        let id = try #require(client.present([
            "documents": [["filename": "data", "writableContentTypes": ["public.json", "public.plain-text"], "contents": ["text": "{}"]]],
            "options": ["filenameLabel": "Export As:"],
        ], method: "presentExporter"))
        let show = try #require(client.notification("presenter/show")?["params"])
        #expect(show["contentTypes"] == ["public.json", "public.plain-text"])
        #expect(show["filenameLabel"] == "Export As:")
        let rejected = client.request("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("data.pdf")), "contentType": "com.adobe.pdf"])
        #expect(rejected?["error"]?["code"] == -32015)
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("data.txt")), "contentType": "public.plain-text"]) == [:])
        #expect(client.ending(of: id)?["params"]?["contentTypes"] == ["public.plain-text"])
    }

    /// A type is chosen whatever the case it is spelt in, as identifiers are compared wherever
    /// one is given (protocol/README, Content types): a frontend choosing public.html, the
    /// spelling contentTypes/describe gives, in a dialog that offered Public.HTML was refused
    /// choiceRejected ("not one this dialog offers (Public.HTML)"), and two spellings of one
    /// type were offered as two types.
    @Test func aChosenTypeIsMatchedWhateverItsCase() throws {
        let client = try frontend()
        let document: JSON = ["filename": "page", "writableContentTypes": ["public.plain-text", "public.html"], "contents": ["text": "<p>"]]
        let twice = try #require(client.present([
            "documents": [document], "contentTypes": ["Public.HTML", "public.plain-text", "public.html"],
        ], method: "presentExporter"))
        let show = try #require(client.notification("presenter/show")?["params"])
        #expect(show["contentTypes"] == ["Public.HTML", "public.plain-text"])
        #expect(client.call("cancel", ["dialogId": .string(twice)]) == ["cancelled": true])
        let id = try #require(client.present([
            "documents": [document], "contentTypes": ["Public.HTML", "public.plain-text"],
        ], method: "presentExporter"))
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("page.html")), "contentType": "public.html"]) == [:])
        let ending = client.ending(of: id)?["params"]
        #expect(ending?["contentTypes"] == ["Public.HTML"], "written as the offered type, under its offered spelling: \(ending?.jsonText ?? "")")
        #expect(ending?["urls"] == [.string(scratch.url("page.html"))])
    }

    @Test func eachOfferedTypeComesWithItsDescriptionAndTheNamesItWrites() throws {
        let client = try frontend()
        scratch.makeDirectory("out")
        let writable: JSON = ["public.json", "public.plain-text"]
        let id = try #require(client.present([
            "documents": [["filename": "first", "writableContentTypes": writable, "contents": ["text": "1"]],
                          ["filename": "second", "writableContentTypes": writable, "contents": ["text": "2"]]],
        ], method: "presentExporter"))
        let show = try #require(client.notification("presenter/show")?["params"])
        let choices = try #require(show["contentTypeChoices"]?.arrayValue)
        #expect(choices.map { $0["contentType"] } == show["contentTypes"]?.arrayValue)
        #expect(choices.map { $0["filenames"] } == [["first.json", "second.json"], ["first.txt", "second.txt"]])
        #expect(choices.allSatisfy { ($0["description"]?.stringValue?.isEmpty) == false }, "\(choices)")
        // What the second choice said is what choosing it writes.
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("out")), "contentType": "public.plain-text"]) == [:])
        _ = client.ending(of: id)
        #expect(scratch.contents("out") == ["first.txt", "second.txt"])
    }

    @Test func anExistingFileIsReplacedOnlyWithOverwrite() throws {
        scratch.write("keep.txt", "original")
        let client = try frontend()
        let id = try #require(client.present(["documents": [textDocument("new")], "contentType": "public.plain-text"], method: "presentExporter"))
        let refused = client.request("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("keep.txt"))])
        #expect(refused?["error"]?["code"] == -32016)
        #expect(scratch.text("keep.txt") == "original")
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("keep.txt")), "overwrite": true]) == [:])
        _ = client.ending(of: id)
        #expect(scratch.text("keep.txt") == "new")
    }

    @Test func severalDocumentsGoIntoAChosenDirectoryUnderTheirOwnNames() throws {
        let client = try frontend()
        scratch.makeDirectory("bundle")
        let id = try #require(client.present([
            "documents": [textDocument("one", filename: "first"), textDocument("two", filename: "second")],
            "contentType": "public.plain-text",
        ], method: "presentExporter"))
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("bundle"))]) == [:])
        let ending = try #require(client.ending(of: id))
        #expect(ending["params"]?["urls"] == [.string(scratch.url("bundle/first.txt")), .string(scratch.url("bundle/second.txt"))])
        #expect(scratch.contents("bundle") == ["first.txt", "second.txt"])
    }

    @Test func severalDocumentsAreAllOrNothing() throws {
        let client = try frontend()
        scratch.makeDirectory("partial")
        scratch.write("partial/second.txt", "in the way")
        let id = try #require(client.present([
            "documents": [textDocument("one", filename: "first"), textDocument("two", filename: "second")],
            "contentType": "public.plain-text",
        ], method: "presentExporter"))
        #expect(client.request("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("partial"))])?["error"]?["code"] == -32016)
        #expect(scratch.contents("partial") == ["second.txt"], "nothing written when one destination is refused")
    }

    @Test func base64AndPathContentsAreWrittenExactly() throws {
        let bytes: [UInt8] = (0..<256).map { UInt8($0) }
        let source = scratch.write("source.bin", bytes)
        let client = try frontend()
        let first = try #require(client.present(["documents": [["writableContentTypes": ["public.data"], "contents": ["base64": .string(Base64.encode(bytes))]]], "contentType": "public.data"], method: "presentExporter"))
        #expect(client.call("dialog/choose", ["dialogId": .string(first), "url": .string(scratch.url("from-base64.bin"))]) == [:])
        _ = client.ending(of: first)
        let second = try #require(client.present(["documents": [["writableContentTypes": ["public.data"], "contents": ["path": .string(source.description)]]], "contentType": "public.data"], method: "presentExporter"))
        #expect(client.call("dialog/choose", ["dialogId": .string(second), "url": .string(scratch.url("from-path.bin"))]) == [:])
        _ = client.ending(of: second)
        #expect(scratch.text("from-base64.bin").map { Array($0.utf8) } == scratch.text("source.bin").map { Array($0.utf8) })
        #expect(scratch.text("from-path.bin") == scratch.text("source.bin"))
        let bad = client.request("presentExporter", ["documents": [["writableContentTypes": ["public.data"], "contents": ["base64": "not base64!"]]]])
        #expect(bad?["error"]?["code"] == -32602)
    }

    @Test func aBase64DocumentOfSeveralMiBIsWrittenByteForByte() throws {
        // 6 MiB of every byte value (8 MiB of base64): many reads, more than a pipe holds.
        let bytes = (0..<(6 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 167 &+ $0 >> 11) }
        let client = try scripted([["save": ["path": .string(scratch.file("big.bin"))]]], in: scratch)
        let id = try #require(client.present(["documents": [["writableContentTypes": ["public.data"], "contents": ["base64": .string(Base64.encode(bytes))]]], "contentType": "public.data"], method: "presentExporter"))
        let ending = try #require(client.ending(of: id, timeout: 30))
        #expect(ending["method"] == "dialog/completed")
        #expect(try fileBytes(scratch.file("big.bin")) == bytes)
    }

    @Test func aLazyDocumentIsSnapshottedAfterTheDestinationIsChosen() throws {
        let client = try frontend()
        let id = try #require(client.present(["documents": [["filename": "lazy", "writableContentTypes": ["public.plain-text"]]]], method: "presentExporter"))
        client.settle()
        #expect(client.messages.allSatisfy { $0["method"] != "exporter/snapshot" }, "no snapshot before the human has chosen")
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("lazy.txt"))]) == [:])
        let request = answerSnapshot(client, result: ["text": "made on demand"])
        #expect(request?["params"]?["dialogId"] == .string(id))
        #expect(request?["params"]?["documentIndex"] == 0)
        #expect(request?["params"]?["contentType"] == "public.plain-text")
        #expect(client.ending(of: id)?["method"] == "dialog/completed")
        #expect(scratch.text("lazy.txt") == "made on demand")
    }

    @Test func aSnapshotErrorFailsTheDialogAndWritesNothing() throws {
        let client = try frontend()
        let id = try #require(client.present(["documents": [["filename": "lazy", "writableContentTypes": ["public.plain-text"]]]], method: "presentExporter"))
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("lazy.txt"))]) == [:])
        _ = answerSnapshot(client, error: ["code": -1, "message": "the editor could not render"])
        let ending = try #require(client.ending(of: id))
        #expect(ending["params"]?["error"]?["code"] == -32041)
        #expect(ending["params"]?["error"]?["message"]?.stringValue?.contains("could not render") == true)
        #expect(!scratch.exists("lazy.txt"))
    }

    @Test func aSnapshotNamingNothingOrAFolderFailsAsASnapshotAndWritesNothing() throws {
        let folder = scratch.makeDirectory("a-folder")
        for (answer, says) in [(scratch.file("missing.txt"), "missing.txt"), (folder.description, "is a folder")] {
            let client = try frontend()
            let id = try #require(client.present(["documents": [["filename": "lazy", "writableContentTypes": ["public.plain-text"]]]], method: "presentExporter"))
            #expect(client.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("lazy.txt"))]) == [:])
            _ = answerSnapshot(client, result: ["path": .string(answer)])
            let ending = try #require(client.ending(of: id))
            #expect(ending["params"]?["error"]?["code"] == -32041, "snapshotFailed, not a write that failed: \(ending)")
            let message = ending["params"]?["error"]?["message"]?.stringValue ?? ""
            #expect(message.contains("result.path") && message.contains(says), "\(message)")
            #expect(!scratch.exists("lazy.txt"))
        }
    }

    @Test func cancellingWhileASnapshotIsPendingWritesNothing() throws {
        let client = try frontend()
        let id = try #require(client.present(["documents": [["filename": "lazy", "writableContentTypes": ["public.plain-text"]]]], method: "presentExporter"))
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("lazy.txt"))]) == [:])
        let snapshot = try #require(client.waitFor(timeout: 10) { $0["method"] == "exporter/snapshot" })
        #expect(client.call("cancel", ["dialogId": .string(id)])?["cancelled"] == true)
        let ending = try #require(client.ending(of: id))
        #expect(ending["method"] == "dialog/cancelled" || ending["params"]?["error"] != nil)
        // The app's answer to the snapshot request it already had comes after the cancel.
        client.send(["jsonrpc": "2.0", "id": snapshot["id"] ?? .null, "result": ["text": "too late"]])
        client.settle()
        #expect(!scratch.exists("lazy.txt"))
    }

    @Test func disconnectingWhileASnapshotIsPendingWritesNothing() throws {
        let client = try frontend()
        let id = try #require(client.present(["documents": [["filename": "lazy", "writableContentTypes": ["public.plain-text"]]]], method: "presentExporter"))
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("lazy.txt"))]) == [:])
        #expect(client.waitFor(timeout: 10) { $0["method"] == "exporter/snapshot" } != nil)
        client.closeInput()
        #expect(client.waitForExit() == 1)
        #expect(client.ending(of: id, timeout: 0) != nil)
        #expect(!scratch.exists("lazy.txt"))
        #expect(scratch.contents().allSatisfy { !$0.hasPrefix(".wharf-tmp") })
    }

    /// The chosen folder is swapped for a symlink to another folder while the app holds its
    /// lazy document back (over the daemon, a sandboxed app can do this to any folder it may
    /// write, and it decides when the snapshot comes). The export must not follow the link: it
    /// would write the app's bytes into a folder the human never chose, and grant the app the
    /// file there.
    @Test func aChosenFolderSwappedForASymlinkIsNeverWrittenThrough() throws {
        scratch.makeDirectory("chosen")
        let elsewhere = scratch.makeDirectory("elsewhere")
        let client = try frontend()
        let id = try #require(client.present(["documents": [["filename": "lazy", "writableContentTypes": ["public.plain-text"]]]], method: "presentExporter"))
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("chosen/lazy.txt"))]) == [:])
        let snapshot = try #require(client.waitFor(timeout: 10) { $0["method"] == "exporter/snapshot" })
        move(scratch.path("chosen"), to: scratch.path("moved"))
        _ = scratch.symlink("chosen", to: elsewhere)
        client.send(["jsonrpc": "2.0", "id": snapshot["id"] ?? .null, "result": ["text": "planted"]])
        let ending = try #require(client.ending(of: id))
        #expect(ending["params"]?["error"]?["code"] == -32030, "fileOperationFailed: \(ending)")
        #expect(ending["params"]?["urls"] == nil)
        #expect(scratch.contents("elsewhere").isEmpty, "nothing written through the link")
        #expect(scratch.contents("moved").isEmpty)
        client.settle()
        #expect(client.request("resolveAccess", ["url": .string(scratch.url("chosen/lazy.txt"))])?["error"] != nil, "no grant")
    }

    @Test func largeExportsReportProgressBeforeCompleting() throws {
        let big = scratch.write("big.bin", [UInt8](repeating: 7, count: 8 << 20))
        let client = try frontend()
        let id = try #require(client.present(["documents": [["writableContentTypes": ["public.data"], "contents": ["path": .string(big.description)]]], "contentType": "public.data"], method: "presentExporter"))
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("copy.bin"))]) == [:])
        _ = client.ending(of: id)
        let events = client.events(of: id)
        let progress = events.filter { $0["method"] == "dialog/progress" }
        #expect(!progress.isEmpty)
        #expect(progress.last?["params"]?["totalBytes"] == .int(8 << 20))
        let lastProgress = try #require(events.lastIndex { $0["method"] == "dialog/progress" })
        let completion = try #require(events.firstIndex { $0["method"] == "dialog/completed" })
        #expect(lastProgress < completion)
    }

    /// A snapshot that names a FIFO nobody ever writes to (the app crashed, or forgot): the
    /// export waits for a writer, and a `cancel`, or the app going away, still ends it. Opening
    /// the FIFO used to wait for a writer with nothing able to interrupt it: the dialog never
    /// ended and the server never exited.
    @Test(arguments: ["cancel", "disconnect"])
    func anExportWaitingOnAFIFOThatNobodyWritesStillEnds(_ how: String) throws {
        let fifo = scratch.file("never-written-\(how).fifo")
        mkfifo(fifo, 0o644)
        let client = try frontend()
        let id = try #require(client.present(["documents": [["writableContentTypes": ["public.data"]]], "contentType": "public.data"], method: "presentExporter"))
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("never-\(how).bin"))]) == [:])
        _ = answerSnapshot(client, result: ["path": .string(fifo)])
        var tries = 0
        while !scratch.contents().contains(where: { $0.hasPrefix(".wharf-tmp") }) && tries < 500 { usleep(10_000); tries += 1 }
        #expect(scratch.contents().contains { $0.hasPrefix(".wharf-tmp") }, "the write was under way")
        if how == "cancel" {
            #expect(client.call("cancel", ["dialogId": .string(id)])?["cancelled"] == true)
            let ending = try #require(client.ending(of: id, timeout: 10))
            #expect(ending["method"] == "dialog/cancelled", "\(ending)")
            #expect(client.shutdownAndExit() == 0)
        } else {
            client.closeInput()
            #expect(client.waitForExit(timeout: 10) == 1, "the session ends: the export is rolled back, not waited for")
            #expect(client.ending(of: id, timeout: 0) != nil)
        }
        #expect(!scratch.exists("never-\(how).bin"))
        #expect(scratch.contents().allSatisfy { !$0.hasPrefix(".wharf-tmp") }, "\(scratch.contents())")
    }

    @Test func aServerKilledMidWriteLeavesNoPartialFileAndTheOrphanIsCleanedAtRestart() throws {
        let state = ScratchDirectory("wharf-state")
        let fifo = scratch.file("slow.fifo")
        mkfifo(fifo, 0o644)
        let client = try frontend(["--state-dir", state.directory])
        // A lazy document whose snapshot is a FIFO: the server copies what we feed it and waits
        // for the rest, so it can be killed in the middle of writing.
        let id = try #require(client.present(["documents": [["writableContentTypes": ["public.data"]]], "contentType": "public.data"], method: "presentExporter"))
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("result.bin"))]) == [:])
        _ = answerSnapshot(client, result: ["path": .string(fifo)])
        // Feed the copy part of its data, then kill the server while it waits for the rest.
        let writer = open(fifo, O_WRONLY)
        let chunk = [UInt8](repeating: 1, count: 1 << 20)
        _ = chunk.withUnsafeBytes { write(writer, $0.baseAddress!, $0.count) }
        var tries = 0
        while !scratch.contents().contains(where: { $0.hasPrefix(".wharf-tmp") }) && tries < 500 { usleep(10_000); tries += 1 }
        #expect(scratch.contents().contains { $0.hasPrefix(".wharf-tmp") }, "the write was under way")
        // The store is open, so it is marked in use: that marker tells the next server to sweep.
        let marker = try #require(state.contents("running").first)
        let child = try #require(client.process)
        child.kill(SIGKILL)
        close(writer)
        _ = child.waitForExit(seconds: 10)
        #expect(!scratch.exists("result.bin"), "never a partial destination file")

        // Removed by the next server, in the background as it starts (initialize does not wait).
        let restarted = try frontend(["--state-dir", state.directory])
        let deadline = Deadline(secondsFromNow: 10)
        while scratch.contents().contains(where: { $0.hasPrefix(".wharf-tmp") }) && !deadline.hasPassed { usleep(10_000) }
        #expect(scratch.contents().allSatisfy { !$0.hasPrefix(".wharf-tmp") }, "the orphan is removed at the next start: \(scratch.contents())")
        // Once swept, the dead server's marker goes (the sweeping server has its own now).
        while state.contents("running").contains(marker) && !deadline.hasPassed { usleep(10_000) }
        #expect(!state.contents("running").contains(marker), "\(state.contents("running"))")
        #expect(restarted.shutdownAndExit() == 0)
    }
}

/// A file's exact bytes (the scratch directory reads text).
private func fileBytes(_ path: String) throws -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw SystemError.current("open", path: path) }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count >= 0 else { throw SystemError.current("read", path: path) }
        if count == 0 { return bytes }
        bytes += chunk[..<count]
    }
}
