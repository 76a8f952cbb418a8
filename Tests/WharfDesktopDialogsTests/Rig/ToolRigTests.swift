import Testing
import WharfDesktopDialogs
import WharfDesktopTestSupport
import WharfSystem
import WharfTestSupport

/// zenity (GTK's file chooser) and kdialog (Qt's) run through WharfDesktopDialogs under Xvfb
/// and driven with xdotool. Only inside `make test-desktop`.
@Suite(.serialized, .enabled(if: Desktop.isRig, "runs inside Tests/desktop/rig.sh"))
struct ZenityRigTests {
    let zenity: ToolDialogPresenter? = ToolDialogPresenter.locate(.zenity, environment: ProcessControl.environmentVariables())
        .map { ToolDialogPresenter(kind: .zenity, program: $0) }

    func dialog(_ request: DesktopDialogRequest, retries: Int = 3,
                human: (String, DesktopDialogSession) -> Void) -> (DesktopDialogResult?, String) {
        guard let zenity else { return (.failed("zenity is not installed"), "") }
        return RigDialog.run(zenity, request, retries: retries, human: human)
    }

    @Test func probeSaysUsable() {
        let probe = ToolDialogPresenter.probe(.zenity, environment: ProcessControl.environmentVariables())
        #expect(probe.isUsable, "\(probe)")
    }

    @Test func openOneFile() {
        let dir = ScratchDirectory("wharf-rig", files: ["report.txt", "photo.PNG"])
        let request = DesktopDialogRequest(kind: .open(multiple: false, directory: false), title: "Zenity open one",
                                           filters: [DesktopDialogFilter(name: "Images", patterns: [.glob("*.png")])],
                                           currentFolder: dir.path.bytes)
        let (result, title) = dialog(request) { window, _ in Desktop.gtkChoose(window, path: dir.path("photo.PNG").description) }
        #expect(result == .chosen(DesktopDialogChoice(paths: [dir.path("photo.PNG").bytes])))
        #expect(Desktop.waitUntilGone("^" + title))
    }

    @Test func openSeveralWithNewlinesAndSpacesInNames() {
        let dir = ScratchDirectory("wharf-rig", files: ["a.txt", "b c.txt", "two\nlines.txt"])
        let request = DesktopDialogRequest(kind: .open(multiple: true, directory: false), title: "Zenity open several",
                                           currentFolder: dir.path.bytes)
        let (result, _) = dialog(request) { window, _ in Desktop.gtkChooseAll(window, in: dir.path.description) }
        #expect(Set(result?.paths ?? []) == [dir.path("a.txt").bytes, dir.path("b c.txt").bytes, dir.path("two\nlines.txt").bytes],
                "\(String(describing: result))")
    }

    @Test func aNameThatIsNotUTF8FailsWithTheReasonInsteadOfAWrongPath() {
        let dir = ScratchDirectory("wharf-rig", files: ["ok.txt"])
        writeFile(dir.path(bytes: Array("caf".utf8) + [0xE9] + Array(".txt".utf8)), "x")
        let request = DesktopDialogRequest(kind: .open(multiple: true, directory: false), title: "Zenity latin1",
                                           currentFolder: dir.path.bytes)
        let (result, _) = dialog(request) { window, _ in Desktop.gtkChooseAll(window, in: dir.path.description) }
        #expect(result?.failure?.contains("zenity cannot print file names that are not valid UTF-8") == true, "\(String(describing: result))")
    }

    @Test func openAFolder() {
        let dir = ScratchDirectory("wharf-rig")
        dir.makeDirectory("inner")
        let request = DesktopDialogRequest(kind: .open(multiple: false, directory: true), title: "Zenity folder",
                                           currentFolder: dir.path.bytes)
        let (result, _) = dialog(request) { window, _ in Desktop.gtkChooseFolder(window, path: dir.path("inner").description, acceptKey: "alt+o") }
        #expect(result?.paths == [dir.path("inner").bytes], "\(String(describing: result))")
    }

    @Test func saveOneAndOverwriteAfterGTKsQuestion() {
        let dir = ScratchDirectory("wharf-rig", files: ["exists.txt"])
        let save = DesktopDialogRequest(kind: .save(currentName: Array("new.txt".utf8), currentFile: nil), title: "Zenity save",
                                        currentFolder: dir.path.bytes)
        let (saved, _) = dialog(save) { window, _ in Desktop.gtkChoose(window, path: dir.path("new.txt").description) }
        #expect(saved == .chosen(DesktopDialogChoice(paths: [dir.path("new.txt").bytes], overwriteConfirmed: true)))

        let overwrite = DesktopDialogRequest(kind: .save(currentName: Array("x".utf8), currentFile: nil), title: "Zenity overwrite",
                                             currentFolder: dir.path.bytes)
        let (replaced, _) = dialog(overwrite, retries: 1) { window, _ in
            Desktop.gtkChooseReplacing(window, path: dir.path("exists.txt").description)
        }
        #expect(replaced == .chosen(DesktopDialogChoice(paths: [dir.path("exists.txt").bytes], overwriteConfirmed: true)))
    }

    @Test func saveSeveralPicksAFolder() {
        let dir = ScratchDirectory("wharf-rig")
        let request = DesktopDialogRequest(kind: .saveFiles(files: [Array("a.txt".utf8), Array("b.txt".utf8)]),
                                           title: "Zenity save several", currentFolder: dir.path.bytes)
        let (result, _) = dialog(request) { window, _ in Desktop.gtkChooseFolder(window, path: dir.path.description, acceptKey: "alt+o") }
        #expect(result == .chosen(DesktopDialogChoice(paths: [dir.path("a.txt").bytes, dir.path("b.txt").bytes], overwriteConfirmed: false,
                                                      folder: dir.path.bytes)), "\(String(describing: result))")
    }

    @Test func escapeIsTheHumansCancel() {
        let (result, title) = dialog(DesktopDialogRequest(kind: .open(multiple: false, directory: false), title: "Zenity escape")) { window, _ in
            Desktop.key(window, "Escape")
        }
        #expect(result == .cancelled(.user))
        #expect(Desktop.waitUntilGone("^" + title))
    }

    @Test func theCallersCancelKillsTheRealWindow() {
        let (result, title) = dialog(DesktopDialogRequest(kind: .open(multiple: false, directory: false), title: "Zenity caller cancel")) { _, session in
            session.cancel()
        }
        #expect(result == .cancelled(.caller))
        #expect(Desktop.windows("^" + title).isEmpty, "the window was gone when the result came")
    }
}

@Suite(.serialized, .enabled(if: Desktop.isRig, "runs inside Tests/desktop/rig.sh"))
struct KDialogRigTests {
    let kdialog: ToolDialogPresenter? = ToolDialogPresenter.locate(.kdialog, environment: ProcessControl.environmentVariables())
        .map { ToolDialogPresenter(kind: .kdialog, program: $0) }

    func dialog(_ request: DesktopDialogRequest, human: (String, DesktopDialogSession) -> Void) -> (DesktopDialogResult?, String) {
        guard let kdialog else { return (.failed("kdialog is not installed"), "") }
        return RigDialog.run(kdialog, request, human: human)
    }

    /// Qt's dialog has the file name field focused: select it, type, Return.
    func typeName(_ window: String, _ text: String) {
        Desktop.key(window, "ctrl+a")
        Desktop.type(window, text)
        Desktop.settleTypingForRig()
        Desktop.key(window, "Return")
    }

    @Test func openOneFile() {
        let dir = ScratchDirectory("wharf-rig", files: ["notes.txt", "photo.png"])
        let request = DesktopDialogRequest(kind: .open(multiple: false, directory: false), title: "KDialog open one",
                                           filters: [DesktopDialogFilter(name: "Text", patterns: [.glob("*.txt")])],
                                           currentFolder: dir.path.bytes)
        let (result, _) = dialog(request) { window, _ in typeName(window, dir.path("notes.txt").description) }
        #expect(result?.paths == [dir.path("notes.txt").bytes], "\(String(describing: result))")
    }

    @Test func openSeveral() {
        let dir = ScratchDirectory("wharf-rig", files: ["a.txt", "b c.txt"])
        let request = DesktopDialogRequest(kind: .open(multiple: true, directory: false), title: "KDialog open several",
                                           currentFolder: dir.path.bytes)
        let (result, _) = dialog(request) { window, _ in typeName(window, "\"a.txt\" \"b c.txt\"") }
        #expect(Set(result?.paths ?? []) == [dir.path("a.txt").bytes, dir.path("b c.txt").bytes], "\(String(describing: result))")
    }

    @Test func saveOne() {
        let dir = ScratchDirectory("wharf-rig")
        let request = DesktopDialogRequest(kind: .save(currentName: Array("draft.txt".utf8), currentFile: nil),
                                           title: "KDialog save", currentFolder: dir.path.bytes)
        let (result, _) = dialog(request) { window, _ in typeName(window, dir.path("final.txt").description) }
        #expect(result == .chosen(DesktopDialogChoice(paths: [dir.path("final.txt").bytes], overwriteConfirmed: true)), "\(String(describing: result))")
    }

    /// Qt takes `-platform NAME` for its own option wherever it stands, after `--` too: a
    /// suggested name without a folder made kdialog abort before any window was shown.
    @Test func saveANameWithoutAFolderThatQtCouldTakeForItsOption() {
        let dir = ScratchDirectory("wharf-rig")
        let request = DesktopDialogRequest(kind: .save(currentName: Array("-platform".utf8), currentFile: nil),
                                           title: "KDialog bare name", filters: [DesktopDialogFilter(name: "Any", patterns: [.glob("*")])])
        let (result, _) = dialog(request) { window, _ in typeName(window, dir.path("-platform").description) }
        #expect(result == .chosen(DesktopDialogChoice(paths: [dir.path("-platform").bytes], overwriteConfirmed: true)), "\(String(describing: result))")
    }

    @Test func escapeAndCallerCancel() {
        let (escaped, _) = dialog(DesktopDialogRequest(kind: .open(multiple: false, directory: false), title: "KDialog escape")) { window, _ in
            Desktop.key(window, "Escape")
        }
        #expect(escaped == .cancelled(.user))
        let (cancelled, title) = dialog(DesktopDialogRequest(kind: .open(multiple: false, directory: false), title: "KDialog cancel")) { _, session in
            session.cancel()
        }
        #expect(cancelled == .cancelled(.caller))
        #expect(Desktop.windows("^" + title).isEmpty)
    }
}
