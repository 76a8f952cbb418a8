import Testing
import WharfJSON
import WharfSystem
import WharfServerTestSupport
import WharfTestSupport

/// What a client gets wrong, and what it gets at the edges (issue 12, class 5), over the
/// binary: mistakes that do not fail a request are logged saying what was meant or what was
/// done instead; mistakes that do fail it say how to put them right.
@Suite struct RequestEdgesOverTheWire {
    let scratch = ScratchDirectory()

    /// A frontend client of a server whose home folder is `home`, and the server process.
    func client(home: ScratchDirectory) throws -> (WireClient, ChildProcess) {
        let client = try WireClient.spawn(environment: ["HOME": home.directory])
        client.initialize(["clientInfo": ["name": "edges"], "capabilities": ["presentsDialogs": true]])
        return (client, try #require(client.process))
    }

    @Test func aDefaultDirectoryThatDoesNotExistIsLoggedAndTheDialogOpensAtHome() throws {
        let home = ScratchDirectory("wharf-home")
        let (client, process) = try client(home: home)
        let missing = scratch.path("no/such/folder")
        let id = try #require(client.present(["allowedContentTypes": ["public.item"], "options": ["defaultDirectory": .string(missing.url)]]))
        let show = try #require(client.notification("presenter/show")?["params"])
        #expect(show["dialogId"] == .string(id))
        #expect(show["directory"] == .string(home.path.url), "the documented fallback: the home folder")
        let log = process.errorsSoFar()
        #expect(log.contains("defaultDirectory \(missing)") && log.contains("home folder, \(home.path)"), "\(log)")

        // A file is not a folder either.
        scratch.write("file.txt", "x")
        let other = try #require(client.present(["allowedContentTypes": ["public.item"], "options": ["defaultDirectory": .string(scratch.file("file.txt"))]]))
        #expect(client.notification("presenter/show") { $0["params"]?["dialogId"] == .string(other) }?["params"]?["directory"] == .string(home.path.url))
    }

    @Test func anUnknownFieldIsLoggedWithTheFieldItMostLikelyMeant() throws {
        let (client, process) = try client(home: scratch)
        let id = try #require(client.present(["allowedContentTypes": ["public.item"], "allowsMultipleSelections": true,
                                              "options": ["defaultDir": .string(scratch.directory)]]))
        #expect(!id.isEmpty, "unknown fields are ignored, not refused")
        let log = process.errorsSoFar()
        #expect(log.contains("options.defaultDir (did you mean options.defaultDirectory?)"), "\(log)")
        #expect(log.contains("allowsMultipleSelections (did you mean allowsMultipleSelection?)"), "\(log)")
    }

    /// U+0000 in a name Wharf keeps (the app's name, a remembered folder's, a presentation's)
    /// is refused, as the spec says of every identifier: stored, it was cut short there, so
    /// 'victim\0evil' got the bookmarks of 'victim', and 'a\0b' the folder remembered for 'a'.
    @Test func identifiersWithUPlus0000AreRefused() throws {
        let named = try WireClient.spawn()
        let refused = named.request("initialize", ["clientInfo": ["name": "victim\u{0}evil"]])
        #expect(refused?["error"]?["code"] == -32602)
        #expect(refused?["error"]?["message"]?.stringValue?.contains("clientInfo.name: must not contain U+0000") == true, "\(String(describing: refused))")
        #expect(named.call("initialize", ["clientInfo": ["name": "victim"]]) != nil, "a refused initialize leaves the session uninitialized")

        let (client, _) = try client(home: scratch)
        for params: JSON in [["allowedContentTypes": ["public.item"], "options": ["customizationId": "a\u{0}b"]],
                             ["allowedContentTypes": ["public.item"], "presentationId": "a\u{0}b"]] {
            let answer = client.request("presentImporter", params)
            #expect(answer?["error"]?["code"] == -32602, "\(String(describing: answer))")
            #expect(answer?["error"]?["message"]?.stringValue?.contains("must not contain U+0000") == true)
        }
        let exporter = client.request("presentExporter", ["documents": [["contents": ["text": "x"], "writableContentTypes": ["public.plain-text"]]],
                                                          "contentType": "public.plain-text", "presentationId": "a\u{0}b"])
        #expect(exporter?["error"]?["message"]?.stringValue?.contains("presentationId: must not contain U+0000") == true, "\(String(describing: exporter))")
    }

    /// Only an exporter has a filename field: a `filenameLabel` in an importer's or a mover's
    /// options is refused, not ignored; an exporter takes it.
    @Test func aFilenameLabelIsRefusedOutsideAnExporter() throws {
        let (client, _) = try client(home: scratch)
        scratch.write("a.txt", "a")
        let options: JSON = ["filenameLabel": "Name:"]
        for (method, params): (String, JSON) in [
            ("presentImporter", ["allowedContentTypes": ["public.item"], "options": options]),
            ("presentMover", ["urls": [.string(scratch.url("a.txt"))], "options": options]),
        ] {
            let refused = client.request(method, params)
            #expect(refused?["error"]?["code"] == -32602, "\(method): \(String(describing: refused))")
            #expect(refused?["error"]?["message"]?.stringValue?.contains("options.filenameLabel: only exporters have a filename field") == true,
                    "\(method): \(String(describing: refused))")
        }
        let exporter = client.request("presentExporter", [
            "documents": [["filename": "a", "writableContentTypes": ["public.plain-text"], "contents": ["text": "a"]]],
            "contentType": "public.plain-text", "options": options])
        #expect(exporter?["result"]?["dialogId"] != nil, "\(String(describing: exporter))")
    }

    /// A mover asks for a folder: named filters (which judge files) and choices (which it does
    /// not show) are refused, not dropped, as the other options that mean nothing to it are.
    @Test func aMoverRefusesNamedFiltersAndChoices() throws {
        let (client, _) = try client(home: scratch)
        scratch.write("a.txt", "a")
        for (options, message): (JSON, String) in [
            (["filters": [["name": "Text", "predicate": ["conformsTo": "public.plain-text"]]]],
             "options.filters: a mover's human chooses a folder"),
            (["choices": [["id": "keep", "label": "Keep a copy"]]], "options.choices: a mover shows no choices"),
        ] {
            let refused = client.request("presentMover", ["urls": [.string(scratch.url("a.txt"))], "options": options])
            #expect(refused?["error"]?["code"] == -32602, "\(String(describing: refused))")
            #expect(refused?["error"]?["message"]?.stringValue?.contains(message) == true, "\(String(describing: refused))")
        }
    }

    @Test func aMIMETypeGivenAsAContentTypeIsAnsweredWithTheIdentifierItStandsFor() throws {
        let (client, _) = try client(home: scratch)
        let refused = try #require(client.request("presentImporter", ["allowedContentTypes": ["image/png"]]))
        #expect(refused["error"]?["code"] == -32602)
        let message = try #require(refused["error"]?["message"]?.stringValue)
        #expect(message.contains("image/png") && message.contains("public.png"), "\(message)")
    }

    @Test func readingPastTheEndAnswersNothingAndEndOfFile() throws {
        scratch.write("short.txt", "12345")
        let (client, _) = try client(home: scratch)
        let id = try #require(client.present(["allowedContentTypes": ["public.item"]]))
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url("short.txt"))]]) == [:])
        let url = try #require(client.ending(of: id)?["params"]?["urls"]?.arrayValue?.first)
        let lease = try #require(client.call("resolveAccess", ["url": url])?["accessId"])
        for offset: JSON in [5, 6, 1_099_511_627_776] {
            let read = client.call("readFile", ["accessId": lease, "offset": offset, "length": 4])
            #expect(read?["base64"] == "" && read?["eof"] == true, "offset \(offset): \(String(describing: read))")
        }
        #expect(client.call("readFile", ["accessId": lease, "offset": 3, "length": 4]) == ["base64": .string(Base64.encode(Array("45".utf8))), "eof": true])
    }

    @Test func nullParamsAreReadAsAbsent() throws {
        let (client, _) = try client(home: scratch)
        #expect(client.request("ping", .null)?["result"] == [:])
        #expect(client.request("listAccess", .null)?["result"]?["entries"] == [])
    }
}

/// `$/cancelRequest` for a `presentImporter` not answered yet, over the binary.
@Suite struct CancelledPresentOverTheWire {
    /// The request is answered `-32800` and nothing is presented: no `presenter/show`, and no
    /// notification names a dialog the client was never told of. Sent in the same write as
    /// the request, the cancel is nearly always read before the client's dialog queue reaches
    /// the request; a request answered first is a dialog like any other.
    @Test func aPresentCancelledBeforeItsAnswerPresentsNothing() throws {
        let client = try frontend(name: "cancelled-present")
        var told: Set<String> = []
        var cancelled = 0
        for round in 0..<20 {
            let id = JSON.string("race-\(round)")
            let present: JSON = ["jsonrpc": "2.0", "id": id, "method": "presentImporter",
                                 "params": ["allowedContentTypes": ["public.item"]]]
            let cancel: JSON = ["jsonrpc": "2.0", "method": "$/cancelRequest", "params": ["id": id]]
            client.sendRaw(Self.framed(present) + Self.framed(cancel))
            let response = try #require(client.response(to: id))
            if let dialog = response["result"]?["dialogId"]?.stringValue {
                told.insert(dialog)
            } else {
                #expect(response["error"]?["code"] == -32800, "\(response)")
                cancelled += 1
            }
        }
        // The dialog queue takes a client's requests in order: once this one is shown, every
        // request before it has been dealt with.
        let last = try #require(client.present(["allowedContentTypes": ["public.item"]]))
        told.insert(last)
        #expect(client.notification("presenter/show") { $0["params"]?["dialogId"] == .string(last) } != nil)
        let strays = client.messages.filter { message in
            guard let dialog = message["params"]?["dialogId"]?.stringValue else { return false }
            return !told.contains(dialog)
        }
        let named = strays.map { "\($0["method"]?.stringValue ?? "?") \($0["params"]?["dialogId"]?.stringValue ?? "?")" }
        #expect(strays.isEmpty, "messages about dialogs the client was never told of: \(named)")
        #expect(cancelled > 0, "no cancel arrived before its request was answered: nothing was tested")
        #expect(client.shutdownAndExit() == 0)
    }

    private static func framed(_ message: JSON) -> [UInt8] {
        let body = message.serialized()
        return Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
    }
}
