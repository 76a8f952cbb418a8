import WharfContentTypes
import WharfDialogs
import WharfFileManagers
import WharfSystem

/// A terminal file manager people already use (fzf, lf, nnn, ranger, vifm, yazi) as a
/// presenter: Wharf runs it on the controlling terminal, in the dialog's folder, in its chooser
/// mode, and answers what was chosen through the dialog's responder, so every pick meets the
/// checks `dialog/choose` makes.
///
/// Each dialog runs on a thread of its own (the tool, and Wharf's questions, block), one dialog
/// at a time on the terminal. A pick the dialog refuses is explained on the terminal and the
/// tool opens again; quitting the tool without a choice cancels (`user`). The same pick refused
/// ``refusalLimit`` times in a row fails the dialog. Tools that cannot name a new file save by
/// choosing the folder, then Wharf asks for the name on the terminal. The app ending the
/// dialog ends the tool; the terminal is given back as found on every way out
/// (``TerminalChooser``).
final class FileManagerPresenter: DialogPresenter {
    let kind: FileManagerKind
    private let types: @Sendable () -> ContentTypeScope?
    private let environment: [String: String]
    /// The terminal's user for each dialog being shown.
    private let choosers = Locked<[DialogID: TerminalChooser]>([:])
    /// Dialogs the app ended before they reached the terminal.
    private let hidden = Locked<Set<DialogID>>([])
    static let refusalLimit = 5

    init(kind: FileManagerKind, types: @escaping @Sendable () -> ContentTypeScope?,
         environment: [String: String] = ProcessControl.environmentVariables()) {
        self.kind = kind
        self.types = types
        self.environment = environment
    }

    var name: String { kind.rawValue }

    func show(_ dialog: PresentedDialog) {
        startThread { [self] in
            // One dialog at a time on the terminal, whichever client and presenter it is for.
            TerminalTurn.run {
                guard !hidden.withValue({ $0.remove(dialog.id) != nil }) else { return }
                present(dialog)
            }
        }
    }

    func hide(_ id: DialogID) {
        let chooser = choosers.withValue { choosers -> TerminalChooser? in
            if let chooser = choosers[id] { return chooser }
            hidden.withValue { _ = $0.insert(id) }
            return nil
        }
        chooser?.cancel()
    }

    // MARK: One dialog

    /// Runs the dialog on the terminal until it has ended.
    private func present(_ dialog: PresentedDialog) {
        let responder = dialog.responder
        guard let program = kind.locate(path: Array((environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").utf8)) else {
            try? responder.fail("\(kind.rawValue) is not installed (no \(kind.rawValue) on PATH; \(kind.installAdvice))")
            return
        }
        let term = environment["TERM"] ?? ""
        guard !term.isEmpty, term != "dumb" else {
            try? responder.fail("--presenter \(kind.rawValue) needs a terminal it can draw on, but TERM is \(term.isEmpty ? "not set" : "dumb")")
            return
        }
        let chooser: TerminalChooser
        let scratch: PrivateTemporaryDirectory
        do {
            chooser = try TerminalChooser(terminal: try TerminalDevice.openControlling())
            scratch = try PrivateTemporaryDirectory()
        } catch {
            try? responder.fail("--presenter \(kind.rawValue) runs on the controlling terminal, and there is none to use (\(error))")
            return
        }
        let wasHidden = choosers.withValue { choosers -> Bool in
            if hidden.withValue({ $0.remove(dialog.id) != nil }) { return true }
            choosers[dialog.id] = chooser
            return false
        }
        defer {
            choosers.withValue { _ = $0.removeValue(forKey: dialog.id) }
            chooser.close()
            scratch.remove()
        }
        if wasHidden { return }
        let state = FileManagerDialog(dialog: dialog, kind: kind, program: program, chooser: chooser, scratch: scratch,
                              mode: mode(of: dialog))
        state.loop()
    }

    private func mode(of dialog: PresentedDialog) -> FileManagerMode {
        switch dialog.details {
        case .importer(let importer):
            let types = types()
            let folders = !importer.allowedContentTypes.isEmpty && importer.allowedContentTypes.allSatisfy {
                types?.conforms($0, to: "public.directory") ?? false
            }
            return folders ? .folder : .files(multiple: importer.allowsMultipleSelection)
        case .exporter, .mover:
            return .folder
        }
    }
}
