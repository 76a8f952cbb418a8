#if canImport(Glibc)
import Glibc
#endif
import Testing
import WharfDBus
import WharfDesktopDialogs
import WharfDesktopTestSupport
import WharfSystem
import WharfTestSupport

/// The real xdg-desktop-portal with xdg-desktop-portal-gtk, on the rig's private session bus
/// under Xvfb, driven through WharfDesktopDialogs like a person would: xdotool types a path
/// into GTK's location field and presses Return, or Escape. Only inside `make test-desktop`.
@Suite(.serialized, .enabled(if: Desktop.isRig, "runs inside Tests/desktop/rig.sh"))
struct PortalRigTests {
    let portal = PortalFileChooser()

    /// Presents `request` (its title made unique), waits for the GTK window, lets `human`
    /// act on it, and returns the result. See ``RigDialog``.
    func dialog(_ request: DesktopDialogRequest, retries: Int = 3,
                human: (String, DesktopDialogSession) -> Void) -> (DesktopDialogResult?, String) {
        RigDialog.run(portal, request, retries: retries, human: human)
    }

    @Test func openOneFile() {
        let dir = ScratchDirectory("wharf-rig", files: ["report.txt", "photo.PNG"])
        let request = DesktopDialogRequest(kind: .open(multiple: false, directory: false), title: "Rig open one",
                                           filters: [DesktopDialogFilter(name: "Images", patterns: [.glob("*.png"), .mime("image/png")])],
                                           currentFolder: dir.path.bytes)
        let (result, title) = dialog(request) { window, _ in Desktop.gtkChoose(window, path: dir.path("photo.PNG").description) }
        #expect(result == .chosen(DesktopDialogChoice(paths: [dir.path("photo.PNG").bytes], selectedFilter: 0)))
        #expect(Desktop.waitUntilGone("^" + title))
    }

    @Test func aNameTheFilterHidesCanStillBeTyped() {
        let dir = ScratchDirectory("wharf-rig", files: ["notes.txt"])
        let request = DesktopDialogRequest(kind: .open(multiple: false, directory: false), title: "Rig typed past the filter",
                                           filters: [DesktopDialogFilter(name: "Images", patterns: [.glob("*.png")])])
        let (result, _) = dialog(request) { window, _ in Desktop.gtkChoose(window, path: dir.path("notes.txt").description) }
        #expect(result?.paths == [dir.path("notes.txt").bytes], "portal filters are advisory: the caller must check")
    }

    @Test func openSeveralFilesIncludingANameThatIsNotUTF8() {
        let latin1: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".txt".utf8)
        let dir = ScratchDirectory("wharf-rig", files: ["a.txt", "b c.txt"])
        writeFile(dir.path(bytes: latin1), "x")
        let request = DesktopDialogRequest(kind: .open(multiple: true, directory: false), title: "Rig open several",
                                           currentFolder: dir.path.bytes)
        let (result, _) = dialog(request) { window, _ in Desktop.gtkChooseAll(window, in: dir.path.description) }
        let paths = Set(result?.paths ?? [])
        #expect(paths == [dir.path("a.txt").bytes, dir.path("b c.txt").bytes, dir.path(bytes: latin1).bytes],
                "\(String(describing: result))")
    }

    @Test func openAFolder() {
        let dir = ScratchDirectory("wharf-rig")
        dir.makeDirectory("inner")
        let request = DesktopDialogRequest(kind: .open(multiple: false, directory: true), title: "Rig open folder",
                                           acceptLabel: "_Use this folder")
        let (result, _) = dialog(request) { window, _ in Desktop.gtkChooseFolder(window, path: dir.path("inner").description, acceptKey: "alt+u") }
        #expect(result?.paths == [dir.path("inner").bytes], "\(String(describing: result))")
    }

    @Test func saveOne() {
        let dir = ScratchDirectory("wharf-rig")
        let request = DesktopDialogRequest(kind: .save(currentName: Array("draft.txt".utf8), currentFile: nil),
                                           title: "Rig save one", currentFolder: dir.path.bytes)
        let (result, _) = dialog(request) { window, _ in Desktop.gtkChoose(window, path: dir.path("final.txt").description) }
        #expect(result == .chosen(DesktopDialogChoice(paths: [dir.path("final.txt").bytes], overwriteConfirmed: true)))
    }

    @Test func overwriteIsConfirmedByGTKsOwnReplaceQuestion() {
        let dir = ScratchDirectory("wharf-rig", files: ["exists.txt"])
        let request = DesktopDialogRequest(kind: .save(currentName: Array("x.txt".utf8), currentFile: nil),
                                           title: "Rig overwrite", currentFolder: dir.path.bytes)
        let (result, _) = dialog(request, retries: 1) { window, _ in
            Desktop.gtkChooseReplacing(window, path: dir.path("exists.txt").description)
        }
        #expect(result == .chosen(DesktopDialogChoice(paths: [dir.path("exists.txt").bytes], overwriteConfirmed: true)))
    }

    @Test func saveSeveralIntoAFolderAndThePortalRenamesWhatExists() {
        let dir = ScratchDirectory("wharf-rig", files: ["b.txt"])
        let files = [Array("a.txt".utf8), Array("b.txt".utf8)]
        let request = DesktopDialogRequest(kind: .saveFiles(files: files), title: "Rig save several", acceptLabel: "_Keep here")
        let (result, _) = dialog(request) { window, _ in Desktop.gtkChooseFolder(window, path: dir.path.description, acceptKey: "alt+k") }
        guard case .chosen(let choice)? = result else { Issue.record("\(String(describing: result))"); return }
        #expect(choice.folder == dir.path.bytes)
        #expect(choice.paths.first == dir.path("a.txt").bytes)
        // xdg-desktop-portal-gtk 1.14 makes "b.txt" unique as "b(1)txt" (it drops the dot).
        #expect(choice.paths.count == 2 && choice.paths[1] != dir.path("b.txt").bytes, "\(choice.paths.map { String(decoding: $0, as: UTF8.self) })")
        #expect(!choice.overwriteConfirmed)
        print("rig: SaveFiles of a.txt, b.txt into a folder holding b.txt returned \(choice.paths.map { String(decoding: $0, as: UTF8.self) })")
    }

    @Test func escapeIsTheHumansCancel() {
        let request = DesktopDialogRequest(kind: .open(multiple: false, directory: false), title: "Rig escape")
        let (result, title) = dialog(request) { window, _ in Desktop.key(window, "Escape") }
        #expect(result == .cancelled(.user))
        #expect(Desktop.waitUntilGone("^" + title))
    }

    @Test func theCallersCancelClosesTheRealWindow() {
        let request = DesktopDialogRequest(kind: .open(multiple: false, directory: false), title: "Rig caller cancel")
        let (result, title) = dialog(request) { _, session in session.cancel() }
        #expect(result == .cancelled(.caller))
        #expect(Desktop.windows("^" + title).isEmpty, "the window was gone when the result came")
    }

    @Test func aTimeoutClosesTheRealWindowToo() {
        let request = DesktopDialogRequest(kind: .save(currentName: Array("t.txt".utf8), currentFile: nil), title: "Rig timeout")
        let (result, title) = dialog(request) { _, session in session.cancel(.timedOut) }
        #expect(result == .cancelled(.timedOut))
        #expect(Desktop.windows("^" + title).isEmpty)
    }

    @Test func thePortalKilledMidDialogFailsIt() throws {
        let request = DesktopDialogRequest(kind: .open(multiple: false, directory: false), title: "Rig portal killed")
        let (result, title) = dialog(request) { _, _ in
            let bus = try? BusConnection.openAndWait(address: BusAddress.session(environment: BusAddress.processEnvironment()).get(),
                                                     timeoutMs: 5000).get()
            let pid = bus?.callAndWait(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                       interface: "org.freedesktop.DBus", member: "GetConnectionUnixProcessID",
                                       body: [.string("org.freedesktop.portal.Desktop")], timeoutMs: 5000)
            let value = (try? pid?.get())??.body.first?.uint32Value
            #expect(value != nil)
            if let value { kill(pid_t(value), SIGKILL) }
            bus?.close()
        }
        let reason = try #require(result.flatMap { if case .failed(let r) = $0 { return r } else { return nil } }, "\(String(describing: result))")
        #expect(reason.contains("left the session bus while the dialog was open"))
        // The GTK backend still shows the orphaned window; the human (here xdotool) closes it.
        if let window = Desktop.windows("^" + title).first { Desktop.key(window, "Escape") }
        #expect(Desktop.waitUntilGone("^" + title))
        // D-Bus activation brings the portal back for the next caller.
        #expect(PortalFileChooser().probeAndWait(timeoutMs: 10_000).isUsable)
    }

    @Test func theRealPortalProbesUsable() {
        let probe = portal.probeAndWait(timeoutMs: 10_000)
        #expect(probe.isUsable, "\(probe)")
        #expect(probe.detail?.hasPrefix("FileChooser version ") == true)
    }

    @Test func aPortalThatNeverAnswersIsGivenUpWithinTheProbeTimeout() throws {
        let bus = try PrivateBus()
        _ = try FakePortal(bus: bus, dialogs: .hang)
        let started = Deadline(secondsFromNow: 1.5)
        let probe = PortalFileChooser(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address]).probeAndWait(timeoutMs: 500)
        #expect(probe.problem?.hasPrefix("xdg-desktop-portal did not answer within 500 ms") == true)
        #expect(!started.hasPassed)
    }

    @Test func withoutASessionBusThePortalIsUnusable() {
        let probe = PortalFileChooser(environment: ["XDG_RUNTIME_DIR": "/tmp"]).probeAndWait(timeoutMs: 500)
        #expect(probe.problem == "no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set and /tmp/bus does not exist")
    }
}
