import Testing
import WharfDesktopDialogs
import WharfSystem
import WharfTestSupport

/// The zenity/kdialog runner against stand-in programs (shell scripts named like the real
/// ones): argument bytes, environment, output, exit codes, and cancel killing the group.
@Suite struct ToolPresenterTests {
    /// A directory with an executable `zenity` (or `kdialog`) that runs `script`.
    final class FakeTool {
        let directory = ScratchDirectory("wharf-tool")
        let kind: DesktopPresenterKind
        var program: [UInt8] { directory.path(kind.rawValue).bytes }
        init(_ script: String, kind: DesktopPresenterKind = .zenity) {
            self.kind = kind
            directory.write(kind.rawValue, "#!/bin/sh\n" + script + "\n", mode: 0o755)
        }
        /// What the script left in `name`; empty until it wrote it.
        func read(_ name: String) -> [UInt8] { directory.read(name) ?? [] }
    }

    func presenter(_ tool: FakeTool, environment: [String] = ["PATH=/usr/bin:/bin", "ZENITY_CANCEL=0", "G_FILENAME_ENCODING=@locale",
                                                              "G_BROKEN_FILENAMES=1"]) -> ToolDialogPresenter {
        ToolDialogPresenter(kind: tool.kind, program: tool.program, environment: environment.map { Array($0.utf8) }, killGraceSeconds: 1)
    }

    @Test func argumentsArriveAsBytesAndTheOutputComesBack() throws {
        let tool = FakeTool(#"""
            for a in "$@"; do printf '%s\0' "$a"; done > "$(dirname "$0")/args"
            env > "$(dirname "$0")/env"
            printf '/tmp//usr\n'
            """#)
        let folder = Array("/tmp/caf".utf8) + [0xE9]
        let request = DesktopDialogRequest(kind: .open(multiple: true, directory: true), title: "Pick", currentFolder: folder)
        let result = run(presenter(tool), request)
        #expect(result?.paths == [bytes("/tmp"), bytes("/usr")])
        let args = tool.read("args").split(separator: 0, omittingEmptySubsequences: false).dropLast().map(Array.init)
        #expect(args == ZenityArguments.build(request))
        #expect(args.contains(bytes("--filename=") + folder + bytes("/")))
        let env = String(decoding: tool.read("env"), as: UTF8.self).split(separator: "\n")
        #expect(env.contains("NO_AT_BRIDGE=1") && env.contains("GTK_USE_PORTAL=0") && !env.contains { $0.hasPrefix("ZENITY_") })
        #expect(!env.contains { $0.hasPrefix("G_FILENAME_ENCODING=") || $0.hasPrefix("G_BROKEN_FILENAMES=") })
    }

    @Test func exitStatusesBecomeResults() throws {
        let cancel = FakeTool("exit 1")
        #expect(run(presenter(cancel), open()) == .cancelled(.user))
        let broken = FakeTool("echo 'cannot open display' >&2; exit 255")
        #expect(run(presenter(broken), open()) == .failed("zenity exited with status 255: cannot open display"))
        let crash = FakeTool("kill -SEGV $$")
        #expect(run(presenter(crash), open()) == .failed("zenity was killed by signal 11"))
    }

    @Test func cancelKillsTheWholeProcessGroupAndEndsCancelledOnce() throws {
        let tool = FakeTool(#"""
            sleep 300 &
            echo $! > "$(dirname "$0")/pid"
            trap '' TERM
            wait
            """#)
        let started = monotonicNanoseconds()
        let result = run(presenter(tool), open()) { session in
            let deadline = Deadline(secondsFromNow: 10)
            while tool.read("pid").isEmpty && !deadline.hasPassed { ProcessControl.sleep(milliseconds: 10) }
            session.cancel()
        }
        #expect(result == .cancelled(.caller))
        #expect(millisecondsSince(started) < 8000)
        let grandchild = Int32(String(decoding: tool.read("pid").filter { $0 != 10 }, as: UTF8.self)) ?? 0
        #expect(grandchild > 0)
        let deadline = Deadline(secondsFromNow: 5)
        while ProcessIdentity(pid: grandchild, startTime: 0).isRunning && !deadline.hasPassed { ProcessControl.sleep(milliseconds: 10) }
        #expect(!ProcessIdentity(pid: grandchild, startTime: 0).isRunning, "the dialog's own child died with it")
    }

    @Test func zenityThatCannotOpenItsDisplayFailsRatherThanCancels() throws {
        let fake = FakeTool("echo '(zenity:4242): Gtk-WARNING **: 07:08:25.407: cannot open display: :77' >&2; exit 1")
        #expect(run(presenter(fake), open()) == .failed("zenity exited with status 1: (zenity:4242): Gtk-WARNING **: 07:08:25.407: cannot open display: :77"))
        // The real one, where installed, on a display nobody serves.
        guard let zenity = ToolDialogPresenter.locate(.zenity, environment: ["PATH": "/usr/bin:/bin"]),
              (try? FileStatus.ofLink("/tmp/.X11-unix/X77")) == nil else { return }
        let real = ToolDialogPresenter(kind: .zenity, program: zenity, environment: ["PATH=/usr/bin:/bin", "DISPLAY=:77"].map { Array($0.utf8) })
        let reason = try #require(run(real, open())?.failure)
        #expect(reason.hasPrefix("zenity exited with status 1: ") && reason.hasSuffix("cannot open display: :77"), "\(reason)")
    }

    @Test func kdialogSavingOverANameThatIsNotUTF8Fails() throws {
        // What kdialog 22.12 printed, exit 0, when the human saved over caf\xE9.txt in an existing folder.
        let tool = FakeTool(#"printf '%s/caf\357\277\275.txt\n' "$(dirname "$0")""#, kind: .kdialog)
        let save = DesktopDialogRequest(kind: .save(currentName: bytes("new.txt"), currentFile: nil), title: "Save")
        let reason = try #require(run(presenter(tool), save)?.failure)
        #expect(reason.contains("U+FFFD") && reason.contains("kdialog cannot print file names that are not valid UTF-8"))
    }

    @Test func aTitleWithANulStillShowsTheDialog() throws {
        let tool = FakeTool(#"for a in "$@"; do printf '%s\n' "$a"; done > "$(dirname "$0")/args"; printf '/tmp\n'"#)
        let request = DesktopDialogRequest(kind: .open(multiple: false, directory: true), title: "Pick\0 a folder", message: "one\ntwo")
        #expect(run(presenter(tool), request)?.paths == [bytes("/tmp")])
        #expect(String(decoding: tool.read("args"), as: UTF8.self).contains("--title=Pick  a folder — one two\n"))
    }

    @Test func theReplaceQuestionIsAskedAndAnswered() throws {
        let question = DesktopReplaceQuestion(title: "Export", folder: bytes("/out"), names: [bytes("b.txt")])
        func ask(_ tool: FakeTool) -> DesktopDialogResult? {
            presenter(tool).askToReplace(question) { _ in }?.waitForResult(seconds: 10)
        }
        let no = FakeTool(#"for a in "$@"; do printf '%s\0' "$a"; done > "$(dirname "$0")/args"; exit 1"#, kind: .kdialog)
        #expect(ask(no) == .chosen(DesktopDialogChoice(paths: [], overwriteConfirmed: true)), "kdialog's No is Replace")
        #expect(no.read("args").split(separator: 0).map(Array.init) == KDialogArguments.question(question))
        #expect(ask(FakeTool("exit 1")) == .cancelled(.user), "Choose Another Folder, Escape")
        #expect(PortalFileChooser(environment: [:]).askToReplace(question) { _ in } == nil, "the portal has no question")
    }

    @Test func aProgramThatCannotStartFails() {
        let presenter = ToolDialogPresenter(kind: .zenity, program: Array("/nonexistent/zenity".utf8))
        #expect(run(presenter, open())?.failure?.hasPrefix("cannot start zenity: posix_spawn /nonexistent/zenity") == true)
    }
}
