import Glibc
import Testing
import WharfJSON
import WharfServerTestSupport
import WharfSystem
import WharfTestSupport

/// A mover over the daemon: the presenter connection shows it (the files, whose dialog it is),
/// can ask about a taken name through `dialog/choose`, and the rights go to the app, not to it.
@Suite struct MoverOverTheDaemon {
    @Test func thePresenterConnectionMovesAnAppsFilesAndIsAskedAboutATakenName() throws {
        let scratch = ScratchDirectory("wharf-daemon-mover")
        scratch.write("notes/a.txt", "new")
        scratch.write("archive/a.txt", "old")
        let daemon = try bareDaemon()
        let presenter = try daemon.client("picker", role: "presenter")
        let editor = try daemon.client("editor")

        let importer = try #require(editor.presentImporter())
        #expect(presenter.notification("presenter/show") != nil)
        #expect(presenter.call("dialog/choose", ["dialogId": .string(importer), "urls": [.string(scratch.url("notes/a.txt"))]]) == [:])
        #expect(editor.ending(of: importer)?["params"]?["urls"] == [.string(scratch.url("notes/a.txt"))])
        // Another app holds no grant of it: it cannot have the presenter move it.
        let other = try daemon.client("other")
        #expect(other.errorCode("presentMover", ["urls": [.string(scratch.url("notes/a.txt"))]]) == -32020)

        let mover = try #require(editor.call("presentMover", ["urls": [.string(scratch.url("notes/a.txt"))]])?["dialogId"])
        let show = try #require(presenter.notification("presenter/show", where: { $0["params"]?["dialogId"] == mover })?["params"])
        #expect(show["kind"] == "mover")
        #expect(show["mover"]?["urls"] == [.string(scratch.url("notes/a.txt"))])
        #expect(show["client"]?["name"] == "editor")
        #expect(editor.errorCode("dialog/choose", ["dialogId": mover, "url": .string(scratch.url("archive"))]) == -32017,
                "only the presenter answers")
        #expect(presenter.errorCode("dialog/choose", ["dialogId": mover, "url": .string(scratch.url("archive"))]) == -32031)
        #expect(presenter.call("dialog/choose", ["dialogId": mover, "url": .string(scratch.url("archive")),
                                                 "conflictResolution": "replace"]) == [:])
        #expect(editor.ending(of: mover.stringValue ?? "")?["params"]?["urls"] == [.string(scratch.url("archive/a.txt"))])
        #expect(scratch.text("archive/a.txt") == "new")
        #expect(editor.call("resolveAccess", ["url": .string(scratch.url("archive/a.txt"))])?["accessId"] != nil)
        #expect(presenter.errorCode("resolveAccess", ["url": .string(scratch.url("archive/a.txt"))]) == -32020)
    }
}
