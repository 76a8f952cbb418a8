import Testing
import WharfJSON
import WharfServerTestSupport
import WharfTestSupport

/// Only a dialog's presenter answers it (issue 12, class 2), over the binary: a client whose
/// dialog the script shows cannot browse the disk through it, choose for it, dismiss or fail
/// it; it can only end it as the app does, with `cancel`.
@Suite struct PresenterOnlyOverTheWire {
    let scratch = ScratchDirectory()

    /// A script that holds every dialog open (ten minutes) while the test speaks for the client.
    func holdingScript() throws -> WireClient {
        scratch.write("secret.txt", "not for the client")
        return try scripted([["delayMs": 600_000]], in: scratch)
    }

    @Test func aClientWithoutPresentsDialogsCannotListWhatTheScriptShows() throws {
        let client = try holdingScript()
        let id = try #require(client.present(["allowedContentTypes": ["public.item"]]))
        for directory: JSON in [.null, "/etc", .string(scratch.path.url)] {
            var params: JSONObject = ["dialogId": .string(id)]
            if directory != .null { params["directory"] = directory }
            let listed = client.request("dialog/list", .object(params))
            #expect(listed?["error"]?["code"] == -32017, "dialog/list \(directory): \(String(describing: listed))")
            #expect(listed?["result"] == nil, "no entry of the folder is ever sent")
        }
    }

    @Test func aClientWithoutPresentsDialogsCannotAnswerItsOwnDialog() throws {
        let client = try holdingScript()
        let id = try #require(client.present(["allowedContentTypes": ["public.item"]]))
        let chosen = client.request("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url("secret.txt"))]])
        #expect(chosen?["error"]?["code"] == -32017)
        #expect(client.request("dialog/dismiss", ["dialogId": .string(id)])?["error"]?["code"] == -32017)
        #expect(client.request("dialog/fail", ["dialogId": .string(id), "message": "no"])?["error"]?["code"] == -32017)
        client.settle()
        #expect(client.events(of: id).isEmpty, "the dialog is still open, nothing was granted")
        #expect(client.request("resolveAccess", ["url": .string(scratch.url("secret.txt"))])?["error"]?["code"] == -32020)
    }

    @Test func theAppCanStillCancelADialogTheScriptShows() throws {
        let client = try holdingScript()
        let id = try #require(client.present(["allowedContentTypes": ["public.item"]]))
        #expect(client.request("dialog/dismiss", ["dialogId": .string(id)])?["error"]?["code"] == -32017)
        #expect(client.call("cancel", ["dialogId": .string(id)])?["cancelled"] == true)
        let ending = try #require(client.ending(of: id))
        #expect(ending["method"] == "dialog/cancelled")
        #expect(ending["params"]?["reason"] == "client")
        #expect(client.request("dialog/list", ["dialogId": .string(id)])?["error"]?["code"] == -32014, "an ended dialog says so")
    }

    @Test func anIdThatIsNotTheClientsIsNotFoundRatherThanNotPresenter() throws {
        let client = try holdingScript()
        #expect(client.request("dialog/list", ["dialogId": "dlg-999", "directory": "/etc"])?["error"]?["code"] == -32013)
    }
}

/// The order of what answers a presenter's `dialog/choose` (issue 12, class 5): its reply `{}`,
/// then `dialog/presentationChanged`, then `dialog/completed` — the same for both kinds.
@Suite struct ChoiceOrderOverTheWire {
    let scratch = ScratchDirectory()

    /// The positions of the choose reply and of the dialog's two notifications in arrival order.
    func order(_ client: WireClient, dialog id: String, choose params: JSON) throws -> [String] {
        let request = client.sendRequest("dialog/choose", params)
        _ = try #require(client.ending(of: id))
        client.settle()
        var seen: [String] = []
        for message in client.messages {
            if message["id"] == request {
                seen.append(message["result"] == [:] ? "reply {}" : "reply \(message)")
            } else if message["id"] == nil, message["params"]?["dialogId"] == .string(id),
                      let method = message["method"]?.stringValue, method != "presenter/show" {
                seen.append(method)
            }
        }
        return seen
    }

    @Test func anImportersReplyComesBeforePresentationChangedThenCompleted() throws {
        scratch.write("a.txt", "a")
        let client = try frontend()
        for _ in 0..<20 {
            let id = try #require(client.present(["allowedContentTypes": ["public.plain-text"]]))
            let seen = try order(client, dialog: id, choose: ["dialogId": .string(id), "urls": [.string(scratch.url("a.txt"))]])
            #expect(seen == ["reply {}", "dialog/presentationChanged", "dialog/completed"])
        }
    }

    @Test func anExportersReplyComesBeforePresentationChangedThenCompleted() throws {
        let client = try frontend()
        for round in 0..<20 {
            let id = try #require(client.present([
                "documents": [["writableContentTypes": ["public.plain-text"], "contents": ["text": "draft"]]],
                "contentType": "public.plain-text",
            ], method: "presentExporter"))
            let seen = try order(client, dialog: id, choose: ["dialogId": .string(id), "url": .string(scratch.url("draft\(round).txt"))])
            #expect(seen == ["reply {}", "dialog/presentationChanged", "dialog/completed"])
        }
    }
}
