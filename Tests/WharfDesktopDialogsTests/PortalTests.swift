import Testing
import WharfDBus
import WharfDesktopDialogs
import WharfDesktopTestSupport
import WharfSystem

/// The portal presenter against a fake portal on a private bus: what it sends, how it reads
/// the Response, cancel, a portal that vanishes, and probing.
@Suite struct PortalTests {
    func chooser(_ bus: PrivateBus, connectTimeoutMs: Int = 5000) -> PortalFileChooser {
        PortalFileChooser(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], connectTimeoutMs: connectTimeoutMs)
    }

    @Test func aResponseSentBeforeTheReplyIsNotLostAndItsURIBecomesExactBytes() throws {
        let bus = try PrivateBus()
        let portal = try FakePortal(bus: bus, dialogs: .answer(code: 0, results: [("uris", .strings(["file:///tmp/caf%E9%20x.txt"]))]))
        let result = run(chooser(bus), open(title: "Pick"))
        #expect(result?.paths == [bytes("/tmp/caf") + [0xE9] + bytes(" x.txt")])
        #expect(portal.calls.first?.member == "OpenFile")
        #expect(portal.calls.first?.body.prefix(2) == [.string(""), .string("Pick")])
    }

    @Test func openFileCarriesEveryOption() throws {
        let bus = try PrivateBus()
        let portal = try FakePortal(bus: bus, dialogs: .answer(code: 1, results: []))
        let request = DesktopDialogRequest(
            kind: .open(multiple: true, directory: false), title: "Import", message: "Pick images", acceptLabel: "_Import",
            modal: false, parentWindow: "x11:1e00004",
            filters: [DesktopDialogFilter(name: "Images", patterns: [.glob("*.png"), .mime("image/*")]),
                      DesktopDialogFilter(name: "Text", patterns: [.glob("*.txt")])],
            currentFilter: 1, currentFolder: bytes("/home/me/") + [0xFF])
        #expect(run(chooser(bus), request) == .cancelled(.user))
        let body = portal.calls[0].body
        #expect(body[0] == .string("x11:1e00004"))
        #expect(body[1] == .string("Import — Pick images"))
        let options = portal.options()
        #expect(options["multiple"] == .boolean(true))
        #expect(options["modal"] == .boolean(false))
        #expect(options["accept_label"] == .string("_Import"))
        #expect(options["current_folder"] == .bytes(bytes("/home/me/") + [0xFF, 0]))
        let images = BusValue.structure([.string("Images"), .array(element: "(us)", [
            .structure([.uint32(0), .string("*.[pP][nN][gG]")]), .structure([.uint32(1), .string("image/*")])])])
        let text = BusValue.structure([.string("Text"), .array(element: "(us)", [.structure([.uint32(0), .string("*.[tT][xX][tT]")])])])
        #expect(options["filters"] == .array(element: "(sa(us))", [images, text]))
        #expect(options["current_filter"] == text)
        #expect(options["directory"] == nil)
        #expect(options["handle_token"]?.stringValue?.hasPrefix("wharf_") == true)
    }

    @Test func saveFileAndSaveFilesSendNamesAsNulTerminatedBytes() throws {
        let bus = try PrivateBus()
        let portal = try FakePortal(bus: bus, dialogs: .answer(code: 0, results: [
            ("uris", .strings(["file:///out/a.txt", "file:///out/b(1)txt"]))]))
        let save = DesktopDialogRequest(kind: .saveFiles(files: [bytes("a.txt"), bytes("b.txt")]), title: "Export",
                                        currentFolder: bytes("/out"))
        let result = run(chooser(bus), save)
        guard case .chosen(let choice)? = result else { Issue.record("\(String(describing: result))"); return }
        #expect(choice.paths == [bytes("/out/a.txt"), bytes("/out/b(1)txt")])
        #expect(choice.folder == bytes("/out"))
        #expect(choice.overwriteConfirmed == false)
        #expect(portal.calls[0].member == "SaveFiles")
        #expect(portal.options()["files"] == .array(element: "ay", [.bytes(bytes("a.txt") + [0]), .bytes(bytes("b.txt") + [0])]))

        let bus2 = try PrivateBus()
        let portal2 = try FakePortal(bus: bus2, dialogs: .answer(code: 0, results: [
            ("uris", .strings(["file:///out/r%C3%A9sum%C3%A9.txt"])),
            ("current_filter", .structure([.string("Text"), .array(element: "(us)", [])]))]))
        let one = DesktopDialogRequest(kind: .save(currentName: bytes("résumé.txt"), currentFile: bytes("/out/old.txt")),
                                       title: "Save", filters: [DesktopDialogFilter(name: "All", patterns: [.glob("*")]),
                                                                DesktopDialogFilter(name: "Text", patterns: [.glob("*.txt")])])
        guard case .chosen(let saved)? = run(chooser(bus2), one) else { Issue.record("no choice"); return }
        #expect(saved.paths == [bytes("/out/résumé.txt")])
        #expect(saved.overwriteConfirmed, "the portal's save dialog asked before replacing")
        #expect(saved.selectedFilter == 1)
        // Two types described alike: the filter the portal returns says which by its patterns.
        let twins = [DesktopDialogFilter(name: "Data", patterns: [.glob("*.a")]), DesktopDialogFilter(name: "Data", patterns: [.glob("*.b"), .mime("x/b")])]
        let second = BusValue.structure([.string("Data"), .array(element: "(us)", [.structure([.uint32(0), .string("*.[bB]")]),
                                                                                   .structure([.uint32(1), .string("x/b")])])])
        let twinsRequest = DesktopDialogRequest(kind: .save(currentName: bytes("d"), currentFile: nil), title: "Save", filters: twins)
        #expect(PortalResponse.result(code: 0, results: ["uris": .strings(["file:///d"]), "current_filter": second], request: twinsRequest)
                == .chosen(DesktopDialogChoice(paths: [bytes("/d")], overwriteConfirmed: true, selectedFilter: 1)))
        let nameOnly = BusValue.structure([.string("Data"), .array(element: "(us)", [])])
        #expect(PortalResponse.result(code: 0, results: ["uris": .strings(["file:///d"]), "current_filter": nameOnly], request: twinsRequest)
                == .chosen(DesktopDialogChoice(paths: [bytes("/d")], overwriteConfirmed: true, selectedFilter: 0)), "by name alone: the first")
        #expect(portal2.calls[0].member == "SaveFile")
        #expect(portal2.options()["current_name"] == .string("résumé.txt"))
        #expect(portal2.options()["current_file"] == .bytes(bytes("/out/old.txt") + [0]))
    }

    @Test(arguments: [(UInt32(1), DesktopDialogResult.cancelled(.user)), (2, .cancelled(.user)),
                      (3, .failed("the desktop portal ended the dialog with the unknown response 3"))])
    func responseCodes(code: UInt32, expected: DesktopDialogResult) throws {
        let bus = try PrivateBus()
        _ = try FakePortal(bus: bus, dialogs: .answer(code: code, results: []))
        #expect(run(chooser(bus), open()) == expected)
    }

    @Test func aResponseFromAnotherConnectionThanThePortalIsIgnored() throws {
        let bus = try PrivateBus()
        let portal = try FakePortal(bus: bus, dialogs: .hold)
        let impostor = try bus.connect()
        func response(_ uri: String) -> BusSignal {
            let handle = PortalRequestPath.path(sender: portal.calls[0].sender ?? "", token: portal.options()["handle_token"]?.stringValue ?? "")
            return BusSignal(path: handle, interface: "org.freedesktop.portal.Request", member: "Response",
                             body: [.uint32(0), .vardict([("uris", .strings([uri]))])])
        }
        let result = run(chooser(bus), open()) { _ in
            let deadline = Deadline(secondsFromNow: 5)
            while portal.calls.isEmpty && !deadline.hasPassed { ProcessControl.sleep(milliseconds: 5) }
            ProcessControl.sleep(milliseconds: 50)
            impostor.emit(response("file:///etc/passwd"))
            impostor.emit(BusSignal(path: response("").path, interface: "org.freedesktop.portal.Request", member: "Response", body: []))
            ProcessControl.sleep(milliseconds: 200)
            portal.connection.emit(response("file:///tmp/chosen"))
        }
        #expect(result?.paths == [bytes("/tmp/chosen")])
    }

    @Test func cancelClosesTheRequestAndEndsCancelledOnce() throws {
        let bus = try PrivateBus()
        let portal = try FakePortal(bus: bus, dialogs: .hold)
        let result = run(chooser(bus), open()) { session in
            // Wait until the portal has the dialog, then cancel.
            let deadline = Deadline(secondsFromNow: 5)
            while portal.calls.isEmpty && !deadline.hasPassed { ProcessControl.sleep(milliseconds: 5) }
            ProcessControl.sleep(milliseconds: 20)
            session.cancel()
            session.cancel(.timedOut)   // a second cancel changes nothing
        }
        #expect(result == .cancelled(.caller))
        #expect(portal.closes.count == 1)
        #expect(portal.closes.first?.hasPrefix("/org/freedesktop/portal/desktop/request/") == true)
    }

    @Test func cancelBeforeThePortalAnsweredStillClosesIt() throws {
        let bus = try PrivateBus()
        let portal = try FakePortal(bus: bus, dialogs: .hold)
        let result = run(chooser(bus), open()) { $0.cancel(.timedOut) }
        #expect(result == .cancelled(.timedOut))
        // Either nothing reached the portal, or what did was closed.
        let deadline = Deadline(secondsFromNow: 2)
        while portal.closes.count < portal.calls.count && !deadline.hasPassed { ProcessControl.sleep(milliseconds: 5) }
        #expect(portal.closes.count == portal.calls.count)
    }

    @Test func aCancelAnsweredLateStillClosesTheWindowThePortalOpened() throws {
        let bus = try PrivateBus()
        let portal = try FakePortal(bus: bus, dialogs: .holdAfter(milliseconds: 700))
        let chooser = PortalFileChooser(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], closeTimeoutMs: 200)
        let started = monotonicNanoseconds()
        let result = run(chooser, open()) { session in
            let deadline = Deadline(secondsFromNow: 5)
            while portal.calls.isEmpty && !deadline.hasPassed { ProcessControl.sleep(milliseconds: 5) }
            session.cancel()
        }
        #expect(result == .cancelled(.caller))
        #expect(millisecondsSince(started) < 700, "the cancel did not wait for the portal's reply")
        // The reply comes after the dialog ended; the window it names must still be closed.
        let deadline = Deadline(secondsFromNow: 5)
        while portal.closes.isEmpty && !deadline.hasPassed { ProcessControl.sleep(milliseconds: 10) }
        #expect(portal.closes.count == 1)
    }

    @Test func thePortalLeavingMidDialogFailsItWithTheReason() throws {
        let bus = try PrivateBus()
        let portal = try FakePortal(bus: bus, dialogs: .hold)
        let result = run(chooser(bus), open()) { _ in
            let deadline = Deadline(secondsFromNow: 5)
            while portal.calls.isEmpty && !deadline.hasPassed { ProcessControl.sleep(milliseconds: 5) }
            ProcessControl.sleep(milliseconds: 20)
            portal.connection.close()
        }
        let reason = try #require(result?.failure)
        #expect(reason.contains("the desktop portal (xdg-desktop-portal, :1."))
        #expect(reason.contains("left the session bus while the dialog was open"))
    }

    /// The bus goes away while a dialog is open, and another use of the presenter comes between
    /// the connection closing and its disconnect being reported (held up here behind a probe's
    /// completion on the connection's delivery queue): that use opens a new link, and the old
    /// link's dialog must still fail rather than wait for ever.
    @Test func aDialogOnALostConnectionFailsEvenWhenANewConnectionWasTriedFirst() throws {
        let bus = try PrivateBus()
        let portal = try FakePortal(bus: bus, dialogs: .hold)
        let chooser = chooser(bus, connectTimeoutMs: 500)
        let result = run(chooser, open(), seconds: 5) { _ in
            let deadline = Deadline(secondsFromNow: 5)
            while portal.calls.isEmpty && !deadline.hasPassed { ProcessControl.sleep(milliseconds: 5) }
            // Holds the delivery queue (a probe's completion runs there) until released.
            let release = OneShot<Void>()
            let holding = OneShot<Void>()
            chooser.probe(timeoutMs: 5000) { _ in
                holding.set(())
                release.wait()
            }
            _ = holding.wait(until: deadline)
            bus.stop()
            // Until the connection has seen the bus go, a probe waits behind the held queue and
            // times out; once it has, the probe opens a new connection, which fails at once.
            var problem = ""
            repeat {
                problem = chooser.probeAndWait(timeoutMs: 200).problem ?? ""
            } while problem.contains("did not answer within") && !deadline.hasPassed
            #expect(!problem.isEmpty && !problem.contains("did not answer within"), "\(problem)")
            release.set(())
        }
        let reason = try #require(result?.failure)
        #expect(reason.hasPrefix("the connection to the D-Bus session bus was lost while the dialog was open"), "\(reason)")
    }

    @Test func probeReportsTheVersion() throws {
        let bus = try PrivateBus()
        _ = try FakePortal(bus: bus, dialogs: .hold, version: 3)
        let probe = chooser(bus).probeAndWait(timeoutMs: 2000)
        #expect(probe == DesktopPresenterProbe(kind: .portal, detail: "FileChooser version 3"))
    }

    @Test func probeOfAMissingPortalSaysItIsNotInstalled() throws {
        let bus = try PrivateBus()
        let probe = chooser(bus).probeAndWait(timeoutMs: 2000)
        #expect(probe.problem == "xdg-desktop-portal is not installed: nothing on the session bus provides org.freedesktop.portal.Desktop")
    }

    @Test func probeOfAPortalWithoutFileChooserSaysSo() throws {
        let bus = try PrivateBus()
        _ = try FakePortal(bus: bus, dialogs: .hold, fileChooser: false)
        let probe = chooser(bus).probeAndWait(timeoutMs: 2000)
        #expect(probe.problem?.hasPrefix("xdg-desktop-portal has no FileChooser") == true)
    }

    @Test func probeOfAHangingPortalGivesUpWithinItsTimeout() throws {
        let bus = try PrivateBus()
        _ = try FakePortal(bus: bus, dialogs: .hang)
        let started = monotonicNanoseconds()
        let probe = chooser(bus).probeAndWait(timeoutMs: 400)
        let elapsed = millisecondsSince(started)
        #expect(probe.problem == "xdg-desktop-portal did not answer within 400 ms (it is installed but hangs, as it does on some bare window managers without a working portal backend)")
        #expect(elapsed >= 350 && elapsed < 1500, "took \(elapsed) ms")
    }

    @Test func withoutASessionBusTheProbeAndTheDialogSayWhy() {
        let chooser = PortalFileChooser(environment: ["XDG_RUNTIME_DIR": "/nonexistent"])
        #expect(chooser.probeAndWait(timeoutMs: 500).problem
            == "no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set and /nonexistent/bus does not exist")
        #expect(run(chooser, open())?.failure
            == "no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set and /nonexistent/bus does not exist")
    }

    @Test func oneConnectionServesManyDialogs() throws {
        let bus = try PrivateBus()
        let portal = try FakePortal(bus: bus, dialogs: .answer(code: 0, results: [("uris", .strings(["file:///a"]))]))
        let chooser = chooser(bus)
        for _ in 0..<20 { #expect(run(chooser, open())?.paths == [bytes("/a")]) }
        let senders = Set(portal.calls.compactMap(\.sender))
        #expect(portal.calls.count == 20 && senders.count == 1)
    }
}

import Glibc
import WharfTestSupport

/// Cancel and probe deadlines hold even against a portal that never answers.
@Suite struct HangingPortalTests {
    @Test func cancelWhileTheCallHangsEndsWithinTheCloseTimeout() throws {
        let bus = try PrivateBus()
        _ = try FakePortal(bus: bus, dialogs: .hang)
        let chooser = PortalFileChooser(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], closeTimeoutMs: 300)
        let started = monotonicNanoseconds()
        let result = run(chooser, open()) { session in
            ProcessControl.sleep(milliseconds: 100)
            session.cancel()
        }
        #expect(result == .cancelled(.caller))
        #expect(millisecondsSince(started) < 3000)
    }

    @Test func aBusThatAcceptsButNeverAnswersIsGivenUpOnTime() throws {
        // A listening socket nobody serves: the connection never completes its handshake.
        let scratch = ScratchDirectory("wharf-mute")
        let dir = scratch.path.description
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array((dir + "/bus").utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in path.enumerated() { raw[i] = b } }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        #expect(bound == 0)
        listen(fd, 8)
        let started = monotonicNanoseconds()
        let probe = PortalFileChooser(environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=" + dir + "/bus"]).probeAndWait(timeoutMs: 400)
        #expect(probe.problem?.contains("did not answer within 400 ms") == true, "\(probe)")
        #expect(millisecondsSince(started) < 2000)
    }
}
