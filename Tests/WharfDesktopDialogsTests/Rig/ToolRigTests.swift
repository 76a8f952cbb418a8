#if canImport(Glibc)
import Glibc
#endif
import Testing
import WharfDesktopDialogs
import WharfDesktopTestSupport

/// zenity (GTK's file chooser) and kdialog (Qt's) run through WharfDesktopDialogs under Xvfb
/// and driven with xdotool. Only inside `make test-desktop`.
@Suite(.serialized, .enabled(if: Desktop.isRig, "runs inside Tests/desktop/rig.sh"))
struct ZenityRigTests {
    let zenity: ToolDialogPresenter? = ToolDialogPresenter.locate(.zenity, environment: BusAddressEnvironment.current)
        .map { ToolDialogPresenter(kind: .zenity, program: $0) }

    func dialog(_ request: DesktopDialogRequest, retries: Int = 3,
                human: (String, DesktopDialogSession) -> Void) -> (DesktopDialogResult?, String) {
        guard let zenity else { return (.failed("zenity is not installed"), "") }
        return RigDialog.run(zenity, request, retries: retries, human: human)
    }

    @Test func probeSaysUsable() {
        let probe = ToolDialogPresenter.probe(.zenity, environment: BusAddressEnvironment.current)
        #expect(probe.isUsable, "\(probe)")
    }

    @Test func openOneFile() {
        let dir = Scratch(files: ["report.txt", "photo.PNG"])
        let request = DesktopDialogRequest(kind: .open(multiple: false, directory: false), title: "Zenity open one",
                                           filters: [DesktopDialogFilter(name: "Images", patterns: [.glob("*.png")])],
                                           currentFolder: Array(dir.path.utf8))
        let (result, title) = dialog(request) { window, _ in Desktop.gtkChoose(window, path: dir.at("photo.PNG")) }
        #expect(result == .chosen(DesktopDialogChoice(paths: [dir.bytes("photo.PNG")])))
        #expect(Desktop.waitUntilGone("^" + title))
    }

    @Test func openSeveralWithNewlinesAndSpacesInNames() {
        let dir = Scratch(files: ["a.txt", "b c.txt", "two\nlines.txt"])
        let request = DesktopDialogRequest(kind: .open(multiple: true, directory: false), title: "Zenity open several",
                                           currentFolder: Array(dir.path.utf8))
        let (result, _) = dialog(request) { window, _ in Desktop.gtkChooseAll(window, in: dir.path) }
        #expect(Set(result?.paths ?? []) == [dir.bytes("a.txt"), dir.bytes("b c.txt"), dir.bytes("two\nlines.txt")],
                "\(String(describing: result))")
    }

    @Test func aNameThatIsNotUTF8FailsWithTheReasonInsteadOfAWrongPath() {
        let dir = Scratch(files: ["ok.txt"], rawNames: [Array("caf".utf8) + [0xE9] + Array(".txt".utf8)])
        let request = DesktopDialogRequest(kind: .open(multiple: true, directory: false), title: "Zenity latin1",
                                           currentFolder: Array(dir.path.utf8))
        let (result, _) = dialog(request) { window, _ in Desktop.gtkChooseAll(window, in: dir.path) }
        #expect(result?.failure?.contains("zenity cannot print file names that are not valid UTF-8") == true, "\(String(describing: result))")
    }

    @Test func openAFolder() {
        let dir = Scratch()
        dir.mkdir("inner")
        let request = DesktopDialogRequest(kind: .open(multiple: false, directory: true), title: "Zenity folder",
                                           currentFolder: Array(dir.path.utf8))
        let (result, _) = dialog(request) { window, _ in Desktop.gtkChooseFolder(window, path: dir.at("inner"), acceptKey: "alt+o") }
        #expect(result?.paths == [dir.bytes("inner")], "\(String(describing: result))")
    }

    @Test func saveOneAndOverwriteAfterGTKsQuestion() {
        let dir = Scratch(files: ["exists.txt"])
        let save = DesktopDialogRequest(kind: .save(currentName: Array("new.txt".utf8), currentFile: nil), title: "Zenity save",
                                        currentFolder: Array(dir.path.utf8))
        let (saved, _) = dialog(save) { window, _ in Desktop.gtkChoose(window, path: dir.at("new.txt")) }
        #expect(saved == .chosen(DesktopDialogChoice(paths: [dir.bytes("new.txt")], overwriteConfirmed: true)))

        let overwrite = DesktopDialogRequest(kind: .save(currentName: Array("x".utf8), currentFile: nil), title: "Zenity overwrite",
                                             currentFolder: Array(dir.path.utf8))
        let (replaced, _) = dialog(overwrite, retries: 1) { window, _ in
            Desktop.gtkChoose(window, path: dir.at("exists.txt"))
            guard let question = Desktop.waitForActiveWindow(otherThan: window) else { return }
            Desktop.waitUntilReady(question)
            Desktop.key(question, "alt+r")
        }
        #expect(replaced == .chosen(DesktopDialogChoice(paths: [dir.bytes("exists.txt")], overwriteConfirmed: true)))
    }

    @Test func saveSeveralPicksAFolder() {
        let dir = Scratch()
        let request = DesktopDialogRequest(kind: .saveFiles(files: [Array("a.txt".utf8), Array("b.txt".utf8)]),
                                           title: "Zenity save several", currentFolder: Array(dir.path.utf8))
        let (result, _) = dialog(request) { window, _ in Desktop.gtkChooseFolder(window, path: dir.path, acceptKey: "alt+o") }
        #expect(result == .chosen(DesktopDialogChoice(paths: [dir.bytes("a.txt"), dir.bytes("b.txt")], overwriteConfirmed: false,
                                                      folder: Array(dir.path.utf8))), "\(String(describing: result))")
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
    let kdialog: ToolDialogPresenter? = ToolDialogPresenter.locate(.kdialog, environment: BusAddressEnvironment.current)
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
        let dir = Scratch(files: ["notes.txt", "photo.png"])
        let request = DesktopDialogRequest(kind: .open(multiple: false, directory: false), title: "KDialog open one",
                                           filters: [DesktopDialogFilter(name: "Text", patterns: [.glob("*.txt")])],
                                           currentFolder: Array(dir.path.utf8))
        let (result, _) = dialog(request) { window, _ in typeName(window, dir.at("notes.txt")) }
        #expect(result?.paths == [dir.bytes("notes.txt")], "\(String(describing: result))")
    }

    @Test func openSeveral() {
        let dir = Scratch(files: ["a.txt", "b c.txt"])
        let request = DesktopDialogRequest(kind: .open(multiple: true, directory: false), title: "KDialog open several",
                                           currentFolder: Array(dir.path.utf8))
        let (result, _) = dialog(request) { window, _ in typeName(window, "\"a.txt\" \"b c.txt\"") }
        #expect(Set(result?.paths ?? []) == [dir.bytes("a.txt"), dir.bytes("b c.txt")], "\(String(describing: result))")
    }

    @Test func saveOne() {
        let dir = Scratch()
        let request = DesktopDialogRequest(kind: .save(currentName: Array("draft.txt".utf8), currentFile: nil),
                                           title: "KDialog save", currentFolder: Array(dir.path.utf8))
        let (result, _) = dialog(request) { window, _ in typeName(window, dir.at("final.txt")) }
        #expect(result == .chosen(DesktopDialogChoice(paths: [dir.bytes("final.txt")], overwriteConfirmed: true)), "\(String(describing: result))")
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

/// The process environment as the probes take it.
enum BusAddressEnvironment {
    static var current: [String: String] {
        var result: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let pair = String(cString: pointer)
            if let equals = pair.firstIndex(of: "=") { result[String(pair[..<equals])] = String(pair[pair.index(after: equals)...]) }
            entry += 1
        }
        return result
    }
}
