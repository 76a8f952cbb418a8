import Glibc
import Testing
import WharfJSON
import WharfSystem
import WharfServerTestSupport
import WharfTestSupport

/// `wharf move FILE… [--to DIR | dialog options]`: the shell's mover, through the same engine
/// and access layer as an editor's.
@Suite struct MoveCommandOverTheWire {
    let scratch = ScratchDirectory()

    func move(_ arguments: [String]) throws -> (status: Int32?, output: String, errors: String) {
        let child = try ChildProcess(path: wharfExecutablePath(), arguments: ["move"] + arguments)
        let output = child.readOutputText()
        return (child.waitForExit(seconds: 30), output, child.readErrors())
    }

    @Test func toMovesEveryFileAndPrintsTheNewPlacesInOrder() throws {
        scratch.write("src/b.txt", "bee")
        scratch.write("src/a.txt", "ay")
        scratch.makeDirectory("dst")
        let result = try move([scratch.file("src/b.txt"), scratch.file("src/a.txt"), "--to", scratch.file("dst"), "--state-dir", ":memory:"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == scratch.file("dst/b.txt") + "\n" + scratch.file("dst/a.txt") + "\n")
        #expect(scratch.text("dst/a.txt") == "ay" && scratch.text("dst/b.txt") == "bee")
        #expect(scratch.contents("src") == [])
    }

    @Test func aTakenNameMovesNothingAndIsNamed() throws {
        scratch.write("src/a.txt", "new")
        scratch.write("src/b.txt", "b")
        scratch.write("dst/a.txt", "old")
        let refused = try move([scratch.file("src/b.txt"), scratch.file("src/a.txt"), "--to", scratch.file("dst"), "--state-dir", ":memory:"])
        #expect(refused.status == 2)
        #expect(refused.output.isEmpty)
        #expect(refused.errors.contains("a.txt") && refused.errors.contains("nothing was moved"), "\(refused.errors)")
        #expect(scratch.contents("src") == ["a.txt", "b.txt"] && scratch.text("dst/a.txt") == "old", "not even b.txt moved")
    }

    @Test func withoutToAFolderDialogAsksAndCancellingExitsWithOne() throws {
        scratch.write("src/a.txt", "a")
        scratch.makeDirectory("dst")
        scratch.write("choose.json", "[{\"choose\": [\"\(scratch.file("dst"))\"]}]")
        scratch.write("dismiss.json", "[{\"dismiss\": true}]")
        let dismissed = try move([scratch.file("src/a.txt"), "--presenter", "script:" + scratch.file("dismiss.json"), "--state-dir", ":memory:"])
        #expect(dismissed.status == 1)
        #expect(dismissed.output.isEmpty && scratch.text("src/a.txt") == "a")
        let chosen = try move([scratch.file("src/a.txt"), "--presenter", "script:" + scratch.file("choose.json"), "--state-dir", ":memory:"])
        #expect(chosen.status == 0, "\(chosen.errors)")
        #expect(chosen.output == scratch.file("dst/a.txt") + "\n")
    }

    /// A bookmark an editor holds of the file follows it when the person moves it from the
    /// shell: the store is shared, and every bookmark of a moved file is rewritten.
    @Test func anAppsBookmarkFollowsAFileMovedFromTheShell() throws {
        scratch.write("src/a.txt", "a")
        scratch.makeDirectory("far/away/dst")
        let state = scratch.file("state")
        let editor = try frontend(["--state-dir", state], name: "editor")
        let id = try #require(editor.present(["allowedContentTypes": ["public.item"]]))
        #expect(editor.call("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url("src/a.txt"))]]) == [:])
        let url = try #require(editor.ending(of: id)?["params"]?["urls"]?.arrayValue?.first)
        let bookmark = try #require(editor.call("createBookmark", ["url": url])?["bookmark"])
        #expect(editor.shutdownAndExit() == 0)

        // Far from where it was: no search near the old place would find it.
        let result = try move([scratch.file("src/a.txt"), "--to", scratch.file("far/away/dst"), "--state-dir", state])
        #expect(result.status == 0, "\(result.errors)")

        let later = try frontend(["--state-dir", state], name: "editor")
        let resolved = try #require(later.call("resolveAccess", ["bookmark": bookmark]))
        #expect(resolved["url"] == .string(scratch.url("far/away/dst/a.txt")))
        #expect(resolved["isStale"] == false)
    }
}
