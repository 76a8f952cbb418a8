import WharfContentTypes
import WharfDialogs
import WharfSystem
import WharfTerminal

/// Dialogs drawn on the controlling terminal (`--presenter terminal`, and `wharf pick` or
/// `wharf save` where no desktop dialog is usable): a ``TerminalPicker`` on the alternate
/// screen, on a thread of its own, answering through the dialog's responder.
///
/// One terminal shows one dialog at a time: others wait their turn, in order. The terminal is
/// given back as it was found however the dialog ends: a choice or a cancel (before the app
/// hears of it), the app ending it (``hide(_:)``), the terminal hanging up, a signal or a crash
/// (``TerminalGuard``).
final class TerminalPresenter: DialogPresenter {
    private let types: @Sendable () -> ContentTypeScope?
    private let environment: [String: String]

    private struct State {
        var waiting: [PresentedDialog] = []
        var running = false
        var current: DialogID?
        var currentPicker: TerminalPicker?
        /// The app ended the current dialog before its picker was made.
        var currentHidden = false
    }
    private let state = Locked(State())

    init(environment: [String: String], types: @escaping @Sendable () -> ContentTypeScope?) {
        self.environment = environment
        self.types = types
    }

    var name: String { "terminal" }

    func show(_ dialog: PresentedDialog) {
        let start = state.withValue { state -> Bool in
            state.waiting.append(dialog)
            if state.running { return false }
            state.running = true
            return true
        }
        if start { startThread { [self] in showWaiting() } }
    }

    func hide(_ id: DialogID) {
        let picker = state.withValue { state -> TerminalPicker? in
            state.waiting.removeAll { $0.id == id }
            guard state.current == id else { return nil }
            state.currentHidden = true
            return state.currentPicker
        }
        // Gives the terminal back at once (the process may be about to exit), then wakes the
        // picker's thread to return.
        picker?.stop()
    }

    /// Shows the waiting dialogs one after the other, then lets the thread end.
    private func showWaiting() {
        while let dialog = state.withValue({ state -> PresentedDialog? in
            guard !state.waiting.isEmpty else {
                state.running = false
                return nil
            }
            state.current = state.waiting.first?.id
            state.currentHidden = false
            return state.waiting.removeFirst()
        }) {
            present(dialog)
            state.withValue { state in
                state.current = nil
                state.currentPicker = nil
            }
        }
    }

    private func present(_ dialog: PresentedDialog) {
        let session: TerminalSession
        do {
            session = try TerminalSession(environment: environment)
            try session.enter()
        } catch {
            try? dialog.responder.fail("the terminal presenter cannot draw here: \(error)")
            return
        }
        defer { session.leave() }
        let picker = TerminalPicker(dialog: dialog, session: session, types: types(), environment: environment)
        let hidden = state.withValue { state -> Bool in
            state.currentPicker = picker
            return state.currentHidden
        }
        if hidden { return }
        picker.run()
    }
}
