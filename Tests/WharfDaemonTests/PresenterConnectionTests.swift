import Glibc
import Testing
import WharfJSON
import WharfServerTestSupport
import WharfSystem
import WharfTestSupport

/// A connection that says `"role": "presenter"` shows the dialogs of every client that does not
/// show its own, and only it may answer them.
@Suite struct PresenterConnection {
    @Test func itShowsOtherClientsDialogsSayingWhoseAndOnlyItAnswers() throws {
        let scratch = ScratchDirectory("wharf-presenter")
        scratch.write("notes/a.txt", "a")
        let daemon = try bareDaemon()
        let presenter = try daemon.client("picker", role: "presenter")
        let editor = try daemon.connect()
        let initialized = try #require(editor.initialize(["clientInfo": ["name": "editor"]]))
        #expect(initialized["capabilities"]?["presenter"] == "connection")

        let dialog = try #require(editor.presentImporter())
        let show = try #require(presenter.notification("presenter/show"))
        #expect(show["params"]?["dialogId"] == .string(dialog))
        #expect(show["params"]?["client"] == ["app": .string(ownApp), "name": "editor", "pid": .int(Int64(getpid()))])

        // Only the presenter connection answers: the app itself and other clients cannot.
        #expect(editor.errorCode("dialog/choose", ["dialogId": .string(dialog), "urls": [.string(scratch.url("notes/a.txt"))]]) == -32017)
        let other = try daemon.client("other")
        #expect(other.errorCode("dialog/choose", ["dialogId": .string(dialog), "urls": [.string(scratch.url("notes/a.txt"))]]) == -32013)
        #expect(other.errorCode("cancel", ["dialogId": .string(dialog)]) == -32013)

        let listing = try #require(presenter.call("dialog/list", ["dialogId": .string(dialog), "directory": .string(scratch.file("notes"))]))
        #expect(listing["entries"]?.arrayValue?.first?["name"] == "a.txt")
        #expect(presenter.call("dialog/choose", ["dialogId": .string(dialog), "urls": [.string(scratch.url("notes/a.txt"))]]) == [:])
        let ending = try #require(editor.ending(of: dialog))
        #expect(ending["params"]?["urls"] == [.string(scratch.url("notes/a.txt"))])
        // The grant is the editor's, not the presenter's.
        #expect(editor.call("resolveAccess", ["url": .string(scratch.url("notes/a.txt"))])?["accessId"] != nil)
        #expect(presenter.errorCode("resolveAccess", ["url": .string(scratch.url("notes/a.txt"))]) == -32020)
        #expect(presenter.errorCode("dialog/dismiss", ["dialogId": .string(dialog)]) == -32014, "late input: the dialog ended")
    }

    @Test func theAppsCancelTakesTheDialogDownAtThePresenter() throws {
        let daemon = try bareDaemon()
        let presenter = try daemon.client("picker", role: "presenter")
        let editor = try daemon.client("editor")
        let dialog = try #require(editor.presentImporter())
        #expect(presenter.notification("presenter/show") != nil)
        #expect(editor.call("cancel", ["dialogId": .string(dialog)]) == ["cancelled": true])
        #expect(presenter.notification("presenter/hide", where: { $0["params"]?["dialogId"] == .string(dialog) }) != nil)
        #expect(editor.ending(of: dialog)?["params"]?["reason"] == "client")
    }

    @Test func oneConnectionPresentsAtATime() throws {
        let daemon = try bareDaemon()
        let first = try daemon.client("picker", role: "presenter")
        let second = try daemon.connect()
        let refused = try #require(second.request("initialize", ["clientInfo": ["name": "picker-2"], "role": "presenter"]))
        #expect(refused["error"]?["code"] == -32018)
        #expect(refused["error"]?["message"]?.stringValue?.contains("one presenter connection at a time") == true)
        // Refused, it is still uninitialized, and may initialize as a client.
        #expect(second.errorCode("ping", [:]) == -32002)
        // Nor does it keep the name the refused request gave.
        let initialized = try #require(second.call("initialize", [:]))
        #expect(initialized["client"]?["name"] != nil && initialized["client"]?["name"] != "picker-2", "\(initialized)")
        // Once the first is gone, another may register.
        #expect(first.request("shutdown")?["result"] == .null)
        first.notify("exit")
        #expect(first.waitForEndOfOutput())
        let third = try daemon.connect()
        #expect(third.call("initialize", ["clientInfo": ["name": "picker-3"], "role": "presenter"]) != nil)
    }

    /// The presenter's process killed while it shows a dialog: the dialog ends with
    /// `presenterFailed`, and the next one goes to the daemon's own presenter.
    @Test func thePresenterKilledMidDialogFailsItsDialogs() throws {
        let scratch = ScratchDirectory("wharf-presenter")
        scratch.write("a.txt", "a")
        let daemon = try scriptedDaemon([["choose": [.string(scratch.file("a.txt"))]]])
        let presenter = try daemon.bridge()
        presenter.initialize(["clientInfo": ["name": "picker"], "role": "presenter"])
        let editor = try daemon.client("editor")
        let dialog = try #require(editor.presentImporter())
        #expect(presenter.notification("presenter/show") != nil)
        try #require(presenter.process).kill(SIGKILL)
        let ending = try #require(editor.ending(of: dialog))
        #expect(ending["method"] == "dialog/completed")
        #expect(ending["params"]?["error"]?["code"] == -32040)
        #expect(ending["params"]?["error"]?["message"]?.stringValue?.contains("presenter connection went away") == true)
        let next = try #require(editor.presentImporter())
        #expect(editor.ending(of: next)?["params"]?["urls"] == [.string(scratch.url("a.txt"))], "the script took over")
    }

    /// The client's process killed while its dialog is shown: the presenter is told to take
    /// it down; the presenter and the daemon carry on.
    @Test func aClientKilledMidDialogTakesItsDialogDown() throws {
        let daemon = try bareDaemon()
        let presenter = try daemon.client("picker", role: "presenter")
        let editor = try daemon.bridge()
        editor.initialize(["clientInfo": ["name": "editor"]])
        let dialog = try #require(editor.presentImporter())
        #expect(presenter.notification("presenter/show")?["params"]?["dialogId"] == .string(dialog))
        try #require(editor.process).kill(SIGKILL)
        #expect(presenter.notification("presenter/hide", where: { $0["params"]?["dialogId"] == .string(dialog) }) != nil)
        #expect(presenter.errorCode("dialog/dismiss", ["dialogId": .string(dialog)]) == -32014)
        #expect(presenter.call("ping", [:]) == [:])
    }

    /// A client that presents its own dialogs keeps doing so over the daemon (it is not
    /// sandboxed: it could read what it picks anyway); the presenter connection never sees them.
    @Test func aClientThatPresentsItsOwnDialogsKeepsThem() throws {
        let scratch = ScratchDirectory("wharf-presenter")
        scratch.write("a.txt", "a")
        let daemon = try bareDaemon()
        let presenter = try daemon.client("picker", role: "presenter")
        let editor = try daemon.client("editor", capabilities: ["presentsDialogs": true])
        let dialog = try #require(editor.presentImporter())
        let show = try #require(editor.notification("presenter/show"))
        #expect(show["params"]?["client"] == nil)
        #expect(editor.call("dialog/choose", ["dialogId": .string(dialog), "urls": [.string(scratch.url("a.txt"))]]) == [:])
        #expect(editor.ending(of: dialog)?["method"] == "dialog/completed")
        #expect(presenter.errorCode("dialog/dismiss", ["dialogId": .string(dialog)]) == -32013)
        presenter.settle()
        #expect(!presenter.messages.contains { $0["method"] == "presenter/show" })
    }

    @Test func withoutAnyPresenterDialogsAreRefusedSayingHowToGetOne() throws {
        let daemon = try bareDaemon()
        let editor = try daemon.client("editor")
        let refused = try #require(editor.request("presentImporter", ["allowedContentTypes": ["public.item"]]))
        #expect(refused["error"]?["code"] == -32010)
        #expect(refused["error"]?["message"]?.stringValue?.contains("connection: ") == true)
    }
}

extension WireClient {
    /// Everything the server had to say so far has arrived.
    func settle() { _ = call("ping", [:]) }
}
