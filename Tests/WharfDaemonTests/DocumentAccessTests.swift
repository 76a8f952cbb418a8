import Glibc
import Testing
import WharfJSON
import WharfServerTestSupport
import WharfSystem
import WharfTestSupport

/// Over the socket, a document's `path` names a file only through a grant; any other file is
/// passed open (`SCM_RIGHTS`). And the people's side, `wharf access`, works beside the daemon.
@Suite struct DocumentAccess {
    /// A script presenter that saves every exporter into `out/`.
    private func exportingDaemon(_ scratch: ScratchDirectory, count: Int = 4) throws -> DaemonProcess {
        scratch.makeDirectory("out")
        let steps = (0..<count).map { index -> JSON in ["save": ["path": .string(scratch.file("out/saved-\(index).txt"))]] }
        return try scriptedDaemon(.array(steps))
    }

    private func exporter(_ contents: JSON) -> JSON {
        [
            "jsonrpc": "2.0", "id": 77, "method": "presentExporter",
            "params": ["documents": [["writableContentTypes": ["public.plain-text"], "contents": contents]]],
        ]
    }

    @Test func aPassedDescriptorIsExported() throws {
        let scratch = ScratchDirectory("wharf-fd")
        let daemon = try exportingDaemon(scratch)
        let source = scratch.write("elsewhere/source.txt", "bytes the client could read")
        let client = try daemon.client("writer")
        let file = try FileDescriptor.open(source, O_RDONLY)
        var skipped = [UInt8](repeating: 0, count: 5)
        _ = try skipped.withUnsafeMutableBytes { try file.read(into: $0) }  // its offset moves
        try client.send(exporter(["fd": 0]), passing: [file])
        let dialog = try #require(client.response(to: 77)?["result"]?["dialogId"]?.stringValue)
        let ending = try #require(client.ending(of: dialog))
        #expect(ending["params"]?["urls"] == [.string(scratch.url("out/saved-0.txt"))])
        #expect(try String(decoding: readFile(scratch.path("out/saved-0.txt")), as: UTF8.self) == "bytes the client could read",
                "read from the start, whatever the client's offset")

        // Each passed descriptor is used once; a number never passed is refused.
        let again = try #require(client.request("presentExporter", ["documents": [["writableContentTypes": ["public.plain-text"], "contents": ["fd": 0]]]]))
        #expect(again["error"]?["code"] == -32602)
        #expect(again["error"]?["message"]?.stringValue?.contains("documents[0].contents.fd") == true)
    }

    @Test func aDescriptorNotOpenForReadingIsRefused() throws {
        let scratch = ScratchDirectory("wharf-fd")
        let daemon = try exportingDaemon(scratch)
        let target = scratch.write("write-only.txt", "secret")
        let client = try daemon.client("writer")
        try client.send(exporter(["fd": 0]), passing: [try FileDescriptor.open(target, O_WRONLY)])
        let refused = try #require(client.response(to: 77))
        #expect(refused["error"]?["code"] == -32602)
        #expect(refused["error"]?["message"]?.stringValue?.contains("not open for reading") == true)
    }

    /// A device is refused: /dev/zero was accepted and "read to its end", and the export's
    /// hidden temporary grew at about 75 MB/s until the dialog was cancelled. A FIFO is still
    /// read to its end.
    @Test func aDeviceIsRefusedAndAFIFOIsRead() throws {
        let scratch = ScratchDirectory("wharf-fd")
        let daemon = try exportingDaemon(scratch)
        let client = try daemon.client("writer")
        try client.send(exporter(["fd": 0]), passing: [try FileDescriptor.open(FilePath("/dev/zero"), O_RDONLY)])
        // Required: without it the export would go on writing zeros.
        let refused = try #require(client.response(to: 77)?["error"], "/dev/zero was accepted")
        #expect(refused["code"] == -32602)
        let message = refused["message"]?.stringValue ?? ""
        #expect(message.contains("documents[0].contents.fd") && message.contains("a character device"), "\(message)")

        let (readEnd, writeEnd) = try FileDescriptor.pipe()
        try writeEnd.write(all: Array("through a pipe".utf8))
        writeEnd.close()
        try client.send(exporter(["fd": 1]), passing: [readEnd])
        let dialog = try #require(client.response(to: 77)?["result"]?["dialogId"]?.stringValue)
        #expect(client.ending(of: dialog)?["method"] == "dialog/completed")
        #expect(try String(decoding: readFile(scratch.path("out/saved-0.txt")), as: UTF8.self) == "through a pipe")
    }

    /// Each `fd` or `path` document is a descriptor the daemon holds until its exporter ends:
    /// one app's connections together hold at most `--max-open-documents-per-app`, and each
    /// comes back when its exporter ends.
    @Test func anAppsOpenDocumentsAreBounded() throws {
        let scratch = ScratchDirectory("wharf-fd")
        // The first exporter is shown and waits a minute; the rest wait behind it: all stay open.
        let daemon = try scriptedDaemon([["delayMs": 60_000]], arguments: ["--max-open-documents-per-app", "3"])
        let source = scratch.write("source.txt", "bytes")
        func documents(_ numbers: [Int]) -> JSON {
            .array(numbers.map { ["writableContentTypes": ["public.plain-text"], "contents": ["fd": .int(Int64($0))]] })
        }
        func present(_ client: WireClient, id: Int, passing numbers: [Int]) throws -> JSON? {
            let files = try numbers.map { _ in try FileDescriptor.open(source, O_RDONLY) }
            try client.send(["jsonrpc": "2.0", "id": .int(Int64(id)), "method": "presentExporter",
                             "params": ["documents": documents(numbers)]], passing: files)
            return client.response(to: .int(Int64(id)))
        }
        let first = try daemon.client("first")
        let second = try daemon.client("second")  // the same app: this test's process
        let held = try #require(try present(first, id: 1, passing: [0, 1])?["result"]?["dialogId"]?.stringValue)
        let refused = try #require(try present(second, id: 2, passing: [0, 1]))
        #expect(refused["error"]?["code"] == -32012)
        let message = refused["error"]?["message"]?.stringValue ?? ""
        #expect(message.contains("documents[1].contents") && message.contains("--max-open-documents-per-app"), "\(message)")
        #expect(try present(second, id: 3, passing: [2])?["result"]?["dialogId"] != nil, "the third fits")
        // The first exporter cancelled, its two descriptors are closed and count no more.
        #expect(first.call("cancel", ["dialogId": .string(held)]) == ["cancelled": true])
        #expect(try present(second, id: 4, passing: [3, 4])?["result"]?["dialogId"] != nil)
    }

    /// The bytes of `text` documents are held in the daemon's memory until their exporter ends:
    /// one app's connections together hold at most `--max-document-bytes-per-app`.
    @Test func anAppsDocumentBytesAreBounded() throws {
        let daemon = try scriptedDaemon([["delayMs": 60_000]], arguments: ["--max-document-bytes-per-app", "65536"])
        func text(_ count: Int, type: JSON = "public.plain-text") -> JSON {
            ["documents": [["writableContentTypes": [type], "contents": ["text": .string(String(repeating: "w", count: count))]]]]
        }
        let first = try daemon.client("first")
        let second = try daemon.client("second")  // the same app: this test's process
        // An importer is shown and waits a minute; the exporters wait behind it, all open.
        _ = try #require(first.call("presentImporter", ["allowedContentTypes": ["public.item"]])?["dialogId"])
        // One exporter larger than the budget goes when the app holds nothing else.
        let alone = try #require(first.call("presentExporter", text(100_000))?["dialogId"]?.stringValue)
        #expect(first.call("cancel", ["dialogId": .string(alone)]) == ["cancelled": true])
        let held = try #require(first.call("presentExporter", text(40_000))?["dialogId"]?.stringValue)
        let refused = try #require(second.request("presentExporter", text(40_000)))
        #expect(refused["error"]?["code"] == -32012)
        let message = refused["error"]?["message"]?.stringValue ?? ""
        #expect(message.contains("--max-document-bytes-per-app"), "\(message)")
        // Bad params are told as bad params, over the budget or not.
        let malformed = try #require(second.request("presentExporter", text(40_000, type: "com.example.no-such-type")))
        #expect(malformed["error"]?["code"] == -32602, "\(malformed)")
        #expect(second.call("presentExporter", text(20_000))?["dialogId"] != nil, "60,000 bytes fit")
        #expect(first.call("cancel", ["dialogId": .string(held)]) == ["cancelled": true])
        #expect(second.call("presentExporter", text(40_000))?["dialogId"] != nil, "the cancelled exporter's bytes count no more")
    }

    @Test func aPathIsReadOnlyThroughAGrant() throws {
        let scratch = ScratchDirectory("wharf-fd")
        scratch.makeDirectory("out")
        let picked = scratch.write("picked.txt", "picked by the human")
        scratch.write("other.txt", "never picked")
        let daemon = try scriptedDaemon([
            ["choose": [.string(picked.description)]],
            ["save": ["path": .string(scratch.file("out/copy.txt"))]],
        ])
        let client = try daemon.client("writer")
        let denied = try #require(client.request("presentExporter", ["documents": [[
            "writableContentTypes": ["public.plain-text"], "contents": ["path": .string(scratch.file("other.txt"))],
        ]]]))
        #expect(denied["error"]?["code"] == -32020)
        #expect(denied["error"]?["message"]?.stringValue?.contains("pass the open file") == true)

        let importer = try #require(client.presentImporter())
        #expect(client.ending(of: importer)?["method"] == "dialog/completed")
        let exporter = try #require(client.call("presentExporter", ["documents": [[
            "writableContentTypes": ["public.plain-text"], "contents": ["path": .string(picked.description)],
        ]]])?["dialogId"]?.stringValue)
        #expect(client.ending(of: exporter)?["method"] == "dialog/completed")
        #expect(try String(decoding: readFile(scratch.path("out/copy.txt")), as: UTF8.self) == "picked by the human")
    }

    /// Over the socket, `contentTypes/identify` reads a file only through a grant, as a
    /// document's `path` is read: the daemon told any app the type of any file of the user's,
    /// from its first bytes (a PDF in a private folder).
    @Test func identifyReadsAFileOnlyThroughAGrant() throws {
        let scratch = ScratchDirectory("wharf-fd")
        let secret = scratch.write("private/report", "%PDF-1.4 a private report")
        let daemon = try scriptedDaemon([["choose": [.string(secret.description)]]])
        let client = try daemon.client("reader")
        let before = try #require(client.call("contentTypes/identify", ["paths": [.string(secret.url)]])?["results"]?.arrayValue?.first)
        #expect(before["error"]?["code"] == -32020, "\(before)")
        #expect(before["error"]?["message"]?.stringValue?.contains("only through a grant") == true)
        #expect(before["identifier"] == nil)

        let importer = try #require(client.presentImporter(["public.item"]))
        #expect(client.ending(of: importer)?["method"] == "dialog/completed")
        let after = try #require(client.call("contentTypes/identify", ["paths": [.string(secret.url)]])?["results"]?.arrayValue?.first)
        #expect(after["identifier"] == "com.adobe.pdf", "\(after)")
        #expect(after["source"] == "magic")
    }

    /// Through a folder's grant, the folder itself is identified (by its kind and name), and so
    /// is a link inside it: followed by default, itself with `followSymlinks: false`. A grant
    /// opened regular files only, and the open followed the link whatever was asked.
    @Test func identifyThroughAFoldersGrantSeesTheFolderAndLinksAsAsked() throws {
        let scratch = ScratchDirectory("wharf-fd")
        let folder = scratch.makeDirectory("private/project")
        let notes = scratch.write("private/project/notes.txt", "some notes")
        let link = scratch.symlink("private/project/latest", to: notes)
        let daemon = try scriptedDaemon([["choose": [.string(folder.description)]]])
        let client = try daemon.client("reader")
        let importer = try #require(client.presentImporter(["public.folder"]))
        #expect(client.ending(of: importer)?["method"] == "dialog/completed")

        func identify(_ path: FilePath, followSymlinks: Bool = true) -> JSON? {
            client.call("contentTypes/identify", ["paths": [.string(path.url)], "followSymlinks": .bool(followSymlinks)])?["results"]?.arrayValue?.first
        }
        #expect(identify(folder)?["identifier"] == "public.folder", "\(String(describing: identify(folder)))")
        #expect(identify(link)?["identifier"] == "public.plain-text")
        #expect(identify(link, followSymlinks: false)?["identifier"] == "public.symlink")
        #expect(identify(notes, followSymlinks: false)?["identifier"] == "public.plain-text")
    }

    /// Through `wharf --connect` there is no socket to the client, so no descriptors: a path
    /// through a grant, text or base64.
    @Test func aBridgedClientCannotPassDescriptors() throws {
        let scratch = ScratchDirectory("wharf-fd")
        let daemon = try exportingDaemon(scratch)
        let client = try daemon.bridge()
        client.initialize(["clientInfo": ["name": "writer"]])
        let refused = try #require(client.request("presentExporter", ["documents": [["writableContentTypes": ["public.plain-text"], "contents": ["fd": 0]]]]))
        #expect(refused["error"]?["code"] == -32602)
        #expect(refused["error"]?["message"]?.stringValue?.contains("wharf --connect") == true)
        let text = try #require(client.call("presentExporter", ["documents": [["writableContentTypes": ["public.plain-text"], "contents": ["text": "hi"]]]])?["dialogId"]?.stringValue)
        #expect(client.ending(of: text)?["method"] == "dialog/completed")
    }

    /// `wharf access list` and `revoke` work beside a running daemon (the store is shared, and
    /// the daemon drops what was revoked at its next check) as well as without one.
    @Test func theAccessCommandsWorkBesideARunningDaemon() throws {
        let scratch = ScratchDirectory("wharf-fd")
        let picked = scratch.write("kept.txt", "kept")
        let daemon = try scriptedDaemon([["choose": [.string(picked.description)]]])
        let client = try daemon.client("keeper")
        let dialog = try #require(client.presentImporter())
        let url = try #require(client.ending(of: dialog)?["params"]?["urls"]?.arrayValue?.first)
        let bookmark = try #require(client.call("createBookmark", ["url": url])?["bookmark"])

        let list = { run(wharfExecutablePath(), ["access", "list"], environment: daemon.environment).output }
        #expect(eventually { list().contains("\tgrant\t\(ownApp)#keeper\t") }, "\(list())")
        let lines = list().split(separator: "\n").map(String.init)
        let bookmarkID = try #require(lines.first { $0.contains("\tbookmark\t") }?.split(separator: "\t").first.map(String.init))
        let grantID = try #require(lines.first { $0.contains("\tgrant\t") }?.split(separator: "\t").first.map(String.init))

        #expect(run(wharfExecutablePath(), ["access", "revoke", bookmarkID], environment: daemon.environment).status == 0)
        #expect(client.errorCode("resolveAccess", ["bookmark": bookmark]) == -32021)
        #expect(run(wharfExecutablePath(), ["access", "revoke", grantID], environment: daemon.environment).status == 0)
        #expect(client.errorCode("resolveAccess", ["url": url]) == -32020)

        // And without the daemon.
        daemon.terminate()
        #expect(daemon.waitForExit() == 0)
        #expect(run(wharfExecutablePath(), ["access", "list"], environment: daemon.environment).status == 0)
    }
}
