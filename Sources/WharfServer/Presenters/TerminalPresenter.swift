import WharfContentTypes
import WharfDialogs
import WharfSystem
import WharfTerminal

/// Dialogs drawn on the controlling terminal (`--presenter terminal`, and `wharf pick` or
/// `wharf save` where no desktop dialog is usable): a ``TerminalPicker`` on the alternate
/// screen, on a thread of its own, answering through the dialog's responder.
///
/// One terminal shows one dialog at a time: others wait their turn, in order, whichever client
/// they are from (each client has a presenter of its own; the queue is the process's), and
/// whichever presenter shows them (``TerminalTurn``: a file manager's dialog too). The terminal is
/// given back as it was found however the dialog ends: a choice or a cancel (before the app
/// hears of it), the app ending it (``hide(_:)``), the terminal hanging up, a signal or a crash
/// (``TerminalGuard``).
final class TerminalPresenter: DialogPresenter {
    private let types: @Sendable () -> ContentTypeScope?
    private let environment: [String: String]

    private struct State {
        /// Dialogs waiting, each with the presenter of its client (ids are unique only within
        /// a client).
        var waiting: [(dialog: PresentedDialog, presenter: TerminalPresenter)] = []
        var running = false
        var current: (id: DialogID, presenter: TerminalPresenter)?
        var currentPicker: TerminalPicker?
        /// The app ended the current dialog before its picker was made.
        var currentHidden = false
    }
    /// The process has one controlling terminal: one queue for every client's dialogs.
    private static let state = Locked(State())
    private var state: Locked<State> { Self.state }

    init(environment: [String: String], types: @escaping @Sendable () -> ContentTypeScope?) {
        self.environment = environment
        self.types = types
    }

    var name: String { "terminal" }

    func show(_ dialog: PresentedDialog) {
        let start = state.withValue { state -> Bool in
            state.waiting.append((dialog, self))
            if state.running { return false }
            state.running = true
            return true
        }
        if start { startThread { Self.showWaiting() } }
    }

    func hide(_ id: DialogID) {
        let picker = state.withValue { state -> TerminalPicker? in
            state.waiting.removeAll { $0.dialog.id == id && $0.presenter === self }
            guard let current = state.current, current.id == id, current.presenter === self else { return nil }
            state.currentHidden = true
            return state.currentPicker
        }
        // Gives the terminal back at once (the process may be about to exit), then wakes the
        // picker's thread to return.
        picker?.stop()
    }

    /// Shows the waiting dialogs one after the other, then lets the thread end.
    private static func showWaiting() {
        while let (dialog, presenter) = state.withValue({ state -> (PresentedDialog, TerminalPresenter)? in
            guard !state.waiting.isEmpty else {
                state.running = false
                return nil
            }
            let next = state.waiting.removeFirst()
            state.current = (next.dialog.id, next.presenter)
            state.currentHidden = false
            return next
        }) {
            TerminalTurn.run { presenter.present(dialog) }
            state.withValue { state in
                state.current = nil
                state.currentPicker = nil
            }
        }
    }

    private func present(_ dialog: PresentedDialog) {
        // Ended by the app while it waited for the terminal: never drawn.
        if state.withValue({ $0.currentHidden }) { return }
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
