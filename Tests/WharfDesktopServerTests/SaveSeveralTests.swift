import Testing
import WharfJSON
import WharfServerTestSupport
import WharfSystem
import WharfTestSupport

/// The `wharf` binary exporting several documents through zenity (a stand-in script on PATH)
/// into a folder that already holds one of their names: the human is asked, naming the file,
/// and either replaces it or chooses another folder; a dialog that keeps answering the same
/// refused folder ends as failed instead of reopening for ever.
@Suite struct SaveSeveralTests {
    let scratch = ScratchDirectory("wharf-save-several")

    /// A zenity that answers the folder dialog with the folder in `folder` (counting each in
    /// `opened`), and `--question` (logged to `questions`) with the exit status in `answer`,
    /// after which the folder in `next`, if any, becomes the one it answers.
    init() {
        scratch.makeDirectory("bin")
        scratch.write("bin/zenity", #"""
            #!/bin/sh
            d=$(dirname "$0")/..
            if [ "$1" = --question ]; then
                printf '%s\n' "$@" >> "$d/questions"
                [ -f "$d/hang" ] && { echo $$ > "$d/question.new"; mv "$d/question.new" "$d/question.pid"; exec sleep 300; }
                [ -f "$d/next" ] && mv "$d/next" "$d/folder"
                exit "$(cat "$d/answer")"
            fi
            echo opened >> "$d/opened"
            cat "$d/folder"
            """#, mode: 0o755)
        scratch.makeDirectory("out")
        scratch.makeDirectory("other")
        scratch.write("out/b.txt", "old\n")
        scratch.write("folder", scratch.path("out").description + "\n")
    }

    /// Exports a.txt and b.txt through the fake zenity; the dialog's ending.
    func export(while body: (WireClient, String) -> Void = { _, _ in }) throws -> JSON? {
        let client = try WireClient.spawn(["--presenter", "zenity", "--state-dir", ":memory:"], environment: [
            "PATH": scratch.path("bin").description + ":/usr/bin:/bin", "DISPLAY": ":99"])
        client.initialize(["clientInfo": ["name": "save-several"]])
        let id = try #require(client.call("presentExporter", [
            "documents": [["filename": "a.txt", "writableContentTypes": ["public.plain-text"], "contents": ["text": "A\n"]],
                          ["filename": "b.txt", "writableContentTypes": ["public.plain-text"], "contents": ["text": "B\n"]]],
            "contentType": "public.plain-text",
        ])?["dialogId"]?.stringValue)
        body(client, id)
        return client.waitFor(timeout: 20) {
            ($0["method"] == "dialog/completed" || $0["method"] == "dialog/cancelled") && $0["params"]?["dialogId"] == .string(id)
        }
    }

    var opened: Int { (scratch.text("opened") ?? "").split(separator: "\n").count }

    @Test func replacingAfterTheQuestionWritesOverTheFileItNamed() throws {
        scratch.write("answer", "0")
        let ending = try #require(try export())
        #expect(ending["params"]?["urls"] == [.string(scratch.url("out/a.txt")), .string(scratch.url("out/b.txt"))], "\(ending)")
        #expect(scratch.text("out/b.txt") == "B\n")
        let question = scratch.text("questions") ?? ""
        #expect(question.contains("--ok-label=Replace") && question.contains("--cancel-label=Choose Another Folder"))
        #expect(question.contains("\nb.txt\n") && !question.contains("a.txt"), "it names the file that exists, only it")
        #expect(opened == 1)
    }

    @Test func choosingAnotherFolderLeavesTheFileAndSavesThere() throws {
        scratch.write("answer", "1")
        scratch.write("next", scratch.path("other").description + "\n")
        let ending = try #require(try export())
        #expect(ending["params"]?["urls"] == [.string(scratch.url("other/a.txt")), .string(scratch.url("other/b.txt"))], "\(ending)")
        #expect(scratch.text("out/b.txt") == "old\n")
        #expect(opened == 2)
    }

    @Test func theSameRefusedFolderAgainAndAgainEndsTheDialogInsteadOfLooping() throws {
        scratch.write("answer", "1")
        let ending = try #require(try export())
        #expect(ending["method"] == "dialog/completed")
        let message = ending["params"]?["error"]?["message"]?.stringValue ?? ""
        #expect(message.contains("the same refused choice 5 times in a row"), "\(ending)")
        #expect(opened == 5)
        #expect(scratch.text("out/b.txt") == "old\n")
    }

    @Test func theAppsCancelTakesTheQuestionDown() throws {
        scratch.write("hang", "")
        var question: Int32 = 0
        let ending = try #require(try export { client, id in
            // The stand-in renames its pid file into place, so a file seen here is whole.
            let deadline = Deadline(secondsFromNow: 20)
            while scratch.text("question.pid") == nil && !deadline.hasPassed { ProcessControl.sleep(milliseconds: 10) }
            question = Int32(scratch.text("question.pid")?.split(separator: "\n").first ?? "") ?? 0
            _ = client.call("cancel", ["dialogId": .string(id)])
        })
        #expect(ending["method"] == "dialog/cancelled" && ending["params"]?["reason"] == "client", "\(ending)")
        #expect(question > 0)
        let deadline = Deadline(secondsFromNow: 5)
        while ProcessIdentity(pid: question, startTime: 0).isRunning && !deadline.hasPassed { ProcessControl.sleep(milliseconds: 10) }
        #expect(!ProcessIdentity(pid: question, startTime: 0).isRunning, "the question's window is gone")
        #expect(scratch.text("out/b.txt") == "old\n")
    }
}
