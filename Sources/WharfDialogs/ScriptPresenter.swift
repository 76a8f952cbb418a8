import WharfSystem

/// Answers dialogs from a fixed list of steps, for demos, CI and harnesses that do not want to
/// play the human.
///
/// Steps are consumed in order across dialogs. Dialogs are served one at a time, in the order
/// they were shown: each takes the steps up to and including its first ending step
/// (`choose`, `dismiss`, `save`), then the next dialog's turn begins. A script cannot retry:
/// a rejected choice, a failed expectation, a step of the wrong kind or running out of steps
/// fails the dialog with a presenter error that says which step and why. A dialog that ends
/// from the app's side (cancel, timeout, disconnect) forfeits the rest of its steps, so the
/// script stays aligned with the dialogs that follow; one that ends before its turn consumes
/// nothing.
///
/// A dialog shown when no other is being served takes its steps at once, in `show` (which the
/// engine calls through the client's outbox, never under its lock), and when it is answered the
/// dialogs waiting behind it take theirs on the same thread, one after the other: no thread hop
/// per dialog. A step after a `delay`, and a turn that begins because a dialog was hidden, run
/// on the scheduler: `delay` schedules instead of sleeping.
public final class ScriptPresenter: DialogPresenter {
    public var name: String { "script" }
    private struct State {
        var steps: [ScriptStep]
        var next = 0
        /// Dialogs waiting for their turn, oldest first.
        var waiting: [PresentedDialog] = []
        /// The dialog being served, and a serial number that tells stale callbacks apart.
        var active: PresentedDialog?
        var turn = 0
        /// The active dialog has taken its ending step (there is nothing left to forfeit).
        var answered = false
    }

    private enum Action {
        case none
        case expect(ScriptExpectation)
        case delay(Int)
        case select(ScriptStep)
        case answer(ScriptStep)
        case fail(String)
    }

    private let state: Locked<State>
    private let scheduler: any DialogScheduler

    public init(steps: [ScriptStep], scheduler: any DialogScheduler = TimerScheduler()) {
        self.state = Locked(State(steps: steps))
        self.scheduler = scheduler
    }

    /// Steps not consumed yet (a harness can check the script was used up).
    public var remainingSteps: Int { state.withValue { $0.steps.count - $0.next } }

    public func show(_ dialog: PresentedDialog) {
        let turn: Int? = state.withValue { state in
            state.waiting.append(dialog)
            return state.active == nil ? beginNextTurn(&state) : nil
        }
        // A dialog that is served at once is answered on this thread (a delivery thread of the
        // engine's outbox, never the engine's lock): no thread hop per dialog.
        if let turn { run(turn) }
    }

    public func hide(_ id: DialogID) {
        let turn: Int? = state.withValue { state in
            if let index = state.waiting.firstIndex(where: { $0.id == id }) {
                state.waiting.remove(at: index)
                return nil
            }
            guard state.active?.id == id else { return nil }
            if !state.answered { skipRestOfDialog(&state) }
            state.active = nil
            return beginNextTurn(&state)
        }
        if let turn { schedule(turn, after: 0) }
    }

    // MARK: Serving the active dialog

    /// State lock held. Makes the oldest waiting dialog active; returns its turn number.
    private func beginNextTurn(_ state: inout State) -> Int? {
        guard !state.waiting.isEmpty else { return nil }
        state.active = state.waiting.removeFirst()
        state.turn += 1
        state.answered = false
        return state.turn
    }

    /// State lock held. Consumes steps up to and including the next ending step.
    private func skipRestOfDialog(_ state: inout State) {
        while state.next < state.steps.count {
            let step = state.steps[state.next]
            state.next += 1
            if step.isEnding { break }
        }
        state.answered = true
    }

    private func schedule(_ turn: Int, after milliseconds: Int) {
        scheduler.after(milliseconds: milliseconds) { [self] in run(turn) }
    }

    /// Serves the dialog of `turn`, then each dialog whose turn comes when the one before ends.
    private func run(_ turn: Int) {
        var next: Int? = turn
        while let turn = next { next = serve(turn) }
    }

    /// Takes steps for the dialog of `turn` until one must wait (a delay) or answers it; returns
    /// the turn that begins when it ends.
    private func serve(_ turn: Int) -> Int? {
        while true {
            var dialog: PresentedDialog?
            let action: Action = state.withValue { state in
                guard state.turn == turn, let active = state.active else { return .none }
                dialog = active
                guard state.next < state.steps.count else {
                    state.answered = true
                    return .fail("the presenter script has no steps left for dialog \(active.id) (\(active.kind))")
                }
                let number = state.next + 1
                let step = state.steps[state.next]
                state.next += 1
                switch step {
                case .expect(let expectation):
                    return .expect(expectation)
                case .delay(let milliseconds):
                    return .delay(milliseconds)
                case .selectFilter, .setChoice:
                    return .select(step)
                case .choose where active.kind == .exporter, .save where active.kind != .exporter:
                    state.answered = true
                    let answers = if case .save = step { "an exporter" } else { "an importer or a mover" }
                    return .fail("step \(number) of the presenter script answers \(answers), but dialog \(active.id) is \(active.kind == .importer ? "an" : "a") \(active.kind)")
                case .choose, .dismiss, .save:
                    state.answered = true
                    return .answer(step)
                }
            }
            guard let dialog else { return nil }
            switch action {
            case .none:
                return nil
            case .expect(let expectation):
                if let mismatch = expectation.mismatch(in: dialog) {
                    // Skip this dialog's remaining steps, unless the app ended it meanwhile
                    // (then `hide` already did, and the turn has moved on).
                    state.withValue { state in
                        if state.turn == turn && !state.answered { skipRestOfDialog(&state) }
                    }
                    return finish(turn, dialog, failure: "the presenter script's expectation did not hold for dialog \(dialog.id): \(mismatch)")
                }
            case .delay(let milliseconds):
                schedule(turn, after: milliseconds)
                return nil
            case .select(let step):
                if let failure = select(dialog, with: step) {
                    state.withValue { state in
                        if state.turn == turn && !state.answered { skipRestOfDialog(&state) }
                    }
                    return finish(turn, dialog, failure: failure)
                }
            case .fail(let message):
                return finish(turn, dialog, failure: message)
            case .answer(let step):
                return finish(turn, dialog, failure: answer(dialog, with: step))
            }
        }
    }

    /// Selects a filter or sets a choice; returns the presenter failure to report if the dialog
    /// has no such filter or choice, or the engine refused the value.
    private func select(_ dialog: PresentedDialog, with step: ScriptStep) -> String? {
        do throws(DialogError) {
            switch step {
            case .selectFilter(let name):
                guard let index = dialog.namedFilters.firstIndex(where: { $0.name == name }) else {
                    let names = dialog.namedFilters.map { "\"\($0.name)\"" }.joined(separator: ", ")
                    return "the presenter script selects the filter \"\(name)\", and dialog \(dialog.id) has \(names.isEmpty ? "no filters" : names)"
                }
                try dialog.responder.selectFilter(index)
            case .setChoice(let id, let value):
                try dialog.responder.setChoice(id, to: value)
            default:
                break
            }
            return nil
        } catch {
            switch error {
            case .alreadyEnded, .unknownDialog: return nil
            default: return "the presenter script's selection was rejected: \(error)"
            }
        }
    }

    /// Performs an ending step; returns the presenter failure to report if the engine refused it.
    private func answer(_ dialog: PresentedDialog, with step: ScriptStep) -> String? {
        do throws(DialogError) {
            switch step {
            case .choose(let paths, let resolution) where dialog.kind == .mover:
                guard paths.count == 1 else {
                    return "the presenter script's answer names \(paths.count) paths, and a mover takes one folder"
                }
                // A script cannot be asked about names taken in the folder: what it answered
                // beforehand (conflictResolution), or the dialog fails naming them.
                try dialog.responder.move(folder: Self.absolute(paths[0], in: dialog.directory), resolution: resolution, canAsk: false)
            case .choose(let paths, _):
                try dialog.responder.choose(urls: paths.map { Self.absolute($0, in: dialog.directory) })
            case .dismiss:
                try dialog.responder.dismiss()
            case .save(let path, let contentType, let overwrite):
                try dialog.responder.save(
                    url: path.map { Self.absolute($0, in: dialog.directory) }, contentType: contentType,
                    overwrite: overwrite)
            case .delay, .expect, .selectFilter, .setChoice:
                break
            }
            return nil
        } catch {
            switch error {
            case .alreadyEnded, .unknownDialog:
                return nil  // the app ended it meanwhile; nothing to report
            default:
                return "the presenter script's answer was rejected: \(error)"
            }
        }
    }

    /// Ends the turn: reports a failure to the engine if there is one; returns the next dialog's
    /// turn, if one is waiting, for the caller to serve.
    private func finish(_ turn: Int, _ dialog: PresentedDialog, failure: String?) -> Int? {
        if let failure { try? dialog.responder.fail(failure) }
        return state.withValue { state in
            guard state.turn == turn else { return nil }
            state.active = nil
            return beginNextTurn(&state)
        }
    }

    /// Script paths may be relative to the directory the dialog opened in.
    static func absolute(_ path: String, in directory: FilePath) -> String {
        if path.hasPrefix("/") || path.hasPrefix("file:") { return path }
        return directory.appending(path).url
    }
}
