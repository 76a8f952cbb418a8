import Testing
import WharfDesktopTestSupport
import WharfJSON
import WharfServerTestSupport
import WharfSystem
import WharfTestSupport

/// The `wharf` binary showing the desktop's own dialogs: a client that does not draw its own
/// dialogs gets the real xdg-desktop-portal (GTK) on the rig's session bus, falls back to
/// zenity where the portal is missing or hangs, and what the person does reaches the client
/// as the protocol says. Driven like a person, with xdotool. Only inside `make test-desktop`.
@Suite(.serialized, .enabled(if: Desktop.isRig, "runs inside Tests/desktop/rig.sh"))
struct ServerRigTests {
    let scratch = ScratchDirectory("wharf-server-rig")

    init() {
        scratch.write("notes.txt", "notes\n")
        scratch.write("photo.png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }

    /// A `wharf` whose client does not present dialogs, with the rig's desktop (or less of it).
    func client(removing: Set<String> = [], environment: [String: String] = [:]) throws -> WireClient {
        let client = try WireClient.spawn(["--state-dir", ":memory:"], environment: environment, removing: removing)
        client.initialize(["clientInfo": ["name": "rig"]])
        return client
    }

    func file(_ name: String) -> String { scratch.file(name) }

    /// The dialog's `dialog/completed` or `dialog/cancelled`.
    func ending(of id: String, in client: WireClient) -> JSON? { client.ending(of: id, timeout: 30) }

    /// A title no other window has.
    func unique(_ title: String) -> String { title + " " + String(UInt32.random(in: 0...UInt32.max), radix: 36) }

    /// Presents an importer titled `title` and returns its id and the desktop window.
    func presentImporter(_ client: WireClient, title: String, types: [String]) throws -> (String, String) {
        let id = try #require(client.call("presentImporter", [
            "allowedContentTypes": .array(types.map { JSON.string($0) }),
            "options": ["title": .string(title), "defaultDirectory": .string(scratch.path.description)],
        ])?["dialogId"]?.stringValue)
        let window = try #require(Desktop.waitForWindow("^" + title))
        Desktop.waitUntilReady(window)
        return (id, window)
    }

    @Test func thePortalShowsAnImporterAndThePickIsGranted() throws {
        let client = try client()
        let capabilities = client.messages.first { $0["id"] != nil }?["result"]?["capabilities"]
        #expect(capabilities?["presenter"] == "portal", "\(String(describing: capabilities))")
        let title = unique("Rig wharf open")
        let (id, window) = try presentImporter(client, title: title, types: ["public.plain-text"])
        Desktop.gtkChoose(window, path: file("notes.txt"))
        let ending = try #require(self.ending(of: id, in: client))
        #expect(ending["params"]?["urls"] == [.string(scratch.url("notes.txt"))], "\(ending)")
        let lease = client.call("resolveAccess", ["url": .string(scratch.url("notes.txt"))])
        #expect(lease?["readOnly"] == true, "what the person picked is granted")
        #expect(Desktop.waitUntilGone("^" + title))
    }

    @Test func aRefusedPickOpensTheDialogAgainSayingWhy() throws {
        let client = try client()
        let title = unique("Rig wharf refused")
        let (id, window) = try presentImporter(client, title: title, types: ["public.image"])
        // The portal's filters are advice: the person types a text file's name anyway.
        Desktop.gtkChoose(window, path: file("notes.txt"))
        #expect(Desktop.waitUntilGone("^" + title + "$"))
        let again = try #require(Desktop.waitForWindow("^" + title + " — .*cannot be chosen"), "the dialog comes back saying why")
        Desktop.waitUntilReady(again)
        Desktop.gtkChoose(again, path: file("photo.png"))
        let ending = try #require(self.ending(of: id, in: client))
        #expect(ending["params"]?["urls"] == [.string(scratch.url("photo.png"))], "\(ending)")
    }

    @Test func aHiddenFileThePersonPicksIsImportedThoughTheAppDidNotShowHiddenFiles() throws {
        scratch.write(".env.txt", "hidden\n")
        let client = try client()
        let title = unique("Rig wharf hidden")
        let (id, window) = try presentImporter(client, title: title, types: ["public.plain-text"])
        // includeHiddenFiles is off: GTK does not list the file, but a person may name it.
        Desktop.gtkChoose(window, path: file(".env.txt"))
        let ending = try #require(self.ending(of: id, in: client))
        #expect(ending["method"] == "dialog/completed" && ending["params"]?["urls"] == [.string(scratch.url(".env.txt"))], "\(ending)")
        #expect(Desktop.waitUntilGone("^" + title))
    }

    @Test func theClientsCancelClosesTheRealWindow() throws {
        let client = try client()
        let title = unique("Rig wharf cancel")
        let (id, _) = try presentImporter(client, title: title, types: ["public.item"])
        #expect(client.call("cancel", ["dialogId": .string(id)])?["cancelled"] == true)
        let ending = try #require(self.ending(of: id, in: client))
        #expect(ending["method"] == "dialog/cancelled" && ending["params"]?["reason"] == "client")
        #expect(Desktop.waitUntilGone("^" + title), "the window is gone")
    }

    @Test func escapeIsTheUserCancelling() throws {
        let client = try client()
        let title = unique("Rig wharf escape")
        let (id, window) = try presentImporter(client, title: title, types: ["public.item"])
        Desktop.key(window, "Escape")
        let ending = try #require(self.ending(of: id, in: client))
        #expect(ending["method"] == "dialog/cancelled" && ending["params"]?["reason"] == "user", "\(ending)")
    }

    @Test func thePortalSavesAnExportWrittenAtomically() throws {
        let client = try client()
        let title = unique("Rig wharf save")
        let id = try #require(client.call("presentExporter", [
            "documents": [["filename": "draft.txt", "writableContentTypes": ["public.plain-text"], "contents": ["text": "saved by wharf\n"]]],
            "contentType": "public.plain-text",
            "options": ["title": .string(title), "defaultDirectory": .string(scratch.path.description)],
        ])?["dialogId"]?.stringValue)
        let window = try #require(Desktop.waitForWindow("^" + title))
        Desktop.waitUntilReady(window)
        Desktop.gtkChoose(window, path: file("final.txt"))
        let ending = try #require(self.ending(of: id, in: client))
        #expect(ending["params"]?["urls"] == [.string(scratch.url("final.txt"))], "\(ending)")
        #expect(scratch.text("final.txt") == "saved by wharf\n")
    }

    @Test func withoutASessionBusZenityShowsTheDialog() throws {
        let client = try client(removing: ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"])
        let capabilities = client.messages.first { $0["id"] != nil }?["result"]?["capabilities"]
        #expect(capabilities?["presenter"] == "zenity", "\(String(describing: capabilities))")
        #expect(capabilities?["unavailablePresenters"]?["portal"]?.stringValue?.contains("session bus") == true)
        let title = unique("Rig wharf zenity")
        let (id, window) = try presentImporter(client, title: title, types: ["public.plain-text"])
        Desktop.gtkChoose(window, path: file("notes.txt"))
        let ending = try #require(self.ending(of: id, in: client))
        #expect(ending["params"]?["urls"] == [.string(scratch.url("notes.txt"))], "\(ending)")
    }

    @Test func aPortalThatNeverAnswersFallsBackToZenityWithinTheProbeTime() throws {
        // A bus on which something owns the portal's name and never answers.
        let bus = try PrivateBus()
        defer { bus.stop() }
        let portal = try FakePortal(bus: bus, dialogs: .hang)
        defer { withExtendedLifetime(portal) {} }
        let started = monotonicNanoseconds()
        let client = try client(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        let waited = Double(monotonicNanoseconds() - started) / 1e9
        let capabilities = client.messages.first { $0["id"] != nil }?["result"]?["capabilities"]
        #expect(capabilities?["presenter"] == "zenity", "\(String(describing: capabilities))")
        #expect(capabilities?["unavailablePresenters"]?["portal"]?.stringValue?.contains("did not answer") == true)
        #expect(waited < 5, "initialize waited \(waited) s for a portal that never answers")
    }

    @Test func wharfPickPrintsThePickedPath() throws {
        let title = unique("Rig wharf pick")
        let pick = try ChildProcess(path: wharfExecutablePath(), arguments: ["pick", "--type", "public.plain-text", "--title", title,
                                                                               "--state-dir", ":memory:"])
        let window = try #require(Desktop.waitForWindow("^" + title))
        Desktop.waitUntilReady(window)
        Desktop.gtkChoose(window, path: file("notes.txt"))
        #expect(pick.waitForExitOrKill(seconds: 30) == 0)
        #expect(String(decoding: pick.readOutput(), as: UTF8.self) == file("notes.txt") + "\n")
    }

    @Test func wharfPickExitsOneWhenThePersonCancels() throws {
        let title = unique("Rig wharf pick cancel")
        let pick = try ChildProcess(path: wharfExecutablePath(), arguments: ["pick", "--title", title, "--state-dir", ":memory:"])
        let window = try #require(Desktop.waitForWindow("^" + title))
        Desktop.waitUntilReady(window)
        Desktop.key(window, "Escape")
        #expect(pick.waitForExitOrKill(seconds: 30) == 1)
        #expect(pick.readOutput().isEmpty)
    }

    /// The Neovim plugin with `presenter = "auto"`: the desktop's dialog, not Neovim's own,
    /// because the rig has one; the pick reaches the plugin's callback. (Needs the Neovim of
    /// `make test-nvim`, named by `NVIM`; the rig's make target provides it.)
    @Test func theNeovimPluginUsesTheDesktopsDialog() throws {
        let nvim = try #require(ProcessControl.environment("NVIM").map { String(decoding: $0, as: UTF8.self) }, "NVIM names Neovim")
        let title = unique("Rig nvim open")
        let output = scratch.path("result.txt").description
        let script = scratch.write("pick.lua", """
            vim.opt.rtp:prepend(\(luaString(ProtocolSchema.repositoryRoot + "/clients/nvim")))
            local wharf = require('wharf')
            wharf.setup({ cmd = { \(luaString(wharfExecutablePath())), '--state-dir', ':memory:' }, presenter = 'auto' })
            local done = false
            wharf.import({ types = { 'public.plain-text' }, title = \(luaString(title)),
                           default_directory = \(luaString(scratch.path.description)) }, function(result)
              local file = io.open(\(luaString(output)), 'w')
              file:write(result.status, '\\n', table.concat(result.paths or {}, '\\n'))
              file:close()
              done = true
            end)
            -- `nvim -l` ends with the script: wait here for the dialog's end, as a session would.
            vim.wait(60000, function() return done end, 50)
            """)
        let editor = try ChildProcess(path: nvim, arguments: ["--clean", "--headless", "-l", script.description])
        defer { editor.kill() }
        let window = try #require(Desktop.waitForWindow("^" + title), "the desktop's dialog, not Neovim's")
        Desktop.waitUntilReady(window)
        Desktop.gtkChoose(window, path: file("notes.txt"))
        #expect(editor.waitForExit(seconds: 30) == 0)
        #expect(scratch.text("result.txt") == "completed\n" + file("notes.txt"))
    }

    /// A Lua string literal holding `text` (decimal escapes for anything but plain characters).
    private func luaString(_ text: String) -> String {
        var literal = "'"
        for byte in text.utf8 {
            if byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "'") && byte != UInt8(ascii: "\\") {
                literal.append(Character(Unicode.Scalar(byte)))
            } else {
                let digits = String(byte)
                literal += "\\" + String(repeating: "0", count: 3 - digits.count) + digits
            }
        }
        return literal + "'"
    }

    @Test func wharfSaveWritesStandardInputWhereThePersonChose() throws {
        let title = unique("Rig wharf save command")
        let save = try ChildProcess(path: wharfExecutablePath(), arguments: ["save", "--name", "report.txt", "--title", title,
                                                                               "--state-dir", ":memory:"])
        try save.send(Array("from standard input\n".utf8))
        save.closeStdin()
        let window = try #require(Desktop.waitForWindow("^" + title))
        Desktop.waitUntilReady(window)
        Desktop.gtkChoose(window, path: file("report.txt"))
        #expect(save.waitForExitOrKill(seconds: 30) == 0)
        #expect(String(decoding: save.readOutput(), as: UTF8.self) == file("report.txt") + "\n")
        #expect(scratch.text("report.txt") == "from standard input\n")
    }
}
