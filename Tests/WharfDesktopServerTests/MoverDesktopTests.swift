import Testing
import WharfJSON
import WharfServerTestSupport
import WharfSystem
import WharfTestSupport

/// The `wharf` binary's mover through zenity and kdialog (stand-in scripts on PATH that log
/// their arguments and answer a folder): their folder mode, the files named in the title, the
/// move; a taken name, which a folder dialog cannot ask about, fails the dialog and moves nothing.
@Suite struct MoverDesktopTests {
    let scratch = ScratchDirectory("wharf-mover-desktop")

    init() {
        scratch.writeStandInDialogTools(answer: "folder")
        scratch.write("src/a.txt", "new\n")
        scratch.makeDirectory("dst")
        scratch.write("folder", scratch.path("dst").description + "\n")
    }

    /// Picks src/a.txt with the script, then presents a mover of it through `tool`: its ending.
    func move(with tool: String, options: JSON = [:]) throws -> JSON? {
        scratch.write("script.json", "[{\"choose\": [\"\(scratch.path("src/a.txt").description)\"]}]")
        let picker = try WireClient.spawn(["--presenter", "script:" + scratch.path("script.json").description, "--state-dir", scratch.path("state").description])
        picker.initialize(["clientInfo": ["name": "mover-desktop"]])
        let importer = try #require(picker.call("presentImporter", ["allowedContentTypes": ["public.plain-text"]])?["dialogId"]?.stringValue)
        let url = try #require(picker.waitFor { $0["method"] == "dialog/completed" && $0["params"]?["dialogId"] == .string(importer) }?["params"]?["urls"]?.arrayValue?.first)
        // The grant is the picker's session's: the mover runs in it, through the desktop tool
        // (a script presenter cannot be swapped for zenity in one session, so a bookmark
        // carries the file to a second session that presents with the tool).
        let bookmark = try #require(picker.call("createBookmark", ["url": url])?["bookmark"])
        #expect(picker.shutdownAndExit() == 0)

        let client = try WireClient.spawn(["--presenter", tool, "--state-dir", scratch.path("state").description], environment: [
            "PATH": scratch.path("bin").description + ":/usr/bin:/bin", "DISPLAY": ":99"])
        client.initialize(["clientInfo": ["name": "mover-desktop"]])
        let lease = try #require(client.call("resolveAccess", ["bookmark": bookmark])?["accessId"])
        #expect(client.call("releaseAccess", ["accessId": lease]) == [:])
        let id = try #require(client.call("presentMover", ["urls": [url], "options": options])?["dialogId"]?.stringValue)
        return client.waitFor(timeout: 20) {
            ($0["method"] == "dialog/completed" || $0["method"] == "dialog/cancelled") && $0["params"]?["dialogId"] == .string(id)
        }
    }

    var arguments: [String] { (scratch.text("arguments") ?? "").split(separator: "\n").map(String.init) }

    @Test func zenityChoosesTheFolderInItsFolderModeAndTheFileMoves() throws {
        let ending = try #require(try move(with: "zenity"))
        #expect(ending["params"]?["urls"] == [.string(scratch.url("dst/a.txt"))], "\(ending)")
        #expect(scratch.text("dst/a.txt") == "new\n" && scratch.contents("src") == [])
        #expect(arguments.contains("--file-selection") && arguments.contains("--directory"), "\(arguments)")
        #expect(arguments.contains { $0.hasPrefix("--title=") && $0.contains("Move \u{201C}a.txt\u{201D} to") }, "\(arguments)")
    }

    @Test func kdialogChoosesTheFolderWithItsFolderDialog() throws {
        let ending = try #require(try move(with: "kdialog", options: ["title": "Archive"]))
        #expect(ending["params"]?["urls"] == [.string(scratch.url("dst/a.txt"))], "\(ending)")
        #expect(arguments.contains("--getexistingdirectory"), "\(arguments)")
        #expect(arguments.contains { $0.contains("Archive") }, "the client's title: \(arguments)")
    }

    @Test func aTakenNameAFolderDialogCannotAskAboutFailsAndMovesNothing() throws {
        scratch.write("dst/a.txt", "old\n")
        let ending = try #require(try move(with: "zenity"))
        #expect(ending["method"] == "dialog/completed")
        #expect(ending["params"]?["error"]?["code"] == -32031, "\(ending)")
        #expect(ending["params"]?["error"]?["url"] == .string(scratch.url("dst/a.txt")))
        #expect(scratch.text("src/a.txt") == "new\n" && scratch.text("dst/a.txt") == "old\n")
    }
}
