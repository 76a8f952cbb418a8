import Testing
import WharfDesktopDialogs
import WharfDialogs
import WharfSystem
import WharfTestSupport
@testable import WharfServer

/// What a mover asks of the desktop: an open dialog in folder mode, with the confirmation label
/// as the portal's accept label, titled with what is moved.
@Suite struct MoverDesktopRequest {
    final class Capture: DialogPresenter, Sendable {
        var name: String { "capture" }
        let shown = Locked<[PresentedDialog]>([])
        func show(_ dialog: PresentedDialog) { shown.withValue { $0.append(dialog) } }
        func hide(_ id: DialogID) {}
    }

    struct NoEvents: DialogEventSink {
        func deliver(_ event: DialogEvent, to client: ClientID) {}
    }

    struct NoTypes: ContentTypeOracle {
        func isKnown(_ identifier: String) -> Bool { true }
        func conforms(_ identifier: String, to other: String) -> Bool { identifier == other }
        func type(forFilename name: [UInt8]) -> String { "public.data" }
        func preferredFilenameExtension(of identifier: String) -> String? { nil }
        func description(of identifier: String) -> String? { nil }
        func filters(for identifiers: [String]) -> DialogFilters { DialogFilters(globs: [], mimeTypes: [], directories: true) }
        func isPackage(_ identifier: String) -> Bool { false }
        func identify(name: [UInt8], status: FileStatus,
                      readHead: @escaping (UnsafeMutableRawBufferPointer) throws(SystemError) -> Int) -> String { "public.data" }
    }

    func presented(_ names: [String], options: DialogOptions) throws -> PresentedDialog {
        let scratch = ScratchDirectory()
        let files = try names.map { name throws -> MoverFile in
            let path = scratch.write(name, "x")
            return MoverFile(path: path, identity: try FileIdentity.of(path), birth: nil, isDirectory: false,
                             isSymlink: false, readOnly: false)
        }
        let capture = Capture()
        let engine = DialogEngine(homeDirectory: scratch.path, sink: NoEvents())
        _ = try engine.present(client: 1, app: "test", request: DialogEngine.check(MoverRequest(files: files, options: options), types: NoTypes()),
                               presenter: capture, types: NoTypes())
        return try #require(capture.shown.withValue { $0.first })
    }

    @Test func thePortalGetsAnOpenFileForAFolderWithTheAcceptLabel() throws {
        let dialog = try presented(["report.pdf"], options: DialogOptions(confirmationLabel: "Move Here", parentWindow: "x11:3a"))
        let request = DesktopDialogRequest(dialog, note: nil, types: nil)
        #expect(request.kind == .open(multiple: false, directory: true))
        #expect(request.title == "Move \u{201C}report.pdf\u{201D} to")
        #expect(request.acceptLabel == "Move Here")
        let call = PortalCall(request: request, token: "t")
        #expect(call.method == "OpenFile")
        #expect(call.parentWindow == "x11:3a")
        let options = Dictionary(call.options.map { ($0.0, $0.1) }, uniquingKeysWith: { first, _ in first })
        #expect(options["directory"] == .boolean(true))
        #expect(options["accept_label"] == .string("Move Here"))
        #expect(options["filters"] == nil, "a folder dialog offers no file filters")
    }

    @Test func severalFilesAreCountedAndTheClientsTitleWins() throws {
        #expect(DesktopDialogRequest(try presented(["a.txt", "b.txt"], options: DialogOptions()), note: nil, types: nil).title
                == "Move 2 items to")
        #expect(DesktopDialogRequest(try presented(["a.txt"], options: DialogOptions(title: "Archive")), note: nil, types: nil).title
                == "Archive")
    }
}
